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
import re
import sys
import time
import traceback
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from autodbg.errors import AutodbgError, HangTimeout
from autodbg.files import head_of, write_private
from autodbg.llm.model import EngineError, Model
from autodbg.crash import CrashSession
from autodbg.evidence import unraised_dossier
from autodbg.records import Dossier, Hang, Label, ModelInfo, Patch, Probe, Result, Step, Turn
from autodbg.report import EvidenceView, Progress, SearchView, SummaryView, VerdictView, WhereView, make_console, quoted
from autodbg.settings import Settings, debug, load_settings
from autodbg.terminal import is_tty
from autodbg.textsafe import terminal_safe
from autodbg.version import __version__

if TYPE_CHECKING:
    from autodbg.investigate.trying import RelatedTests

# How every report write_report writes begins (Result.to_json's first keys): what it may replace.
REPORT_START = re.compile(rb'\{\s*"schema_version": \d+,\s*"autodbg_version": ')
MAX_CONTEXT = 4096  # tokens: the dossier and a few turns fit; more only costs memory and time
SPECTRUM_SECONDS = 15.0  # the program's tests run once under a line tracer, before the search
JUDGE_SECONDS = 30.0  # one run of the program's related tests, at most
JUDGE_MIN_SECONDS = 20.0  # for the baseline and the fix's runs together, even past the timeout
JUDGED_ALTERNATIVES = 2  # other changes that ran to the end, judged where the diagnosis's fix did not hold
PACE = 1 / 3  # of AUTODBG_TIMEOUT: the investigation plans to be done by then; the rest absorbs a slow model


def handle_crash(exc: BaseException, *, thread_name: str | None = None, session: CrashSession | None = None,
                 console=None, settings: Settings | None = None, interrupted_by: str = "Ctrl-C",
                 without_model: str | None = None, threads: dict[int, list] | None = None) -> Result | None:
    """Print the autodbg section for EXC to CONSOLE (default: stderr); return the result (also
    JSON-reported).

    SESSION, when given, is the debugger session to investigate in (shared with a human). An
    interruption (KeyboardInterrupt, or the pytest watchdog's HangTimeout; INTERRUPTED_BY says which)
    is investigated as a hang only when the program was stuck; otherwise it gets where it was, and
    nothing else (no model is loaded). WITHOUT_MODEL, when given, says why no model runs here: the
    evidence and the search only. THREADS: the other threads' stacks as the watchdog that
    interrupted the program took them (autodbg.analysis.hang.thread_stacks)."""
    console = console or make_console()
    settings = settings or load_settings()
    for warning in settings.warnings:  # a bad setting: one line each, and its default stands
        console.print(Text(terminal_safe(f"autodbg: {warning}"), style="dim"), soft_wrap=True)
    hang = None
    if isinstance(exc, (KeyboardInterrupt, HangTimeout)):
        session = session or CrashSession.of_crash(exc, probes=settings.probe, redact=settings.redact)
        hang = show_hang(exc, session, console, interrupted_by, settings.verbose, threads)
        if hang is None or not hang.stuck:
            return None
    # A script that does not compile, or an exception handed to the hook unraised: no frame ran.
    unraised = _unraised(exc)
    engine, model, reason = None, None, without_model
    if reason is None and not unraised:
        try:
            fetch_model(settings)
        except KeyboardInterrupt:  # Ctrl-C at the question or during the download: the evidence still comes
            reason = "model download interrupted"
        except Exception as err:
            reason = failure_reason(err)
    started = time.monotonic()  # the budget starts after the user's answer and a download
    if reason is None and not unraised:
        try:  # first, so the model loads while the evidence is gathered
            engine, model = start_engine(settings)
        except Exception as err:
            reason = failure_reason(err)
    worker_started = time.monotonic()
    result = None
    try:
        with Progress(console, started, settings.timeout) as shown:
            session = session or CrashSession.of_crash(exc, probes=settings.probe and not unraised,
                                                       redact=settings.redact)
            result = new_result(session, thread_name, unraised_dossier(exc) if unraised else None)
            result.dossier.hang = hang
            result.model = model
            result.timings.worker_start = round(worker_started - started, 3)
            result.timings.evidence = round(time.monotonic() - worker_started, 3)
            if settings.verbose:
                show(console, "evidence", lambda: EvidenceView(session.scrubbed(result.dossier)), session)
            shown.show(session.scrubbed(result))
            if unraised:
                reason = never_ran(result.dossier)
            else:
                show(console, "search for a fix",
                     lambda: search_fixes(session, result, settings, console, started, shown.on_step), session)
            if engine is not None:
                reason = run_investigation(engine, session, result, settings, console, started, shown.on_step)
            elif model is None and reason is None:
                reason = "AUTODBG_MODEL=none"
    except KeyboardInterrupt:  # Ctrl-C: stop at once, say so, keep what is known
        reason = "interrupted"
    finally:
        if engine is not None:
            engine.close()
    if result is None:
        if reason:
            console.print(Text(terminal_safe(f"autodbg: evidence only ({reason})"), style="dim"))
        return None
    result.fallback_reason = reason
    result.timings.total = round(time.monotonic() - started, 3)
    result.patch = suggested_patch(result)
    show(console, "diagnosis", lambda: SummaryView(session.scrubbed(result), reason, settings.verbose), session)
    problem = write_report(session.scrubbed(result), settings.report_path or str(last_report_path()))
    if problem:
        console.print(Text(terminal_safe(f"autodbg: {problem}")), soft_wrap=True)
    return result


