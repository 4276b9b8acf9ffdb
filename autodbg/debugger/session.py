"""A debugging session: runs command lines of the command table against an `Inspector`.

Every output is redacted and bounded. Under `autodbg run` the session also holds a handle on
re-runs of the program; while one is stopped at a breakpoint, live commands run there.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol

from autodbg.debugger.commands import (
    Breakpoint, Command, CommandError, Output, ShownLine, bound_output, fold_indexes, fold_summary, parse,
)
from autodbg.debugger.core import FrameEntry, Inspector, display_path
from autodbg.debugger.safe_eval import REDACTED, Evaluator, Redactor, Refused, TimeLimit, cut, is_secret_name, safe_repr

if TYPE_CHECKING:
    from autodbg.debugger.grammar import LiveState


@dataclass
class CommandResult:
    line: str
    ok: bool  # ran without error
    output: str
    ends_session: bool = False
    valid: bool = True  # a command of the language (False: the parser refused it)
    lines: tuple[ShownLine, ...] = ()  # source lines the output showed


class RerunHandle(Protocol):
    """Re-runs of the program in another process (autodbg.program.rerun.Rerun)."""
    breakpoints: list[Breakpoint]
    stopped: bool  # a re-run is stopped at a breakpoint
    where: str  # which stop: commands' outputs differ from one stop to the next
    runs: int

    def add_breakpoint(self, breakpoint: Breakpoint) -> str: ...
    def start(self) -> str: ...
    def send(self, line: str) -> CommandResult: ...  # runs LINE in the stopped re-run
    def state(self) -> "LiveState": ...  # the stopped re-run's live state
    def stop(self) -> None: ...


@dataclass
class Session:
    """Runs command lines against a post-mortem debugger; every output is redacted and bounded."""

    debugger: Inspector
    redactor: Redactor = field(default_factory=Redactor)
    explain: Callable[["Session"], str] | None = None  # runs `why`: set by `autodbg run --interactive`
    rerun: RerunHandle | None = None  # set by `autodbg run` (re-running allowed)
    live: bool = False  # this session is itself a re-run stopped at a breakpoint

    def __post_init__(self) -> None:
        for frame in self.debugger.all_frames():
            self.redactor.learn_frame(frame)

    def execute(self, line: str) -> CommandResult:
        try:
            command, values = parse(line)
        except CommandError as exc:
            return CommandResult(line, False, f"error: {exc}", valid=False)
        if self.rerun is not None and self.rerun.stopped and command.live:
            reply = self.rerun.send(line)  # runs in the re-run's live frames
            return dataclasses.replace(reply, output=bound_output(self.redactor.scrub(reply.output)))
        try:
            if command.back_to_crash and self.rerun is not None and self.rerun.stopped:
                self.rerun.stop()
            if not command.resumes and not command.available(self):  # a resume says why itself
                raise CommandError(self._unavailable(command))
            output = command.run(self, *values)
        except CommandError as exc:
            return CommandResult(line, False, f"error: {self.redactor.scrub(str(exc))}")
        if isinstance(output, Output):
            return CommandResult(line, True, bound_output(self.redactor.scrub(output.text)), command.ends_session,
                                 lines=output.lines)
        return CommandResult(line, True, bound_output(self.redactor.scrub(output)), command.ends_session)

    def _unavailable(self, command: Command) -> str:
        if command.needs in ("rerun", "breakpoints") and self.rerun is None:
            return f"`{command.name}` needs `autodbg run` with re-running allowed"
        return f"`{command.name}` is not possible now"

    # --- helpers used by the executors ----------------------------------------------------------

    def frame_locals(self, entry: FrameEntry | None = None) -> dict:
        entry = entry or self.debugger.current
        try:
            return dict(entry.frame.f_locals)
        except Exception:
            return {}

    def visible_locals(self, entry: FrameEntry | None = None) -> dict:
        """Locals worth showing: for a module frame, its data, not its imports and definitions."""
        values = self.frame_locals(entry)
        return {k: v for k, v in values.items()
                if k.isidentifier() and not k.startswith("__") and not _is_definition(v)}

    def evaluate(self, expr: str, entry: FrameEntry | None = None):
        entry = entry or self.debugger.current
        evaluator = Evaluator(self.frame_locals(entry), entry.frame.f_globals)
        try:
            return evaluator.evaluate(expr)
        except Refused as exc:
            raise CommandError(f"refused: {exc}") from None
        except TimeLimit:
            raise CommandError("evaluation took too long") from None
        except Exception as exc:
            raise CommandError(f"{type(exc).__name__}: {cut(str(exc), 200)}") from None

    def show(self, label: str, value) -> str:
        """A value's repr, redacted when the name it was reached by looks secret."""
        words = re.findall(r"[A-Za-z_]\w*|'[^']*'|\"[^\"]*\"", label)
        if any(is_secret_name(w.strip("'\"")) for w in words):
            return REDACTED
        return safe_repr(value)

    def format_names(self, values: dict) -> str:
        if not values:
            return "(none)"
        return "\n".join(f"{name} = {self.show(name, value)}" for name, value in values.items())

    def move(self, delta: int) -> str:
        target = self.debugger.curindex + delta
        if not 0 <= target < len(self.debugger.stack):
            at_edge = self.debugger.curindex == (0 if delta < 0 else len(self.debugger.stack) - 1)
            if at_edge:
                raise CommandError(f"already at the {'outermost' if delta < 0 else 'innermost'} frame")
            raise CommandError(f"cannot move {abs(delta)} frames: frames are 0..{len(self.debugger.stack) - 1}")
        self.debugger.select_frame(target)
        return self.describe_frame(self.debugger.current)

    def describe_frame(self, entry: FrameEntry) -> str:
        lines = self.debugger.source_lines(entry)
        code = lines[entry.lineno - 1].strip() if 0 < entry.lineno <= len(lines) else ""
        kind = "" if entry.is_user else "  [library]"
        return f"frame {entry.index}: {entry.location}{kind}\n  {entry.lineno} -> {code}"

    def format_stack(self) -> str:
        stack, current = self.debugger.stack, self.debugger.curindex
        shown = fold_indexes(len(stack), current)
        rows, pending_library = [], []

        def flush_library():
            if pending_library:
                first, last = pending_library[0], pending_library[-1]
                span = f"{first.index}" if first is last else f"{first.index}-{last.index}"
                names = ", ".join(sorted({display_path(e.filename).rsplit("/", 1)[-1] for e in pending_library}))
                rows.append(f"  {span} [{len(pending_library)} library frame(s): {cut(names, 120)}]")
                pending_library.clear()

        previous = -1
        for i in shown:
            if i != previous + 1:
                flush_library()
                rows.append(f"  ... {i - previous - 1} frames folded ({fold_summary(stack[previous + 1:i])}) ...")
            previous = i
            entry = stack[i]
            if not entry.is_user and i != current:
                pending_library.append(entry)
                continue
            flush_library()
            mark = ">" if i == current else " "
            lines = self.debugger.source_lines(entry)
            code = lines[entry.lineno - 1].strip() if 0 < entry.lineno <= len(lines) else ""
            rows.append(f"{mark} {i} {entry.location}" + ("" if entry.is_user else "  [library]"))
            if code:
                rows.append(f"      {cut(code, 160)}")
        flush_library()
        return "\n".join(rows)


def _is_definition(value) -> bool:
    return inspect.ismodule(value) or inspect.isclass(value) or inspect.isfunction(value) or inspect.isbuiltin(value)
