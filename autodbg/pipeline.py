"""What happens after the user's traceback is printed: evidence, investigation, report.

Called by the excepthook (`autodbg._boot`) and by `autodbg run`. The layers it joins know
nothing of each other: the debugger session, the evidence dossier, the model, the report.
Whatever fails after the evidence is gathered ends as the result's `fallback_reason`: the
evidence is always printed and the report always written.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import time
import traceback
from contextlib import contextmanager
from pathlib import Path

from rich.text import Text

from autodbg.errors import AutodbgError
from autodbg.files import write_private
from autodbg.llm.model import EngineError, Model
from autodbg.crash import CrashSession
from autodbg.records import ModelInfo, Probe, Result, Turn
from autodbg.report import EvidenceView, SearchView, SummaryView, make_console
from autodbg.settings import Settings, debug, load_settings
from autodbg.terminal import is_tty
from autodbg.textsafe import terminal_safe
from autodbg.version import __version__

MAX_CONTEXT = 4096  # tokens: the dossier and a few turns fit; more only costs memory and time
PACE = 1 / 3  # of AUTODBG_TIMEOUT: the investigation plans to be done by then; the rest absorbs a slow model


def handle_crash(exc: BaseException, *, thread_name: str | None = None, session: CrashSession | None = None,
                 console=None, settings: Settings | None = None, without_model: str | None = None) -> Result | None:
    """Print the autodbg section for EXC to CONSOLE (default: stderr); return the result (also
    JSON-reported).

    SESSION, when given, is the debugger session to investigate in (shared with a human).
    WITHOUT_MODEL, when given, says why no model runs here: the evidence and the search only."""
    started = time.monotonic()
    console = console or make_console()
    try:
        settings = settings or load_settings()
    except AutodbgError as err:
        console.print(Text(f"autodbg: {err}"), soft_wrap=True)  # one line, however long
        return None
    engine, model, reason = None, None, without_model
    if without_model is None:
        try:  # first, so the model loads while the evidence is gathered
            engine, model = start_engine(settings)
        except Exception as err:
            reason = failure_reason(err)
    worker_started = time.monotonic()
    result = None
    try:
        session = session or CrashSession.of_crash(exc, probes=settings.probe, redact=settings.redact)
        result = new_result(session, thread_name)
        result.model = model
        result.timings.worker_start = round(worker_started - started, 3)
        result.timings.evidence = round(time.monotonic() - worker_started, 3)
        console.print(EvidenceView(session.scrubbed(result.dossier)))
        search_fixes(session, result, settings, console, started)
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
        console.print(Text(f"autodbg: evidence only ({reason})", style="dim"))
    if result is None:
        return None
    result.fallback_reason = reason
    result.timings.total = round(time.monotonic() - started, 3)
    if settings.report_path:
        write_report(session.scrubbed(result), settings.report_path)
    return result


def failure_reason(err: Exception) -> str:
    """ERR, raised while starting or talking to the model, as a fallback reason (one line)."""
    if isinstance(err, AutodbgError):
        return str(err)
    if debug():
        traceback.print_exception(type(err), err, err.__traceback__)
    message = " ".join(str(err).split())
    return f"model unavailable: {type(err).__name__}: {message}" if message else f"model unavailable: {type(err).__name__}"


def explain(session: CrashSession) -> str:
    """`why`: investigate from the session's current state and print the summary."""
    started = time.monotonic()
    engine = None
    try:
        settings = load_settings()
        engine, model = start_engine(settings)
        if engine is None:
            return "no model (AUTODBG_MODEL=none)"
        result = new_result(session, None)
        result.model = model
        console = make_console()
        search_fixes(session, result, settings, console, started)
        reason = run_investigation(engine, session, result, settings, console, started)
    except KeyboardInterrupt:
        reason = "interrupted"
    except Exception as err:
        reason = failure_reason(err)
    finally:
        if engine is not None:
            engine.close()
    return f"no diagnosis: {reason}" if reason else ""


def start_engine(settings: Settings) -> tuple[Model | None, ModelInfo | None]:
    """Resolve AUTODBG_MODEL, find the file and start the worker; (None, None) for none.
    With AUTODBG_ENGINE=remote, the model server instead (it is probed when first used)."""
    if settings.remote is not None:
        from autodbg.llm.remote import RemoteEngine

        remote = settings.remote
        engine = RemoteEngine(remote.base_url, remote.model, api_key=remote.api_key, n_ctx=remote.context,
                              verbose=settings.verbose)
        return engine, ModelInfo(remote.model, remote.base_url, None)
    from autodbg.llm.download import ensure_model, model_sha256
    from autodbg.llm.engine import Engine, context_size_for, free_cores
    from autodbg.llm.registry import ModelSpec, resolve_model

    spec = resolve_model(settings.model)
    if spec is None:
        return None, None
    path = ensure_model(spec, interactive=is_tty(sys.stdin) and is_tty(sys.stderr))
    sha256 = model_sha256(spec)
    trained = spec.context_length if isinstance(spec, ModelSpec) else MAX_CONTEXT
    n_ctx = context_size_for(path.stat().st_size, trained, MAX_CONTEXT)
    engine = Engine(path, threads=settings.threads or free_cores(), n_ctx=n_ctx, state_key=sha256 or str(path))
    engine.start()
    return engine, ModelInfo(spec.id if isinstance(spec, ModelSpec) else path.name, str(path), sha256)


