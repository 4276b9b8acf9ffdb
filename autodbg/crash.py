"""A debugging session on frames that this process must not touch.

`CrashSession` is what the investigation, the `(autodbg)` prompt and the re-run tracer talk
to. It keeps only where the session stands (which exception, which frame) and runs every look
at the program's objects -- the dossier, each command, the grammar's live names -- in a fresh
probe forked from this process's untouched image (autodbg.probe.fork), so whatever program
code runs there (a property, a `__repr__`, a function the model calls) has no effect here and
cannot outlive its deadline. Where fork is missing, or with AUTODBG_PROBE=0, the same requests
run inline, with the in-process evaluator's stricter rules (autodbg.frames.safe_eval).

The commands that drive the session or its re-runs (`controls` in the command table) run here.
"""

from __future__ import annotations

import _thread
import dataclasses
import linecache
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

from autodbg.analysis import hang as hangs
from autodbg.frames import safe_eval
from autodbg.debugger.commands import COMMANDS, Breakpoint, Command, parse, resolve_breakpoint
from autodbg.debugger.output import CommandError, ShownLine
from autodbg.frames.core import Inspector, PostMortem, source_lines
from autodbg.debugger.grammar import LiveState, live_state
from autodbg.debugger.session import CommandResult, Session
from autodbg.fix.keys import key_changes
from autodbg.probe.fork import ProbeOutcome, ProbeStatus, available, run_in_probe
from autodbg.records import Dossier, Edit, Ended, FixTrial, Hang, LoopCheck, ProbeMode, Record, Replay, TrialResult
from autodbg.redact import Redactor

COMMAND_SECONDS = 3.0  # one command; the parent kills a probe past it
EVIDENCE_SECONDS = 6.0  # the whole dossier
REPLAY_SECONDS = 2.0  # the crash line's calls run again, for the dossier: most take milliseconds
TRIAL_SECONDS = 5.0  # the program run again with a fix
HANG_CHECK_SECONDS = 1.0  # past the loop's own bound (analysis.hang): one iteration that blocks ends it


class RerunHandle(Protocol):
    """Re-runs of the program in another process (autodbg.program.rerun.Rerun)."""
    breakpoints: list[Breakpoint]
    stopped: bool  # a re-run is stopped at a breakpoint
    where: str  # which stop: commands' outputs differ from one stop to the next
    runs: int

    def add_breakpoint(self, breakpoint: Breakpoint) -> str: ...
    def start(self) -> str: ...
    def send(self, line: str) -> CommandResult: ...  # runs LINE in the stopped re-run
    def state(self) -> LiveState: ...  # the stopped re-run's live state
    def stop(self) -> None: ...


class ChangeTrier(Protocol):
    """What `try` hands a change to (autodbg.investigate.trying.ChangeJudge): it checks it, runs it
    on the crashed program and the program's tests, and says what that showed."""

    def try_line(self, line: ShownLine, code: str) -> str: ...