def suggested_patch(result: Result) -> Patch | None:
    """The change the summary suggests, as a patch: the diagnosis's fix, else the search's first
    change that passed; only a change that ran to the end (passes, stops the crash, a guard)."""
    from autodbg.fix.label import label_of
    from autodbg.fix.patch import make_patch
    from autodbg.investigate.strategies import candidate_diagnosis
    from autodbg.program.judge import project_root

    fix = result.diagnosis.fix if result.diagnosis is not None else None
    if (fix is None or not fix.usable) and result.search is not None and result.search.passing:
        fix = candidate_diagnosis(result.search.passing[0], "").fix
    if fix is None or not fix.usable:
        return None
    label = fix.label or label_of(fix)
    if label not in RAN_TO_END:
        return None
    return make_patch(fix.edit, label, [os.getcwd(), project_root(os.path.dirname(fix.edit.file))])


RAN_TO_END = (Label.PASSES_YOUR_TESTS, Label.STOPS_THE_CRASH, Label.GUARD)


def last_report_path() -> Path:
    """Where the last crash's report goes when AUTODBG_REPORT names no file (`autodbg fix` reads
    it); its folder, the user's state dir, made (private) at the first crash."""
    from autodbg.files import last_report_file

    path = last_report_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:  # write_report says why nothing was written
        pass
    return path


def never_ran(dossier: Dossier) -> str:
    """Why no frame of the program was looked at, naming the line that does not compile if one does."""
    if dossier.frames:  # where the SyntaxError points (evidence.unraised_dossier)
        where = dossier.frames[0]
        return f"{where.display_file}, line {where.line} does not compile: nothing ran"
    return "it never ran: no frames to look at"


