"""Which neural nets the evaluator loads: GNU Backgammon 1.07's (the default) or the PyPI
package's own.

Tavla's analysis is checked against GNU Backgammon 1.07 (Debian's ``gnubg``), but the PyPI
``gnubg`` package bundles a later build of the nets (weights version 1.01 against 1.07's
1.00): the same inputs, hidden units and outputs, different weights, so equities differ by up
to a few thousandths and near-ties go the other way. Tavla ships 1.07's weights file
(``nets/gnubg.wd``, see ``nets/README.md``) and points the package at it.

The package reads its data directory from ``GNUBG_DATA_DIR`` once, when it is imported, and
looks there for the weights (``gnubg.wd``), the bear-off databases (``gnubg_os0.bd``,
``gnubg_ts0.bd``) and the match equity tables (``met/``). :func:`use` therefore runs before
``import gnubg`` (in :mod:`tavla.analysis.evaluator`): it prepares a directory holding the
1.07 weights, version-patched (see :func:`patched_weights`), beside links to the package's own
databases and tables, and sets the variable.

``TAVLA_GNUBG_NETS`` chooses: ``gnubg-1.07`` (default) or ``bundled`` (the package's own
nets, its own data directory untouched). No Django here: the variable is read from the
environment, as the evaluator is loaded by workers and the command line alike.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: The environment variable that chooses the nets, and its values.
SETTING: Final = "TAVLA_GNUBG_NETS"
GNUBG_107: Final = "gnubg-1.07"
BUNDLED: Final = "bundled"
CHOICES: Final = (GNUBG_107, BUNDLED)

#: GNU Backgammon 1.07's weights, byte for byte as Debian's gnubg 1.07.001 installs them.
WEIGHTS_107: Final = Path(__file__).with_name("nets") / "gnubg.wd"
#: The weights file's layout: a magic float, the version float, then the first net's inputs,
#: hidden units and outputs (little-endian, as gnubg writes it on x86).
_MAGIC_AT: Final = 0
_VERSION_AT: Final = 4
_HEADER_END: Final = 20
#: The files the package needs from its data directory besides the weights.
_COMPANIONS: Final = ("gnubg_os0.bd", "gnubg_ts0.bd", "met")


class NetsError(RuntimeError):
    """The nets asked for cannot be loaded (a bad setting, a missing or foreign file)."""


@dataclass(frozen=True, slots=True)
class Nets:
    """The nets in use: ``name`` one of :data:`CHOICES`, ``weights_version`` the version
    the weights were made as (1.00 for gnubg 1.07's), ``data_dir`` the package's data
    directory (None: its own)."""

    name: str
    weights_version: str
    data_dir: str | None

    def describe(self) -> str:
        """Short, for the analysis's ``engine`` field: ``nets gnubg-1.07``."""
        return f"nets {self.name}"


def choice() -> str:
    """``TAVLA_GNUBG_NETS``, checked."""
    value = os.environ.get(SETTING, GNUBG_107).strip() or GNUBG_107
    if value not in CHOICES:
        raise NetsError(f"{SETTING}={value!r}: expected one of {', '.join(CHOICES)}")
    return value


def package_data_dir() -> Path:
    """The PyPI package's own data directory, found without importing the package (importing
    it would load the nets)."""
    spec = importlib.util.find_spec("gnubg")
    if spec is None or not spec.submodule_search_locations:
        raise NetsError("the gnubg package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def weights_version(data: bytes) -> float:
    """The version float in a weights file's header, rounded as gnubg prints it."""
    version: float = struct.unpack_from("<f", data, _VERSION_AT)[0]
    return round(version, 2)


def patched_weights(weights: bytes, bundled: bytes) -> bytes:
    """``weights`` with the bundled file's version float in place of its own.

    The format is unchanged between the two builds (same magic, same inputs, hidden units and
    outputs, same size): only the version float and the weights differ. The package refuses
    a weights file whose version is not its own (it compares the header with the version it
    was built as), so the 1.07 weights are given the bundled file's version; everything else
    is 1.07's, byte for byte.
    """
    if len(weights) != len(bundled) or (
        weights[_MAGIC_AT:_VERSION_AT] != bundled[_MAGIC_AT:_VERSION_AT]
        or weights[_VERSION_AT + 4:_HEADER_END] != bundled[_VERSION_AT + 4:_HEADER_END]
    ):
        raise NetsError("the gnubg package's weights file has a different layout from 1.07's: "
                        f"set {SETTING}={BUNDLED} to use the package's own nets")
    return weights[:_VERSION_AT] + bundled[_VERSION_AT:_VERSION_AT + 4] + weights[_VERSION_AT + 4:]


def _cache_root() -> Path:
    """Where prepared data directories live: ``$XDG_CACHE_HOME/tavla`` (``~/.cache/tavla``),
    or a per-user directory under the system's temporary one when the home is not writable."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    root = Path(base) / "tavla"
    try:
        root.mkdir(parents=True, exist_ok=True)
        if os.access(root, os.W_OK):
            return root
    except OSError:
        pass
    root = Path(tempfile.gettempdir()) / f"tavla-{os.getuid()}"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    return root


def prepare_data_dir(weights_file: Path = WEIGHTS_107, root: Path | None = None) -> Path:
    """A data directory for the package holding ``weights_file`` (version-patched) and links
    to the package's own bear-off databases and match equity tables.

    Named by the hash of both weights files, so a new weights file or package makes a new
    directory. Safe when several worker processes start at once: each builds its own
    temporary directory and renames it into place; the first rename wins, and the others,
    finding the name taken, drop theirs and use the winner's (whose content is the same).
    """
    package = package_data_dir()
    weights = weights_file.read_bytes()
    bundled = (package / "gnubg.wd").read_bytes()
    digest = hashlib.sha256(weights + bundled + str(package).encode()).hexdigest()[:16]
    root = root or _cache_root()
    target = root / f"gnubg-nets-{digest}"
    if (target / "gnubg.wd").is_file():
        return target
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=root))
    try:
        (building / "gnubg.wd").write_bytes(patched_weights(weights, bundled))
        for name in _COMPANIONS:
            os.symlink(package / name, building / name)
        try:
            os.rename(building, target)
        except OSError:
            # Another process renamed its directory into place first (a non-empty target
            # cannot be replaced): use it.
            if not (target / "gnubg.wd").is_file():
                raise
    finally:
        if building.exists():
            shutil.rmtree(building, ignore_errors=True)
    return target


def use() -> Nets:
    """Point the gnubg package at the nets ``TAVLA_GNUBG_NETS`` chooses; call before
    ``import gnubg``. Raises :class:`NetsError` if gnubg is already loaded (the package read
    its data directory then, and the nets could not be told apart) unless they are the
    ones asked for."""
    name = choice()
    if name == BUNDLED:
        nets = Nets(BUNDLED, _version_of(package_data_dir() / "gnubg.wd"), None)
        wanted = None
    else:
        data_dir = str(prepare_data_dir())
        nets = Nets(GNUBG_107, _version_of(WEIGHTS_107), data_dir)
        wanted = data_dir
    if "gnubg" in sys.modules:
        if os.environ.get("GNUBG_DATA_DIR") != wanted:
            raise NetsError("gnubg was imported before tavla.analysis.nets chose its nets")
        return nets
    if wanted is None:
        os.environ.pop("GNUBG_DATA_DIR", None)
    else:
        os.environ["GNUBG_DATA_DIR"] = wanted
    return nets


def _version_of(path: Path) -> str:
    with path.open("rb") as file:
        return f"{weights_version(file.read(_HEADER_END)):.2f}"