class CrashSession:
    """The session's controller: runs control commands itself and everything else in probes."""

    def __init__(self, open_debugger: Callable[[], Inspector], *, probes: bool | None = None,
                 rerun: RerunHandle | None = None, explain: Callable[["CrashSession"], str] | None = None,
                 live: bool = False, redact: Sequence[str] = ()) -> None:
        self.open_debugger = open_debugger  # called where the frames are: in the probe
        self.redact = tuple(redact)  # the user's extra secret names and patterns
        # Scrubs what leaves autodbg (terminal, report, prompt) of every secret the probes learned.
        self.redactor = Redactor(self.redact)
        self.redactor.learn_process()
        self.probes = available() if probes is None else probes and available()
        self.rerun = rerun  # set by `autodbg run` (re-running allowed)
        self.explain = explain  # runs `why`: set by `autodbg run --interactive`
        self.live = live  # this session is itself a re-run stopped at a breakpoint
        self.position: tuple[int, int] | None = None  # (exception, frame) selected; None: the crash's own
        self.listed: tuple[int, int, int] | None = None  # where the last listing ended (Session.listed)
        self.last_state: LiveState | None = None
        self.evidence = ""  # how the dossier's probe ended, when not ok
        self._unchanged: dict[str, FixTrial] = {}  # exception type -> the trial of no change at all
        self.changes: ChangeTrier | None = None  # set once the crash's evidence is known: what `try` runs

    @classmethod
    def of_crash(cls, exc: BaseException, **options) -> "CrashSession":
        return cls(lambda: PostMortem(exc), **options)

    @property
    def mode(self) -> ProbeMode:
        return ProbeMode.FORK if self.probes else ProbeMode.INLINE

    # --- what the caller asks --------------------------------------------------------------------

    def execute(self, line: str) -> CommandResult:
        try:
            command, values = parse(line)
        except CommandError as exc:
            return CommandResult(line=line, ok=False, output=f"error: {exc}", valid=False)
        if self.rerun is not None and self.rerun.stopped and command.live:
            reply = self.rerun.send(line)  # runs in the re-run's live frames
            return dataclasses.replace(reply, output=self.redactor.scrub(reply.output))
        if command.back_to_crash and self.rerun is not None and self.rerun.stopped:
            self.rerun.stop()
        if not command.resumes and not command.available(self):  # a resume says why itself
            return CommandResult(line=line, ok=False, output=f"error: {self._unavailable(command)}")
        if not command.controls:
            return self._look(ExecuteLook(position=self.position, line=line, listed=self.listed))
        try:
            return CommandResult(line=line, ok=True, output=command.run(self, *values), ends_session=command.ends_session)
        except CommandError as exc:
            return CommandResult(line=line, ok=False, output=f"error: {exc}")

    def dossier(self) -> Dossier:
        """The evidence dossier: with the program's reprs; if that probe does not come back, without
        running any program code; if even that fails, from the traceback alone."""
        from autodbg.evidence import traceback_dossier

        for plain in (False, True):
            outcome, reply = self._run(DossierLook(position=self.position), EVIDENCE_SECONDS, plain=plain)
            if reply is not None:
                self._take(reply)
                dossier = reply.dossier
                if not plain:
                    dossier.replays = self._replays()
                return dossier
            self.evidence += ("; " if self.evidence else "") + f"{'plain ' if plain else ''}evidence: {outcome.detail}"
        debugger = self.open_debugger()
        for frame in debugger.all_frames():  # no probe learned the secrets its source and locals hold
            self.redactor.learn_frame(frame)
        return traceback_dossier(debugger, f"values not shown: {self.evidence}")

    def _replays(self) -> list[Replay]:
        """The crash line's calls replayed (evidence.crash_line_replays), where probes run; none
        when that probe does not come back (the dossier stands without them)."""
        if not self.probes:
            return []
        outcome, reply = self._run(ReplaysLook(position=None), REPLAY_SECONDS)
        if reply is None:
            self.evidence += ("; " if self.evidence else "") + f"replays: {outcome.detail}"
            return []
        self.redactor.absorb(reply.secrets)
        self.redactor.absorb_names(reply.names, reply.files)
        return reply.replays

    def state(self) -> LiveState | None:
        """The live state where the session stands (the last one read, if this probe fails)."""
        if self.last_state is None:
            self._look(StateLook(position=self.position))
        return self.last_state

    def try_fix(self, fix: Edit, exception_type: str, seconds: float = TRIAL_SECONDS) -> FixTrial:
        """Run the crashed program again with FIX, in a probe (autodbg.fix.trial) that may run for
        SECONDS."""
        if not self.probes:
            return FixTrial(TrialResult.NOT_RUN, "no probe here, and the fix must not run in the crashed process")
        ran = self._trial_in_probe(fix, exception_type, seconds)
        if ran.result in (TrialResult.PASSES, TrialResult.GUARDS):
            # The probe's reply is what program code in it let through: a program that writes its
            # own reply passes unchanged as well, so a pass counts only where the unchanged
            # program, tried the same way, does not pass.
            if exception_type not in self._unchanged:
                self._unchanged[exception_type] = self._trial_in_probe(_unchanged(fix), exception_type, seconds)
            if self._unchanged[exception_type].result in (TrialResult.PASSES, TrialResult.GUARDS):
                return FixTrial(TrialResult.NOT_RUN, "the program passes unchanged too: its code in the probe, not the "
                                "fix, gave that answer")
        return ran

    def _trial_in_probe(self, fix: Edit, exception_type: str, seconds: float) -> FixTrial:
        request = (self.open_debugger, fix, exception_type, self.redact)
        outcome = run_in_probe(lambda: trial(*request).to_json(), deadline=seconds)
        if outcome.status == ProbeStatus.OK:
            ran = _parsed(FixTrial, outcome.value)
            if ran is None:
                return FixTrial(TrialResult.NOT_RUN, "the probe's reply was not a trial")
            if ran.result in (TrialResult.PASSES, TrialResult.GUARDS) and outcome.refusals:
                # The program caught a refusal and went on: not how it runs outside the sandbox.
                why = f"it ran on past something the sandbox refused: {outcome.refusals[0]}"
                return FixTrial(TrialResult.NOT_RUN, self.redactor.scrub(why),
                                refused=self.redactor.scrub(outcome.refusals[0]))
            refused = self.redactor.scrub(outcome.refusals[0]) if outcome.refusals else None  # seen here only
            return dataclasses.replace(ran, detail=self.redactor.scrub(ran.detail), refused=refused)
        if outcome.status == ProbeStatus.TIMED_OUT:
            return FixTrial(TrialResult.HANGS, f"still running after {seconds:g} s")
        if outcome.status == ProbeStatus.REFUSED:
            why = self.redactor.scrub(outcome.detail)
            return FixTrial(TrialResult.NOT_RUN, why, refused=why)
        return FixTrial(TrialResult.NOT_RUN, self.redactor.scrub(f"{outcome.status}: {outcome.detail}"))

    def where_it_was(self, exc: BaseException, interrupted_by: str,
                     threads: dict[int, list] | None = None) -> Hang | None:
        """Where the program EXC interrupted was (autodbg.analysis.hang), read here without running
        its code; None when EXC interrupted nothing of it (no frame of its own, or it raised EXC).
        THREADS: the other threads' stacks as a watchdog took them when it interrupted the program;
        else they are read now."""
        if not hangs.interrupted_frames(exc) or hangs.raised_by_the_program(exc):
            return None
        others = hangs.thread_stacks({_thread.get_ident()}) if threads is None else \
            {ident: stack for ident, stack in threads.items() if ident != _thread.get_ident()}
        hook = sys.modules.get("_autodbg_hook")  # it kept asyncio.run's tasks as its Ctrl-C handler ran
        tasks = getattr(hook, "interrupted_tasks", None) or []
        if tasks:
            hook.interrupted_tasks = None  # this interruption's only
        return self.scrubbed(hangs.where_it_was(exc, interrupted_by, others=others, tasks=tasks))

    def check_hang(self, exc: BaseException, found: Hang) -> Hang:
        """FOUND with its verdict: was the program stuck? The interrupted loop runs on in a probe
        (its effects die there) for a moment, under a line tracer."""
        check = None
        if found.loop is not None and self.probes and not found.blocked:  # blocked: running it on would wait too
            frame, line = hangs.interrupted_frames(exc)[0]
            outcome = run_in_probe(lambda: _loop_check(frame, line), deadline=hangs.CHECK_SECONDS + HANG_CHECK_SECONDS)
            if outcome.status == ProbeStatus.OK:
                check = _parsed(LoopCheck, outcome.value)
            elif outcome.status == ProbeStatus.TIMED_OUT:
                why = f"one iteration ran longer than {outcome.seconds:.1f} s"
                if len(found.threads) > 1:  # the fork has the interrupted thread only; a lock the others held stays held
                    why += ", or it waited on a lock another thread held when the probe forked"
                check = LoopCheck(iterations=0, seconds=outcome.seconds, ended=False, changed={}, unchanged={},
                                  repeated=False, detail=why)
            else:
                check = LoopCheck(iterations=0, seconds=outcome.seconds, ended=False, changed={}, unchanged={},
                                  repeated=False, detail=f"the loop could not run on: {outcome.detail}")
        checked = dataclasses.replace(found, check=check)
        checked.stuck, checked.verdict = hangs.verdict(checked)
        return self.scrubbed(checked)

    def key_changes(self, places: list[tuple[str, int]]) -> list[Edit]:
        """Changes of the key a KeyError says is missing (autodbg.fix.keys), read off the program's
        mappings in a probe; none where no probe runs (reading them may run program code)."""
        if not self.probes:
            return []
        _, reply = self._run(KeysLook(position=None, places=tuple(places)), COMMAND_SECONDS)
        return reply.changes if reply is not None else []

    def available_commands(self) -> frozenset[str]:
        """What can run now: at a re-run's stop, what runs there (and `done`)."""
        if self.rerun is not None and self.rerun.stopped:
            return frozenset(c.name for c in COMMANDS if c.needs in ("crash", "stop"))
        return frozenset(c.name for c in COMMANDS if c.available(self))

    def resolve_breakpoint(self, location: str, condition: str | None) -> Breakpoint:
        outcome, reply = self._run(BreakpointLook(position=self.position, location=location, condition=condition),
                                   COMMAND_SECONDS)
        if reply is None:
            raise CommandError(outcome.detail)
        if reply.error is not None:
            raise CommandError(reply.error)
        return reply.breakpoint

    def try_change(self, location: str, code: str) -> str:
        """`try FILE:LINE CODE`: the line (one of the program's lines of code) and its new code,
        handed to the change trier."""
        if self.changes is None:
            raise CommandError("nothing can judge a change yet: `try` runs once the crash's evidence is gathered")
        found = self.resolve_breakpoint(location, None)  # a line of code of the program's own files
        return self.changes.try_line(ShownLine(found.file, found.line, source_lines(found.file)[found.line - 1]), code)

    def _unavailable(self, command: Command) -> str:
        if command.needs in ("rerun", "breakpoints") and self.rerun is None:
            return f"`{command.name}` needs `autodbg run` with re-running allowed"
        if command.needs == "probe" and not self.probes:
            return f"`{command.name}` runs the program's code: only in a probe, and probes are off here"
        return f"`{command.name}` is not possible now"

    # --- probes ----------------------------------------------------------------------------------

    def _look(self, look: "Look") -> CommandResult:
        outcome, reply = self._run(look, COMMAND_SECONDS)
        line = look.line if isinstance(look, ExecuteLook) else ""
        if reply is None:
            ended = Ended.PROBE_DIED if outcome.status == ProbeStatus.DIED else Ended(str(outcome.status))
            return CommandResult(line=line, ok=False, output=f"error: {outcome.detail}", ended=ended)
        self._take(reply)
        if isinstance(look, ExecuteLook):
            self.listed = reply.listed
        if reply.result is None:
            return CommandResult(line=line, ok=True, output="")
        return dataclasses.replace(reply.result, output=self.redactor.scrub(reply.result.output))

    def scrubbed(self, record):
        """RECORD (a records.Record) without any secret the probes learned: for what leaves autodbg."""
        return self.redactor.scrub_record(record)

    def _take(self, reply: "Reply") -> None:
        self.position = reply.position
        self.last_state = reply.state
        self.redactor.absorb(reply.secrets)
        self.redactor.absorb_names(reply.names, reply.files)

    def _run(self, look: "Look", seconds: float, plain: bool = False) -> tuple[ProbeOutcome, "Reply | None"]:
        """How LOOK ran where the frames are, and its reply (None unless it ran to its end)."""
        request = (self.open_debugger, look, self.redact)
        if self.probes:
            outcome = run_in_probe(lambda: serve(*request, mode="plain" if plain else "probe").to_json(),
                                   deadline=seconds)
            if outcome.status != ProbeStatus.OK:
                return outcome, None
            reply = _parsed(Reply, outcome.value)
            if reply is None:
                return ProbeOutcome(ProbeStatus.ERROR, detail="the probe's reply was malformed"), None
            return outcome, reply
        if plain:  # inline, nothing stricter is left to try
            return ProbeOutcome(ProbeStatus.ERROR, detail="no probe here"), None
        started = time.monotonic()
        try:
            reply = serve(*request, mode="inline")
        except BaseException as exc:  # program code may raise anything, even SystemExit
            if isinstance(exc, KeyboardInterrupt):
                raise
            return ProbeOutcome(ProbeStatus.ERROR, detail=f"{type(exc).__name__}: {safe_eval.cut(str(exc), 200)}",
                                seconds=time.monotonic() - started), None
        return ProbeOutcome(ProbeStatus.OK, seconds=time.monotonic() - started), reply


