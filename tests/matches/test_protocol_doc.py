"""docs/protocol.md and the code say the same thing: one error vocabulary, one version."""

from __future__ import annotations

import re
from pathlib import Path

from matches.rest.errors import ERROR_STATUS
from matches.selectors import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")


def documented_codes() -> dict[str, int]:
    """The rows of the doc's error table: ``| `code` | HTTP | meaning |``."""
    section = DOC.split("## Errors", 1)[1].split("\n## ", 1)[0]
    return {code: int(status)
            for code, status in re.findall(r"^\| `([a-z_]+)` \| (\d{3}) \|", section, re.M)}


def raised_codes() -> set[str]:
    """Every code the match services, selectors and consumers raise."""
    codes: set[str] = set()
    for path in (ROOT / "matches").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes.update(re.findall(r"ServiceError\(\s*\"([a-z_]+)\"", text))
    return codes


def test_the_doc_lists_every_code_with_the_status_rest_answers() -> None:
    assert documented_codes() == ERROR_STATUS


def test_every_code_the_server_raises_is_documented() -> None:
    missing = raised_codes() - set(documented_codes())
    assert not missing, f"undocumented error codes: {sorted(missing)}"


def test_the_doc_is_the_protocol_version_the_server_speaks() -> None:
    assert DOC.startswith(f"# Tavla live protocol (protocol {PROTOCOL_VERSION})")
    assert f"**Protocol {PROTOCOL_VERSION}**" in DOC.split("## Change log", 1)[1]
