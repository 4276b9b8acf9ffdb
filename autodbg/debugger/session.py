"""A debugging session where the program's frames are: runs the command table's commands that
look at them against an `Inspector`, with redacted, bounded output."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

from autodbg.debugger.commands import parse
from autodbg.debugger.output import CommandError, Output, ShownLine, bound_output, fold_indexes, fold_summary
from autodbg.frames.core import FrameEntry, Inspector, display_path
from autodbg.frames.safe_eval import Evaluator, Refused, TimeLimit, cut, safe_pretty, safe_repr
from autodbg.probe.fork import refusal_in_chain
from autodbg.records import Ended, Record
from autodbg.redact import Redactor, redacted


@dataclass(kw_only=True)
class CommandResult(Record):
    line: str
    ok: bool  # ran without error
    output: str
    ends_session: bool = False
    valid: bool = True  # a command of the language (False: the parser refused it)
    lines: tuple[ShownLine, ...] = ()  # source lines the output showed
    ended: Ended = Ended.OK  # how the look at the program ended


@dataclass
class Session:
    """Runs the commands that look at the program against an `Inspector`, where its frames are
    (a probe, or this process); every output is redacted and bounded. The commands that drive
    the session or its re-runs run in its controller (autodbg.crash)."""

    debugger: Inspector
    redactor: Redactor = field(default_factory=Redactor)
    # (exception, frame, last line) of the last listing, where pdb's bare `l` goes on from
    listed: tuple[int, int, int] | None = None

    def __post_init__(self) -> None:
        for frame in self.debugger.all_frames():
            self.redactor.learn_frame(frame)
        for link in self.debugger.chain:
            self.redactor.learn("exception", link.exc)  # a token in a message, or an attribute
        self.redactor.learn_process()

    def execute(self, line: str) -> CommandResult:
        try:
            command, values = parse(line)
            if command.controls:
                raise CommandError(f"`{command.name}` is not possible here")
            output = command.run(self, *values)
        except CommandError as exc:
            return CommandResult(line=line, ok=False, output=f"error: {self.redactor.scrub(str(exc))}", ended=Ended.REFUSED if exc.refused else Ended.ERROR)
        if isinstance(output, Output):
            return CommandResult(line=line, ok=True, output=bound_output(self.redactor.scrub(output.text)), ends_session=command.ends_session, lines=output.lines)
        return CommandResult(line=line, ok=True, output=bound_output(self.redactor.scrub(output)), ends_session=command.ends_session)

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
        shell = "_ih" in values and "get_ipython" in values  # IPython's own names in a cell's namespace
        return {k: v for k, v in values.items()
                if k.isidentifier() and not k.startswith("__") and not _is_definition(v)
                and not (shell and (k in _IPYTHON_NAMES or _IPYTHON_HISTORY.match(k)))}

    def evaluate(self, expr: str, entry: FrameEntry | None = None):
        entry = entry or self.debugger.current
        evaluator = Evaluator(self.frame_locals(entry), entry.frame.f_globals)
        try:
            return evaluator.evaluate(expr)
        except Refused as exc:
            raise CommandError(f"refused: {exc}", refused=True) from None
        except TimeLimit:
            raise CommandError("evaluation took too long") from None
        except Exception as exc:  # the program's code failed, or the sandbox refused it what it did
            raise CommandError(f"{type(exc).__name__}: {cut(str(exc), 200)}",
                               refused=refusal_in_chain(exc) is not None) from None

    def show(self, label: str, value, pretty: bool = False) -> str:
        """A value's repr (PRETTY: laid out as pprint does), redacted when the name it was reached
        by looks secret."""
        words = re.findall(r"[A-Za-z_]\w*|'[^']*'|\"[^\"]*\"", label)
        if any(self.redactor.is_secret(w.strip("'\"")) for w in words):
            return redacted(value)
        return safe_pretty(value) if pretty else safe_repr(value)

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


_IPYTHON_NAMES = frozenset({"In", "Out", "get_ipython", "exit", "quit", "_ih", "_oh", "_dh"})
_IPYTHON_HISTORY = re.compile(r"_(i{0,3}|i?\d+|_+)$")  # _, __, _i, _ii, _i3, _3


def _is_definition(value) -> bool:
    return inspect.ismodule(value) or inspect.isclass(value) or inspect.isfunction(value) or inspect.isbuiltin(value)