def _unchanged(fix: Edit) -> Edit:
    """FIX's lines as they are: the same trial with nothing changed."""
    lines = linecache.getlines(fix.file)[fix.first - 1: fix.last]
    return dataclasses.replace(fix, replacement="".join(lines), origin="unchanged")


def _parsed(kind: type, data):
    """DATA, a probe's reply, as the record KIND; None when it is not one."""
    try:
        return kind.from_json(data)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


# --- the probe's side ----------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Look:
    """A request for the probe: what to read or run where the frames are."""
    position: tuple[int, int] | None  # (exception, frame) to select first; None: the crash's own


@dataclass(frozen=True, kw_only=True)
class DossierLook(Look):
    pass


@dataclass(frozen=True, kw_only=True)
class ReplaysLook(Look):
    pass


@dataclass(frozen=True, kw_only=True)
class StateLook(Look):
    pass


@dataclass(frozen=True, kw_only=True)
class KeysLook(Look):
    places: tuple[tuple[str, int], ...]


@dataclass(frozen=True, kw_only=True)
class ExecuteLook(Look):
    line: str
    listed: tuple[int, int, int] | None = None  # the controller's, for the probe's fresh Session


@dataclass(frozen=True, kw_only=True)
class BreakpointLook(Look):
    location: str
    condition: str | None


