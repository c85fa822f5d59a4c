"""Where gnubg may run: never in a web process.

The ``gnubg`` extension evaluates on a process's main thread and crashes the whole process
(SIGSEGV) on any other; a web process serves requests on worker threads, so one evaluation
there takes down every board it serves. The evaluations a web page needs (a referee's
adjudication help) are asked of a Celery worker instead.

``tavla.site.asgi`` calls :func:`declare_web_process` before Django starts; from then on
importing :mod:`tavla.analysis.evaluator` (the only module that imports gnubg) raises
:class:`GnubgInWebProcessError`, and declaring fails just as loudly if gnubg was already
loaded. Workers, ``manage.py`` commands and the analysis command line never declare, so
they import the evaluator as before. The test runner drives the ASGI application inside its
own process (and evaluates on its main thread), so it calls :func:`allow_in_this_process`
first. No Django here: this module sits below the site, beside the evaluator it guards.
"""

from __future__ import annotations

import sys

#: The modules a web process must never load.
GNUBG_MODULES = ("gnubg", "tavla.analysis.evaluator")


class GnubgInWebProcessError(RuntimeError):
    """gnubg was (or was about to be) loaded in a process that serves web requests."""


class _ProcessRole:
    """This process's answer, set once at start (a module-level mutable, not a global
    statement in each function)."""

    web = False
    exempt_because = ""


def declare_web_process() -> None:
    """Mark this process as a web process: importing the evaluator now raises.

    Raises :class:`GnubgInWebProcessError` if gnubg is already loaded (something imported it
    before the web process started), unless :func:`allow_in_this_process` was called.
    """
    if _ProcessRole.exempt_because:
        return
    loaded = [name for name in GNUBG_MODULES if name in sys.modules]
    if loaded:
        raise GnubgInWebProcessError(
            f"{', '.join(loaded)} is already loaded in a process starting as a web server. "
            "gnubg crashes the process when it evaluates off the main thread; evaluations "
            "belong to the Celery workers (matches.gnubg.tasks). Find the import with "
            "`python -X importtime -c 'import tavla.site.asgi'`."
        )
    _ProcessRole.web = True


def allow_in_this_process(reason: str) -> None:
    """Let this process load gnubg even if it later imports the ASGI application (the test
    runner does: it evaluates on its own main thread). ``reason`` says why, for whoever
    reads the code; it must not be empty."""
    if not reason.strip():
        raise ValueError("say why this process may load gnubg")
    _ProcessRole.exempt_because = reason


def is_web_process() -> bool:
    return _ProcessRole.web


def refuse_in_web_process() -> None:
    """Raise :class:`GnubgInWebProcessError` in a web process (the evaluator calls this
    before it imports gnubg)."""
    if _ProcessRole.web:
        raise GnubgInWebProcessError(
            "tavla.analysis.evaluator (gnubg) may not be imported in a web process: gnubg "
            "crashes the process when it evaluates on a request thread. Ask a worker "
            "instead, through a task of matches.gnubg.tasks."
        )