def search_fixes(session: CrashSession, result: Result, settings: Settings, console, started: float) -> None:
    """Look for a fix by small changes without the model (it loads meanwhile) and show what was
    found: where a failing test says when a change works, any change; elsewhere the few kinds that
    a run to the end rarely misjudges (autodbg.investigate.search)."""
    from autodbg.investigate.search import budget_for, search

    if not session.probes:
        return
    begun = time.monotonic()
    result.search = search(session, result.dossier, min(begun + budget_for(settings.timeout), started + settings.timeout))
    result.timings.search = round(time.monotonic() - begun, 3)
    console.print(SearchView(session.scrubbed(result.search)))


def run_investigation(engine, session: CrashSession, result: Result, settings: Settings, console,
                      started: float) -> str | None:
    """Let the model investigate; fill RESULT; return why there is no summary, if there is none.
    The caller owns ENGINE and closes it."""
    from autodbg.investigate.loop import Budget, investigate, planned_tokens
    from autodbg.investigate.pace import load_rates, measured, save_rates

    reason = None
    try:
        with progress(console, settings.verbose) as on_step:
            info = engine.wait_loaded(started + settings.timeout)
            result.timings.model_load = info["load_seconds"]
            pace_key = model_key(result.model)
            found = investigate(session, result.dossier, engine,
                                Budget(deadline=started + settings.timeout, max_turns=settings.turns,
                                       target=started + settings.timeout * PACE,
                                       planned=planned_tokens(settings.timeout), rates=load_rates(pace_key)), on_step,
                                result.search)
        rates = measured(found.calls)
        if rates is not None:
            with contextlib.suppress(OSError, AutodbgError):  # only the next crash's plan would know less
                save_rates(pace_key, rates)
        result.transcript, result.diagnosis, result.tokens = found.transcript, found.diagnosis, found.tokens
        result.candidates = found.candidates
        result.model_calls = found.calls
        result.timings.trials = found.trials or None
        result.stopped_by = found.stopped_by
        if found.error is not None:
            reason = found.error
        elif found.diagnosis is None:
            reason = "the model gave no usable answer"
        elif session.rerun is not None:
            verify(session, result)
    except EngineError as err:
        reason = str(err)
    except Exception as err:  # a bug of ours, or a broken worker: the evidence stands
        reason = failure_reason(err)
    finally:
        if session.rerun is not None:
            session.rerun.stop()
            result.reruns = session.rerun.runs
    result.timings.total = round(time.monotonic() - started, 3)
    if result.diagnosis is not None:
        console.print(SummaryView(session.scrubbed(result)))
    return reason


def model_key(model: ModelInfo | None) -> str:
    """Which model a crash's rates are kept under (autodbg.investigate.pace)."""
    return f"{model.sha256 or model.path}|{model.id}" if model is not None else "unknown"


def verify(session: CrashSession, result: Result) -> None:
    """Under `autodbg run`: run the program again with the checked fix, on a copy of its files."""
    from autodbg.program.verify import verify_fix

    d = result.diagnosis
    fix = d.fix
    if fix is None or not fix.usable:
        return
    started = time.monotonic()
    fix.verified, fix.outcome = verify_fix(session.rerun.program, fix.edit, result.dossier.exception.type,
                                           session.rerun.budget)
    result.timings.verify = round(time.monotonic() - started, 3)
    session.rerun.runs += 1


@contextmanager
def progress(console, verbose: bool):
    """A transient status line of the current step, or with AUTODBG_VERBOSE the whole transcript."""
    if verbose:
        def show(turn: Turn | None):
            if turn is not None:
                console.print(Text(terminal_safe(f"Thought: {turn.thought}\n(autodbg) {turn.command}\n{turn.output}\n")))
        yield show
        return
    if not console.is_terminal:
        yield lambda turn: None
        return
    with console.status(Text("autodbg: loading the model…")) as status:
        def show(turn: Turn | None):
            if turn is None:
                status.update(Text("autodbg: writing the diagnosis…"))
            else:
                first = turn.output.splitlines()[0] if turn.output else ""
                status.update(Text(terminal_safe(f"autodbg: {turn.command} → {first[:60]}")))
        yield show


def new_result(session: CrashSession, thread_name: str | None) -> Result:
    dossier = session.dossier()
    return Result(autodbg_version=__version__, python=platform.python_version(), argv=list(sys.argv),
                  cwd=os.getcwd(), thread=thread_name, dossier=dossier, probe=Probe(session.mode, session.evidence or "ok"))


def write_report(result: Result, path: str) -> None:
    """Write atomically, so a reader never sees half a report, and private (0600): it holds argv,
    the working directory and the program's values."""
    write_private(Path(path), json.dumps(result.to_json(), indent=2, default=str))