@dataclass(kw_only=True)
class Reply(Record):
    """What a look sends back: where the session stands after it, the secrets it learned, and its
    own answer (one of the optional fields)."""
    state: LiveState
    position: tuple[int, int]
    secrets: list[str]
    names: list[str] = field(default_factory=list)  # the words the program's code is named by
    files: list[str] = field(default_factory=list)  # and the files whose code was seen
    dossier: Dossier | None = None
    replays: list[Replay] = field(default_factory=list)
    changes: list[Edit] = field(default_factory=list)
    result: CommandResult | None = None
    breakpoint: Breakpoint | None = None
    error: str | None = None  # why the breakpoint could not be set
    listed: tuple[int, int, int] | None = None  # where the session's last listing ended


def trial(open_debugger: Callable[[], Inspector], fix: Edit, exception_type: str, redact: Sequence[str]) -> FixTrial:
    """In the probe: FIX tried on the crashed program."""
    from autodbg.fix.trial import try_fix

    safe_eval.set_mode("probe")  # values of the fixed call are shown with the probe's reprs
    ran = try_fix(open_debugger(), fix, exception_type)
    return dataclasses.replace(ran, detail=Redactor(redact).scrub(ran.detail))


def _loop_check(frame, line: int) -> dict:
    """In the probe: the interrupted loop run on (autodbg.analysis.hang.run_loop_on)."""
    safe_eval.set_mode("probe")  # the loop's values are shown with the program's own reprs
    return hangs.run_loop_on(frame, line).to_json()