def _unraised(exc: BaseException) -> bool:
    """Whether no frame of the program ran for EXC: it has no traceback (a script that does not
    compile, an exception handed to the hook unraised), or it is a SyntaxError whose traceback is
    only autodbg's and the interpreter's (`autodbg run bad.py`)."""
    from autodbg.frames.core import is_user_file

    if exc.__traceback__ is None:
        return True
    tb, user = exc.__traceback__, False
    while tb is not None and not user:
        user = is_user_file(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return isinstance(exc, SyntaxError) and not user


def show(console, what: str, view, session: CrashSession) -> None:
    """Print VIEW() (a renderable, or None when it prints itself); if it fails, one line says so
    and the rest of the section still comes (the evidence and the report are never lost to one view)."""
    try:
        shown = view()
        if shown is not None:
            console.print(shown)
    except KeyboardInterrupt:
        raise
    except Exception as err:
        message = session.redactor.scrub(" ".join(str(err).split())[:200])
        console.print(Text(terminal_safe(f"autodbg: the {what} could not be shown ({type(err).__name__}"
                                         f"{': ' + message if message else ''})"), style="dim"), soft_wrap=True)


def show_hang(exc: BaseException, session: CrashSession, console, interrupted_by: str, verbose: bool,
              threads: dict[int, list] | None = None) -> Hang | None:
    """Print where the interrupted program was at once, then whether it was stuck; return that
    (None when EXC interrupted nothing of the program's own)."""
    found = session.where_it_was(exc, interrupted_by, threads)
    if found is None:
        return None
    show(console, "place it was interrupted", lambda: WhereView(found), session)
    try:
        checked = session.check_hang(exc, found)
    except KeyboardInterrupt:  # a second Ctrl-C: the user wants out, and has where it was
        return None
    show(console, "verdict", lambda: VerdictView(checked, verbose), session)
    return checked


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
    engine = None
    try:
        settings = load_settings()
        fetch_model(settings)
        started = time.monotonic()
        engine, model = start_engine(settings)
        if engine is None:
            return "no model (AUTODBG_MODEL=none)"
        result = new_result(session, None)
        result.model = model
        console = make_console()
        with Progress(console, started, settings.timeout) as shown:
            search_fixes(session, result, settings, console, started, shown.on_step)
            reason = run_investigation(engine, session, result, settings, console, started, shown.on_step)
        result.patch = suggested_patch(result)
        if result.diagnosis is not None:
            show(console, "diagnosis", lambda: SummaryView(session.scrubbed(result), reason, settings.verbose), session)
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
    if settings.engine_problem is not None:
        raise AutodbgError(settings.engine_problem)
    if settings.remote is not None:
        from autodbg.llm.remote import RemoteEngine

        remote = settings.remote
        engine = RemoteEngine(remote.base_url, remote.model, api_key=remote.api_key, n_ctx=remote.context,
                              verbose=settings.verbose, proxy=remote.proxy, ca_file=remote.ca_file, ca_dir=remote.ca_dir)
        return engine, ModelInfo(remote.model, remote.base_url, None)
    from autodbg.llm.download import ensure_model, hub_cache, model_sha256
    from autodbg.llm.engine import Engine, context_size_for, free_cores, missing_local_engine
    from autodbg.llm.registry import ModelSpec, resolve_model

    spec = resolve_model(settings.model)
    if spec is None:
        return None, None
    missing = missing_local_engine()
    if missing:
        raise AutodbgError(missing)
    cache = hub_cache(settings.model_cache)
    path = ensure_model(spec, cache)
    sha256 = model_sha256(spec, cache)
    trained = spec.context_length if isinstance(spec, ModelSpec) else MAX_CONTEXT
    n_ctx = context_size_for(path.stat().st_size, trained, MAX_CONTEXT)
    engine = Engine(path, threads=settings.threads or free_cores(), n_ctx=n_ctx, state_key=sha256 or str(path))
    engine.start()
    return engine, ModelInfo(spec.id if isinstance(spec, ModelSpec) else path.name, str(path), sha256)


def fetch_model(settings: Settings) -> None:
    """Download the registry model when it is not here yet and the user wants it: AUTODBG_DOWNLOAD=1
    fetches it, AUTODBG_DOWNLOAD=0 never does, and otherwise the user is asked when stdin and stderr
    are a terminal; without one nothing is fetched, and the error says how to get it."""
    from autodbg.llm import download
    from autodbg.llm.engine import missing_local_engine
    from autodbg.llm.registry import ModelSpec, resolve_model

    if settings.remote is not None or settings.engine_problem is not None:
        return
    spec = resolve_model(settings.model)
    if not isinstance(spec, ModelSpec) or spec.package or missing_local_engine():
        return  # nothing to fetch, or nothing to run it with (start_engine says so)
    cache = download.hub_cache(settings.model_cache)
    if download.local_path(spec, cache) is not None:
        return
    if settings.download is False:
        raise download.missing(spec, "not downloaded yet, and AUTODBG_DOWNLOAD=0")
    if download.hub_offline():
        raise download.missing(spec, "not downloaded yet, and HF_HUB_OFFLINE is set")
    if settings.download is None:
        if not (is_tty(sys.stdin) and is_tty(sys.stderr)):
            raise download.missing(spec)
        if not ask_yes(f"Download {spec.id} ({download.size_text(spec.size)}) to {cache}? [y/N] "):
            raise download.missing(spec, "not downloaded: you said no")
    download.pull(spec, cache)


def ask_yes(question: str) -> bool:
    """QUESTION on stderr, the answer from stdin (both the terminal); yes only when it says so."""
    sys.stderr.write(terminal_safe(question))
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def search_fixes(session: CrashSession, result: Result, settings: Settings, console, started: float,
                 on_step: Callable[[Step], None]) -> None:
    """Look for a fix by small changes without the model (it loads meanwhile) and show what was
    found: where a failing test says when a change works, any change; elsewhere the few kinds that
    a run to the end rarely misjudges (autodbg.investigate.search)."""
    from autodbg.investigate.search import budget_for, pointed_lines, ranked_places, search
    from autodbg.program.judge import find_tests
    from autodbg.frames.core import is_test_file
    from autodbg.program.spectrum import suspiciousness

    if not session.probes:
        return
    begun = time.monotonic()
    dossier = result.dossier
    places = None  # the evidence's (search_places), unless the program's failing tests point elsewhere too
    tests = find_tests(dossier.crash_site.file, [frame.file for frame in dossier.frames])
    if tests is not None:
        on_step(Step("running your tests under a line tracer"))
        crashed_in = tuple(frame.function for frame in dossier.frames if is_test_file(frame.file))
        scores = suspiciousness(tests, SPECTRUM_SECONDS, crashed_in)
        if isinstance(scores, dict) and scores:
            places = ranked_places(dossier, scores)
            dossier.pointed = pointed_lines(dossier, scores)
    result.search = search(session, dossier, min(time.monotonic() + budget_for(settings.timeout),
                                                 started + settings.timeout), places, on_step)
    result.timings.search = round(time.monotonic() - begun, 3)
    if settings.verbose:
        console.print(SearchView(session.scrubbed(result.search)))


def run_investigation(engine, session: CrashSession, result: Result, settings: Settings, console,
                      started: float, on_step: Callable[[Step], None]) -> str | None:
    """Let the model investigate; fill RESULT; return why there is no summary, if there is none.
    The caller owns ENGINE and closes it."""
    from autodbg.investigate.loop import investigate
    from autodbg.investigate.plan import Budget, planned_tokens
    from autodbg.investigate.pace import load_rates, measured, save_rates

    reason = None
    try:
        on_step(Step("loading the model"))
        with transcript(console, settings.verbose, on_step) as on_turn:
            info = engine.wait_loaded(started + settings.timeout)
            result.timings.model_load = info["load_seconds"]
            pace_key = model_key(result.model)
            found = investigate(session, result.dossier, engine,
                                Budget(deadline=started + settings.timeout, max_turns=settings.turns,
                                       target=started + settings.timeout * PACE,
                                       planned=planned_tokens(settings.timeout), rates=load_rates(pace_key)), on_turn,
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
        else:
            if session.rerun is not None:
                verify(session, result)
            judge(session.changes.tests, result, started + settings.timeout, on_step)
    except EngineError as err:
        reason = str(err)
    except Exception as err:  # a bug of ours, or a broken worker: the evidence stands
        reason = failure_reason(err)
    finally:
        if session.rerun is not None:
            session.rerun.stop()
            result.reruns = session.rerun.runs
    result.timings.total = round(time.monotonic() - started, 3)
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
    if fix.trial is not None and fix.trial.refused:  # it tried what the sandbox refuses: not run outside a probe
        fix.verified, fix.outcome = False, f"not run again: in its probe it tried {fix.trial.refused}"
        return
    started = time.monotonic()
    fix.verified, fix.outcome = verify_fix(session.rerun.program, fix.edit, result.dossier.exception.type,
                                           session.rerun.budget)
    result.timings.verify = round(time.monotonic() - started, 3)
    session.rerun.runs += 1


def judge(tests: RelatedTests, result: Result, deadline: float, on_step: Callable[[Step], None]) -> None:
    """Judge the diagnosis's fix by the program's own tests where it has them, and label it; where
    they do not hold, the first other change that passed its run and holds them takes its place."""
    from autodbg.investigate.strategies import candidate_diagnosis, plain_reason
    from autodbg.fix.label import label_of

    fix = result.diagnosis.fix
    if fix is None or not fix.usable:
        return
    if fix.trial is not None and fix.trial.refused:  # never run outside a probe: see verify
        fix.label = label_of(fix)
        return
    started = time.monotonic()
    judged_by = tests.tests_for(fix.edit)
    if judged_by is not None:
        on_step(Step("running your tests"))
        until = max(deadline, started + JUDGE_MIN_SECONDS)  # a fix is worth its label, even past the timeout
        seconds = lambda: max(1.0, min(JUDGE_SECONDS, until - time.monotonic()))  # noqa: E731
        fix.judgement = tests.judgement(judged_by, fix.edit, seconds())
        fix.label = label_of(fix)
        others = [c for c in (result.search.passing if result.search else []) + result.candidates
                  if c.trial.passes and c.edit != fix.edit]
        for candidate in others[:JUDGED_ALTERNATIVES] if fix.label != Label.PASSES_YOUR_TESTS else []:
            if time.monotonic() > until:
                break
            other = candidate_diagnosis(candidate, "")
            other.fix.judgement = tests.judgement(judged_by, candidate.edit, seconds())
            other.fix.label = label_of(other.fix)
            if other.fix.label == Label.PASSES_YOUR_TESTS:
                other.root_cause = plain_reason(other)
                result.diagnosis = other
                break
        result.timings.judge = round(time.monotonic() - started, 3)
    result.diagnosis.fix.label = label_of(result.diagnosis.fix)


@contextmanager
def transcript(console, verbose: bool, on_step: Callable[[Step], None]):
    """What the model does, turn by turn: with AUTODBG_VERBOSE the whole transcript printed, else
    the step it is at (for the progress line)."""
    if verbose:
        def show(turn: Turn | None):
            if turn is not None:
                console.print(Text(terminal_safe(f"Thought: {quoted(turn.thought)}\n(autodbg) {turn.command}\n{turn.output}\n")))
        yield show
        return

    def step(turn: Turn | None):
        on_step(Step("asking the model: writing the diagnosis" if turn is None else f"asking the model: ran {turn.command}"))
    yield step


def new_result(session: CrashSession, thread_name: str | None, dossier: Dossier | None = None) -> Result:
    """The result of SESSION's crash, its evidence gathered; from here on `try` can judge changes."""
    from autodbg.investigate.trying import ChangeJudge

    dossier = dossier or session.dossier()
    session.changes = ChangeJudge(session, dossier)
    return Result(autodbg_version=__version__, python=platform.python_version(), argv=list(sys.argv),
                  cwd=os.getcwd(), thread=thread_name, dossier=dossier, probe=Probe(session.mode, session.evidence or "ok"))


def write_report(result: Result, path: str) -> str | None:
    """Write atomically, so a reader never sees half a report, and private (0600): it holds argv,
    the working directory and the program's values. Only a report autodbg wrote is replaced; return
    why nothing was written, if it was not."""
    try:
        there = head_of(Path(path), 256)
        if there is not None and not REPORT_START.match(there):
            return f"not writing the report to {path}: something autodbg did not write is there"
        write_private(Path(path), json.dumps(result.to_json(), indent=2, default=str))
    except OSError as err:
        return f"cannot write the report to {path}: {err.strerror or err}"
    return None
