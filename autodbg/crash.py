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
from contextlib import contextmanager

from rich.text import Text

import autodbg
from autodbg.debugger.commands import Session
from autodbg.debugger.core import PostMortem
from autodbg.errors import AutodbgError
from autodbg.evidence import build_dossier
from autodbg.redact import Redactor
from autodbg.report import EvidenceView, SummaryView, make_console
from autodbg.settings import Settings, load_settings
from autodbg.textsafe import terminal_safe

REPORT_SCHEMA = 1
MAX_CONTEXT = 4096  # tokens: the dossier and a few turns fit; more only costs memory and time


def handle_crash(exc: BaseException, *, thread_name: str | None = None, session: Session | None = None) -> dict:
    """Print the autodbg section for EXC to stderr; return the result (also JSON-reported).

    SESSION, when given, is the debugger session to investigate in (shared with a human)."""
    started = time.monotonic()
    console = make_console()
    try:
        settings = load_settings()
    except AutodbgError as err:
        print(f"autodbg: {err}", file=sys.stderr)
        return {}
    engine, model, reason = None, None, "threads get evidence only" if thread_name else None
    if thread_name is None:
        try:  # first, so the model loads while the evidence is gathered
            engine, model = start_engine(settings)
        except AutodbgError as err:
            reason = str(err)
    worker_started = time.monotonic()
    result = {}
    try:
        session = session or Session(PostMortem(exc), redactor=Redactor(settings.redact))
        result = new_result(session, thread_name)
        result["model"] = model
        result["timings"] = {"worker_start": round(worker_started - started, 3),
                             "evidence": round(time.monotonic() - worker_started, 3)}
        console.print(EvidenceView(session.redactor.scrub_tree(result["dossier"])))
        if engine is not None:
            reason = run_investigation(engine, session, result, settings, console, started)
        elif model is None and reason is None:
            reason = "AUTODBG_MODEL=none"
    except KeyboardInterrupt:  # Ctrl-C: stop at once, say so, keep what is known
        reason = "interrupted"
    finally:
        if engine is not None:
            engine.close()
    if reason:
        result["fallback_reason"] = reason
        console.print(Text(f"autodbg: evidence only ({reason})", style="dim"))
    if not result:
        return result
    result["timings"]["total"] = round(time.monotonic() - started, 3)
    if settings.report_path:
        write_report(session.redactor.scrub_tree(result), settings.report_path)
    return result


def explain(session: Session) -> str:
    """`why`: investigate from the session's current state and print the summary."""
    started = time.monotonic()
    engine = None
    try:
        settings = load_settings()
        engine, model = start_engine(settings)
        if engine is None:
            return "no model (AUTODBG_MODEL=none)"
        result = new_result(session, None)
        result["model"] = model
        reason = run_investigation(engine, session, result, settings, make_console(), started)
    except AutodbgError as err:
        reason = str(err)
    except KeyboardInterrupt:
        reason = "interrupted"
    finally:
        if engine is not None:
            engine.close()
    return f"no diagnosis: {reason}" if reason else ""


def start_engine(settings: Settings):
    """Resolve AUTODBG_MODEL, find the file and start the worker; (None, None) for none."""
    from autodbg.llm.download import ensure_model, model_sha256
    from autodbg.llm.engine import Engine, context_size_for, free_cores
    from autodbg.llm.registry import ModelSpec, resolve_model

    spec = resolve_model(settings.model)
    if spec is None:
        return None, None
    interactive = sys.stdin is not None and sys.stdin.isatty() and sys.stderr.isatty()
    path = ensure_model(spec, interactive=interactive)
    sha256 = model_sha256(spec)
    trained = spec.context_length if isinstance(spec, ModelSpec) else MAX_CONTEXT
    n_ctx = context_size_for(path.stat().st_size, trained, MAX_CONTEXT)
    engine = Engine(path, threads=settings.threads or free_cores(), n_ctx=n_ctx, state_key=sha256 or str(path))
    engine.start()
    model = {"id": spec.id if isinstance(spec, ModelSpec) else path.name, "path": str(path), "sha256": sha256}
    return engine, model


def run_investigation(engine, session: Session, result: dict, settings: Settings, console, started: float) -> str | None:
    """Let the model investigate; fill RESULT; return why there is no summary, if there is none.
    The caller owns ENGINE and closes it."""
    from autodbg.investigate import Budget, investigate
    from autodbg.llm.engine import EngineError

    reason = None
    try:
        with progress(console, settings.verbose) as on_step:
            info = engine.wait_loaded(started + settings.timeout)
            result["timings"]["model_load"] = info["load_seconds"]
            found = investigate(session, result["dossier"], engine, Budget(deadline=started + settings.timeout, max_turns=settings.turns), on_step)
        result.update(transcript=found.transcript, diagnosis=found.diagnosis, tokens=found.tokens)
        result["timings"]["turns"] = found.timings
        result["stopped_by"] = found.stopped_by
        if found.diagnosis is None:
            reason = "the model gave no usable answer"
        elif session.rerun is not None:
            verify(session, result)
        if session.rerun is not None:
            session.rerun.stop()
            result["reruns"] = session.rerun.runs
    except EngineError as err:
        reason = str(err)
    result["timings"]["total"] = round(time.monotonic() - started, 3)
    if result["diagnosis"] is not None:
        console.print(SummaryView(session.redactor.scrub_tree(result)))
    return reason


def verify(session: Session, result: dict) -> None:
    """Under `autodbg run`: run the program again with the checked fix, on a copy of its files."""
    from autodbg.rerun import verify_fix

    fix = result["diagnosis"]["fix"]
    if fix is None or fix["problem"] is not None:
        return
    d = result["diagnosis"]
    started = time.monotonic()
    fix.update(verify_fix(session.rerun.program, d["file"], d["line"], d["line_end"], fix["replacement"],
                          result["dossier"]["exception"]["type"]))
    result["timings"]["verify"] = round(time.monotonic() - started, 3)
    session.rerun.runs += 1


@contextmanager
def progress(console, verbose: bool):
    """A transient status line of the current step, or with AUTODBG_VERBOSE the whole transcript."""
    if verbose:
        def show(turn):
            if turn is not None:
                console.print(Text(terminal_safe(f"Thought: {turn['thought']}\n(autodbg) {turn['command']}\n{turn['output']}\n")))
        yield show
        return
    if not console.is_terminal:
        yield lambda turn: None
        return
    with console.status(Text("autodbg: loading the model…")) as status:
        def show(turn):
            if turn is None:
                status.update(Text("autodbg: writing the diagnosis…"))
            else:
                first = turn["output"].splitlines()[0] if turn["output"] else ""
                status.update(Text(terminal_safe(f"autodbg: {turn['command']} → {first[:60]}")))
        yield show


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
        "stopped_by": None,
        "reruns": 0,
        "fallback_reason": None,
    }


def write_report(result: dict, path: str) -> None:
    """Write atomically so a reader never sees half a report."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, default=str)
    os.replace(tmp, path)