def _dossier(session: Session, look: DossierLook) -> dict:
    from autodbg.evidence import build_dossier

    return {"dossier": build_dossier(session)}


def _replays(session: Session, look: ReplaysLook) -> dict:
    from autodbg.evidence import crash_line_replays

    return {"replays": crash_line_replays(session)}


def _keys(session: Session, look: KeysLook) -> dict:
    return {"changes": key_changes(session.debugger, list(look.places))}


def _execute(session: Session, look: ExecuteLook) -> dict:
    session.listed = look.listed
    return {"result": session.execute(look.line)}


def _breakpoint(session: Session, look: BreakpointLook) -> dict:
    try:
        return {"breakpoint": resolve_breakpoint(session, look.location, look.condition)}
    except CommandError as exc:
        return {"error": session.redactor.scrub(str(exc))}


HANDLERS: dict[type, Callable[[Session, Look], dict]] = {
    DossierLook: _dossier, ReplaysLook: _replays, StateLook: lambda session, look: {}, KeysLook: _keys,
    ExecuteLook: _execute, BreakpointLook: _breakpoint,
}


def serve(open_debugger: Callable[[], Inspector], look: Look, redact: Sequence[str], mode: str) -> Reply:
    """LOOK, where the frames are (in a probe, or inline)."""
    safe_eval.set_mode(mode)
    session = Session(open_debugger(), Redactor(redact))
    d = session.debugger
    if look.position is not None:
        exception, frame = look.position
        if exception >= 0 and exception != d.exception_index:
            d.select_exception(exception)
        d.select_frame(frame)
    answer = HANDLERS[type(look)](session, look)
    return Reply(state=live_state(session), position=(d.exception_index, d.curindex),
                 secrets=session.redactor.learned, names=sorted(session.redactor.names),
                 files=sorted(session.redactor.files), listed=session.listed, **answer)
