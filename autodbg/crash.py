"""What happens after the user's traceback is printed: evidence, investigation, report.

Called by the excepthook (`autodbg._boot`) and by `autodbg run`. The layers it joins know
nothing of each other: the debugger core, the evidence dossier, the model engine, the report.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time

import autodbg
from autodbg.debugger.commands import Session
from autodbg.debugger.core import PostMortem
from autodbg.errors import AutodbgError
from autodbg.evidence import build_dossier
from autodbg.report import EvidenceView, make_console
from autodbg.settings import load_settings

REPORT_SCHEMA = 1


def handle_crash(exc: BaseException, *, thread_name: str | None = None) -> dict:
    """Print the autodbg section for EXC to stderr; return the result (also JSON-reported)."""
    started = time.monotonic()
    console = make_console()
    try:
        settings = load_settings()
    except AutodbgError as err:
        print(f"autodbg: {err}", file=sys.stderr)
        return {}
    session = Session(PostMortem(exc))
    result = new_result(session, thread_name)
    result["timings"]["evidence"] = round(time.monotonic() - started, 3)
    console.print(EvidenceView(result["dossier"]))
    reason = "threads get evidence only" if thread_name else evidence_only_reason(settings)
    if reason:
        result["fallback_reason"] = reason
        console.print(f"autodbg: evidence only ({reason})", markup=False, highlight=False)
    result["timings"]["total"] = round(time.monotonic() - started, 3)
    if settings.report_path:
        write_report(result, settings.report_path)
    return result


def evidence_only_reason(settings) -> str | None:
    if (settings.model or "").lower() == "none":
        return "AUTODBG_MODEL=none"
    return "the model engine is not available in this build"


def new_result(session: Session, thread_name: str | None) -> dict:
    return {
        "schema_version": REPORT_SCHEMA,
        "autodbg_version": autodbg.__version__,
        "python": platform.python_version(),
        "argv": list(sys.argv),
        "cwd": os.getcwd(),
        "thread": thread_name,
        "dossier": build_dossier(session),
        "transcript": [],
        "diagnosis": None,
        "model": None,
        "timings": {},
        "tokens": {},
        "fallback_reason": None,
    }


def write_report(result: dict, path: str) -> None:
    """Write atomically so a reader never sees half a report."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, default=str)
    os.replace(tmp, path)
