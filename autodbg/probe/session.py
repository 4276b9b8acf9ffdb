"""A debugging session on frames that this process must not touch.

`ProbedSession` is what the investigation, the `(autodbg)` prompt and the re-run tracer talk
to. It keeps only where the session stands (which exception, which frame) and runs every look
at the program's objects -- the dossier, each command, the grammar's live names -- in a fresh
probe forked from this process's untouched image (autodbg.probe.fork), so whatever program
code runs there (a property, a `__repr__`, a function the model calls) has no effect here and
cannot outlive its deadline. Where fork is missing, or with AUTODBG_PROBE=0, the same requests
run inline, with the in-process evaluator's stricter rules (autodbg.debugger.safe_eval).

The commands that drive the session or its re-runs (`controls` in the command table) run here.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import asdict
from typing import Callable, Protocol, Sequence

from autodbg.debugger import safe_eval
from autodbg.debugger.commands import COMMANDS, Breakpoint, Command, CommandError, ShownLine, parse, resolve_breakpoint
from autodbg.debugger.core import Inspector, PostMortem
from autodbg.debugger.grammar import LiveState, live_state
from autodbg.debugger.session import CommandResult, Session
from autodbg.fix.keys import KeyChange, key_changes
from autodbg.probe.fork import ProbeOutcome, available, run_in_probe
from autodbg.records import FixTrial, Replay
from autodbg.redact import Redactor

COMMAND_SECONDS = 3.0  # one command; the parent kills a probe past it
EVIDENCE_SECONDS = 6.0  # the whole dossier
REPLAY_SECONDS = 2.0  # the crash line's calls run again, for the dossier: most take milliseconds
TRIAL_SECONDS = 5.0  # the program run again with a fix


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


class ProbedSession:
    """The session's controller: runs control commands itself and everything else in probes."""

    def __init__(self, open_debugger: Callable[[], Inspector], *, probes: bool | None = None,
                 rerun: RerunHandle | None = None, explain: Callable[["ProbedSession"], str] | None = None,
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
        self.last_state: LiveState | None = None
        self.evidence = ""  # how the dossier's probe ended, when not ok

    @classmethod
    def of_crash(cls, exc: BaseException, **options) -> "ProbedSession":
        return cls(lambda: PostMortem(exc), **options)

    @property
    def mode(self) -> str:
        return "fork" if self.probes else "inline"

    # --- what the caller asks --------------------------------------------------------------------

    def execute(self, line: str) -> CommandResult:
        try:
            command, values = parse(line)
        except CommandError as exc:
            return CommandResult(line, False, f"error: {exc}", valid=False)
        if self.rerun is not None and self.rerun.stopped and command.live:
            reply = self.rerun.send(line)  # runs in the re-run's live frames
            return dataclasses.replace(reply, output=self.redactor.scrub(reply.output))
        if command.back_to_crash and self.rerun is not None and self.rerun.stopped:
            self.rerun.stop()
        if not command.resumes and not command.available(self):  # a resume says why itself
            return CommandResult(line, False, f"error: {self._unavailable(command)}")
        if not command.controls:
            return self._look("execute", line=line)
        try:
            return CommandResult(line, True, command.run(self, *values), command.ends_session)
        except CommandError as exc:
            return CommandResult(line, False, f"error: {exc}")

    def dossier(self):
        """The evidence dossier: with the program's reprs; if that probe does not come back, without
        running any program code; if even that fails, from the traceback alone."""
        from autodbg.evidence import traceback_dossier
        from autodbg.records import Dossier

        for plain in (False, True):
            outcome = self._run("dossier", {}, EVIDENCE_SECONDS, plain=plain)
            if outcome.status == "ok":
                self._take(outcome.value)
                dossier = Dossier.from_json(outcome.value["dossier"])
                if not plain:
                    dossier.replays = self._replays()
                return dossier
            self.evidence += ("; " if self.evidence else "") + f"{'plain ' if plain else ''}evidence: {outcome.detail}"
        return traceback_dossier(self.open_debugger(), f"values not shown: {self.evidence}")

    def _replays(self) -> list[Replay]:
        """The crash line's calls replayed (evidence.crash_line_replays), where probes run; none
        when that probe does not come back (the dossier stands without them)."""
        if not self.probes:
            return []
        outcome = self._run("replays", {}, REPLAY_SECONDS, at_crash=True)
        if outcome.status != "ok":
            self.evidence += ("; " if self.evidence else "") + f"replays: {outcome.detail}"
            return []
        self.redactor.absorb(outcome.value["secrets"])
        return [Replay.from_json(replay) for replay in outcome.value["replays"]]

    def state(self) -> LiveState | None:
        """The live state where the session stands (the last one read, if this probe fails)."""
        if self.last_state is None:
            self._look("state")
        return self.last_state

    def try_fix(self, file: str, first: int, last: int, replacement: str, exception_type: str,
                seconds: float = TRIAL_SECONDS) -> FixTrial:
        """Run the crashed program again with the fix, in a probe (autodbg.fix.trial) that may run
        for SECONDS."""
        if not self.probes:
            return FixTrial("not run", "no probe here, and the fix must not run in the crashed process")
        request = (self.open_debugger, file, first, last, replacement, exception_type, self.redact)
        outcome = run_in_probe(lambda: trial(*request), deadline=seconds)
        if outcome.status == "ok":
            return FixTrial(outcome.value["result"], self.redactor.scrub(outcome.value["detail"]),
                            outcome.value["moved_on"])
        if outcome.status == "timed out":
            return FixTrial("hangs", f"still running after {seconds:g} s")
        why = outcome.detail if outcome.status == "refused" else f"{outcome.status}: {outcome.detail}"
        return FixTrial("not run", self.redactor.scrub(why))

    def key_changes(self, places: list[tuple[str, int]]) -> list[KeyChange]:
        """Changes of the key a KeyError says is missing (autodbg.fix.keys), read off the program's
        mappings in a probe; none where no probe runs (reading them may run program code)."""
        if not self.probes:
            return []
        outcome = self._run("keys", {"places": [list(place) for place in places]}, COMMAND_SECONDS, at_crash=True)
        if outcome.status != "ok":
            return []
        return [KeyChange(*change) for change in outcome.value["changes"]]

    def available_commands(self) -> frozenset[str]:
        """What can run now: at a re-run's stop, what runs there (and `done`)."""
        if self.rerun is not None and self.rerun.stopped:
            return frozenset(c.name for c in COMMANDS if c.needs in ("crash", "stop"))
        return frozenset(c.name for c in COMMANDS if c.available(self))

    def resolve_breakpoint(self, location: str, condition: str | None) -> Breakpoint:
        outcome = self._run("breakpoint", {"location": location, "condition": condition}, COMMAND_SECONDS)
        if outcome.status != "ok":
            raise CommandError(outcome.detail)
        if "error" in outcome.value:
            raise CommandError(outcome.value["error"])
        return Breakpoint(**outcome.value["breakpoint"])

    def _unavailable(self, command: Command) -> str:
        if command.needs in ("rerun", "breakpoints") and self.rerun is None:
            return f"`{command.name}` needs `autodbg run` with re-running allowed"
        if command.needs == "probe" and not self.probes:
            return f"`{command.name}` runs the program's code: only in a probe, and probes are off here"
        return f"`{command.name}` is not possible now"

    # --- probes ----------------------------------------------------------------------------------

    def _look(self, kind: str, **args) -> CommandResult:
        outcome = self._run(kind, args, COMMAND_SECONDS)
        line = args.get("line", "")
        if outcome.status != "ok":
            ended = {"died": "probe died"}.get(outcome.status, outcome.status)
            return CommandResult(line, False, f"error: {outcome.detail}", ended=ended)
        self._take(outcome.value)
        result = outcome.value.get("result")
        if result is None:
            return CommandResult(line, True, "")
        result = CommandResult(**{**result, "lines": tuple(ShownLine(*shown) for shown in result["lines"])})
        return dataclasses.replace(result, output=self.redactor.scrub(result.output))

    def scrubbed(self, record):
        """RECORD (a records.Record) without any secret the probes learned: for what leaves autodbg."""
        return type(record).from_json(self.redactor.scrub_tree(record.to_json()))

    def _take(self, value: dict) -> None:
        self.position = tuple(value["position"])
        self.last_state = LiveState.from_json(value["state"])
        self.redactor.absorb(value["secrets"])

    def _run(self, kind: str, args: dict, seconds: float, plain: bool = False, at_crash: bool = False) -> ProbeOutcome:
        request = (self.open_debugger, None if at_crash else self.position, kind, args, self.redact)
        if self.probes:
            return run_in_probe(lambda: serve(*request, mode="plain" if plain else "probe"), deadline=seconds)
        if plain:  # inline, nothing stricter is left to try
            return ProbeOutcome("error", detail="no probe here")
        started = time.monotonic()
        try:
            value = serve(*request, mode="inline")
        except BaseException as exc:  # program code may raise anything, even SystemExit
            if isinstance(exc, KeyboardInterrupt):
                raise
            return ProbeOutcome("error", detail=f"{type(exc).__name__}: {safe_eval.cut(str(exc), 200)}",
                                seconds=time.monotonic() - started)
        return ProbeOutcome("ok", value, seconds=time.monotonic() - started)


def trial(open_debugger: Callable[[], Inspector], file: str, first: int, last: int, replacement: str,
          exception_type: str, redact: Sequence[str]) -> dict:
    """In the probe: the fix tried on the crashed program, as plain data."""
    from autodbg.fix.trial import try_fix

    safe_eval.set_mode("probe")  # values of the fixed call are shown with the probe's reprs
    ran = try_fix(open_debugger(), file, first, last, replacement, exception_type)
    return {"result": ran.result, "detail": Redactor(redact).scrub(ran.detail), "moved_on": ran.moved_on}


def serve(open_debugger: Callable[[], Inspector], position: tuple[int, int] | None, kind: str, args: dict,
          redact: Sequence[str], mode: str) -> dict:
    """One request, where the frames are (in a probe, or inline): plain data back."""
    from autodbg.evidence import build_dossier, crash_line_replays

    safe_eval.set_mode(mode)
    session = Session(open_debugger(), Redactor(redact))
    d = session.debugger
    if position is not None:
        if position[0] >= 0 and position[0] != d.exception_index:
            d.select_exception(position[0])
        d.select_frame(position[1])
    value: dict = {}
    if kind == "dossier":
        value["dossier"] = build_dossier(session).to_json()
    elif kind == "replays":
        value["replays"] = [replay.to_json() for replay in crash_line_replays(session)]
    elif kind == "keys":
        value["changes"] = [[c.file, c.line, c.replacement] for c in key_changes(d, [tuple(p) for p in args["places"]])]
    elif kind == "execute":
        result = session.execute(args["line"])
        refused = result.output.startswith(("error: refused", "error: Refused", "error: not replayable: refused"))
        value["result"] = {**asdict(result), "ended": "ok" if result.ok else "refused" if refused else "error"}
    elif kind == "breakpoint":
        try:
            value["breakpoint"] = dataclasses.asdict(resolve_breakpoint(session, args["location"], args["condition"]))
        except CommandError as exc:
            value["error"] = session.redactor.scrub(str(exc))
    value["state"] = asdict(live_state(session))
    value["position"] = [d.exception_index, d.curindex]
    value["secrets"] = session.redactor.learned
    return value
