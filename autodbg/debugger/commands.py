"""The command language: one table declares every command (name, arguments, help, executor).

The parser, the help text and the model's grammar (`autodbg.llm.grammar`) are all generated from
`COMMANDS`, so the three can never disagree. Every output is plain text and bounded in size.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
from dataclasses import dataclass, field
from typing import Callable

from autodbg.debugger.core import FrameEntry, Inspector, display_path, is_user_file, source_lines
from autodbg.debugger.safe_eval import (
    Evaluator, Redactor, Refused, TimeLimit, can_run_user_code, cut, redacted,
    check_expression, safe_repr, time_limit,
)

MAX_LINES = 40
MAX_CHARS = 3000
LIST_CONTEXT = 5  # lines each side of the current line for a bare `list`
FOLD_HEAD, FOLD_TAIL = 4, 12  # frames kept at each end of a tall stack: `where` fits MAX_LINES


class CommandError(Exception):
    """A command line that cannot run; the message is one line."""


# --- arguments -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Arg:
    """One argument of a command. KIND decides how it parses and what the grammar allows:
    count (1..), frame, exception, line (numbers valid right now), expr (rest of the line),
    name (a dotted name)."""

    name: str
    kind: str
    optional: bool = False

    @property
    def usage(self) -> str:
        return f"[{self.name}]" if self.optional else self.name


_NAME_RE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def _parse_arg(arg: Arg, text: str):
    if arg.kind in ("count", "frame", "exception", "line"):
        if not re.fullmatch(r"-?\d+", text):
            raise CommandError(f"{arg.name} must be a number, not {text!r}")
        value = int(text)
        low = 1 if arg.kind in ("count", "line") else 0
        if value < low:
            raise CommandError(f"{arg.name} must be at least {low}")
        return value
    if arg.kind == "name":
        if not _NAME_RE.match(text):
            raise CommandError(f"{arg.name} must be a name like `parse` or `Config.load`, not {text!r}")
        return text
    return text  # expr: checked by the evaluator


# --- the table -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[Arg, ...]
    help: str
    run: Callable[..., str]
    for_model: bool = True  # offered to the model by the grammar
    ends_session: bool = False
    available: Callable[["Session"], bool] = lambda s: True  # can it run in this session now?

    @property
    def usage(self) -> str:
        return " ".join([self.name, *(a.usage for a in self.args)])


def _where(s: "Session") -> str:
    return s.format_stack()


def _up(s: "Session", count: int = 1) -> str:
    return s.move(-count)


def _down(s: "Session", count: int = 1) -> str:
    return s.move(count)


def _frame(s: "Session", index: int) -> str:
    try:
        s.debugger.select_frame(index)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    return s.describe_frame(s.debugger.current)


def _locals(s: "Session") -> str:
    return s.format_names(s.visible_locals())


def _args(s: "Session") -> str:
    code = s.debugger.current.frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    names = code.co_varnames[:count]
    values = s.frame_locals()
    return s.format_names({n: values[n] for n in names if n in values}) if names else "(no arguments)"


def _print(s: "Session", expr: str) -> str:
    value = s.evaluate(expr)
    return f"{expr} = {s.show(expr, value)}"


def _type(s: "Session", expr: str) -> str:
    kind = type(s.evaluate(expr))
    module = "" if kind.__module__ == "builtins" else kind.__module__ + "."
    return f"type({expr}) = {module}{kind.__qualname__}"


def _dir(s: "Session", expr: str) -> str:
    value = s.evaluate(expr)
    if not can_run_user_code() and type(value).__dir__ is not object.__dir__:
        raise CommandError("dir() of this object could run its code; not available here")
    try:
        with time_limit(1.0):
            names = [n for n in dir(value) if not n.startswith("_")]
    except TimeLimit:
        raise CommandError("dir() took too long") from None
    except Exception as exc:
        raise CommandError(f"dir() failed: {type(exc).__name__}: {cut(str(exc), 100)}") from None
    return f"dir({expr}): " + (", ".join(names) if names else "(no public attributes)")


def _list(s: "Session", first: int | None = None, last: int | None = None) -> str:
    entry = s.debugger.current
    lines = s.debugger.source_lines(entry)
    if not lines:
        raise CommandError(f"no source for {display_path(entry.filename)}")
    if first is None:
        first, last = entry.lineno - LIST_CONTEXT, entry.lineno + LIST_CONTEXT
    elif last is None:
        last = first + 2 * LIST_CONTEXT
    if first > len(lines):
        raise CommandError(f"{display_path(entry.filename)} has only {len(lines)} lines")
    if last < first:  # as in pdb: a LAST smaller than FIRST is a count
        last = first + last - 1
    first, last = max(first, 1), min(last, len(lines), first + MAX_LINES - 1)
    return format_source(lines, first, last, entry.lineno)


def _source(s: "Session", name: str) -> str:
    target = s.evaluate(name)
    target = getattr(target, "__func__", target)
    if not can_run_user_code():
        raise CommandError("source is not available here")
    try:
        with time_limit(1.0):
            lines, start = inspect.getsourcelines(target)
            filename = inspect.getsourcefile(target) or "?"
    except TimeLimit:
        raise CommandError("reading the source took too long") from None
    except (TypeError, OSError) as exc:
        raise CommandError(f"no source for {name}: {cut(str(exc), 100)}") from None
    body = [line.rstrip("\r\n") for line in lines]
    shown = min(len(body), MAX_LINES - 2)
    text = f"{display_path(filename)}:{start}\n" + format_source(body, 1, shown, None, offset=start - 1)
    return text + (f"\n...[cut: {len(body) - shown} more lines]" if shown < len(body) else "")


def _exceptions(s: "Session") -> str:
    if not s.debugger.chain:
        return "(no exception: the re-run is stopped at a breakpoint)"
    rows = []
    for i, chained in enumerate(s.debugger.chain):
        mark = ">" if i == s.debugger.exception_index else " "
        rows.append(f"{mark} {i} {cut(chained.title, 200)}  ({chained.relation})")
    return "\n".join(rows)


def _exception(s: "Session", index: int) -> str:
    if not s.debugger.chain:
        raise CommandError("no exception here: the re-run is stopped at a breakpoint")
    if index >= len(s.debugger.chain):
        raise CommandError(f"no exception {index}: they are 0..{len(s.debugger.chain) - 1}")
    try:
        s.debugger.select_exception(index)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    chained = s.debugger.chain[index]
    return f"exception {index}: {cut(chained.title, 200)}\n" + s.describe_frame(s.debugger.current)


def _help(s: "Session") -> str:
    return help_text()


def _why(s: "Session") -> str:
    if s.explain is None:
        raise CommandError("why is only available under `autodbg run --interactive`")
    return s.explain(s)


def _break(s: "Session", spec: str) -> str:
    location, _, condition = spec.partition(" if ")
    breakpoint = resolve_breakpoint(s, location.strip(), condition.strip() or None)
    return s.rerun.add_breakpoint(breakpoint)


def _rerun(s: "Session") -> str:
    return s.rerun.start()


def _resume(s: "Session") -> str:
    raise CommandError("no re-run is stopped at a breakpoint: set one with `break`, then `rerun`")


def _quit(s: "Session") -> str:
    return ""


def _done(s: "Session") -> str:
    return ""


COMMANDS: tuple[Command, ...] = (
    # The model is not offered where/up/down: its evidence already is the stack, and `frame N`
    # goes straight where up/down would take it turn by turn.
    Command("where", (), "show the stack; > marks the current frame", _where, for_model=False),
    Command("up", (Arg("N", "count", optional=True),), "move N frames toward the caller (default 1)", _up,
            for_model=False),
    Command("down", (Arg("N", "count", optional=True),), "move N frames toward the crash (default 1)", _down,
            for_model=False),
    Command("frame", (Arg("N", "frame"),), "select frame N (numbers as in `where`)", _frame),
    Command("locals", (), "show the current frame's local variables", _locals),
    Command("args", (), "show the current function's arguments", _args),
    Command("print", (Arg("EXPR", "expr"),), "show the value of a read-only expression", _print),
    Command("type", (Arg("EXPR", "expr"),), "show the type of an expression", _type),
    Command("dir", (Arg("EXPR", "expr"),), "show the public attributes of an expression's value", _dir),
    Command("list", (Arg("FIRST", "line", optional=True), Arg("LAST", "line", optional=True)),
            "show source lines of the current file (around the current line by default)", _list),
    Command("source", (Arg("NAME", "name"),), "show the source of a function or class", _source),
    Command("exceptions", (), "list the chained exceptions; > marks the current one", _exceptions),
    Command("exception", (Arg("N", "exception"),), "switch to exception N of the chain", _exception),
    Command("break", (Arg("LOCATION [if COND]", "breakpoint"),),
            "stop a re-run at FILE:LINE or at the start of FUNCTION (when COND is true)", _break,
            available=lambda s: s.rerun is not None),
    Command("rerun", (), "run the program again from the start, stopping at the breakpoints", _rerun,
            available=lambda s: s.rerun is not None and bool(s.rerun.breakpoints)),
    Command("continue", (), "let the re-run go on to the next breakpoint", _resume, available=lambda s: s.live),
    Command("next", (), "run the current line of the re-run, stopping at the next line here", _resume,
            available=lambda s: s.live),
    Command("step", (), "run the current line of the re-run, stopping in any function it calls", _resume,
            available=lambda s: s.live),
    Command("done", (), "finish the investigation and give the diagnosis", _done, ends_session=True),
    Command("why", (), "hand the session to the model from here and print its diagnosis", _why, for_model=False),
    Command("help", (), "show this help", _help, for_model=False),
    Command("quit", (), "leave the debugger", _quit, for_model=False, ends_session=True),
)
COMMANDS_BY_NAME = {c.name: c for c in COMMANDS}
# While a re-run is stopped, these run in its live frames instead of the crash's.
LIVE_COMMANDS = {"where", "up", "down", "frame", "locals", "args", "print", "type", "dir", "list", "source",
                 "continue", "next", "step"}


def help_text(commands=COMMANDS) -> str:
    width = max(len(c.usage) for c in commands)
    return "\n".join(f"{c.usage.ljust(width)}  {c.help}" for c in commands)


def parse(line: str) -> tuple[Command, list]:
    """Split a command line into its command and parsed arguments, or raise CommandError."""
    line = line.strip()
    if not line:
        raise CommandError("empty command; try `help`")
    name, _, rest = line.partition(" ")
    command = COMMANDS_BY_NAME.get(name)
    if command is None:
        raise CommandError(f"unknown command {name!r}; try `help`")
    rest = rest.strip()
    if command.args and command.args[0].kind in ("expr", "breakpoint"):
        if not rest:
            raise CommandError(f"usage: {command.usage}")
        return command, [rest]
    words = rest.split()
    required = sum(not a.optional for a in command.args)
    if not required <= len(words) <= len(command.args):
        raise CommandError(f"usage: {command.usage}")
    return command, [_parse_arg(a, w) for a, w in zip(command.args, words)]


# --- the session -----------------------------------------------------------------------------

@dataclass
class CommandResult:
    line: str
    ok: bool  # ran without error
    output: str
    ends_session: bool = False
    valid: bool = True  # a command of the language (False: the parser refused it)


@dataclass
class Session:
    """Runs command lines against a post-mortem debugger; every output is redacted and bounded."""

    debugger: Inspector
    redactor: Redactor = field(default_factory=Redactor)
    explain: Callable[["Session"], str] | None = None  # runs `why`: set by `autodbg run --interactive`
    rerun: "object | None" = None  # an autodbg.rerun.Rerun: set by `autodbg run` (re-running allowed)
    live: bool = False  # this session is itself a re-run stopped at a breakpoint

    def __post_init__(self) -> None:
        for frame in self.debugger.all_frames():
            self.redactor.learn_frame(frame)
        for link in self.debugger.chain:
            self.redactor.learn("exception", link.exc)  # a token in a message, or an attribute
        self.redactor.learn_process()

    def execute(self, line: str) -> CommandResult:
        try:
            command, values = parse(line)
        except CommandError as exc:
            return CommandResult(line, False, f"error: {exc}", valid=False)
        if self.rerun is not None and self.rerun.stopped and command.name in LIVE_COMMANDS:
            ok, output = self.rerun.send(line)  # runs in the re-run's live frames
            return CommandResult(line, ok, bound_output(self.redactor.scrub(output)))
        try:
            if command.name in ("exceptions", "exception") and self.rerun is not None and self.rerun.stopped:
                self.rerun.stop()  # back to the crash's own post-mortem
            if not command.available(self) and command.run is not _resume:
                raise CommandError(f"`{command.name}` needs `autodbg run` with re-running allowed"
                                   if command.name in ("break", "rerun") and self.rerun is None
                                   else f"`{command.name}` is not possible now")
            output = command.run(self, *values)
        except CommandError as exc:
            return CommandResult(line, False, f"error: {self.redactor.scrub(str(exc))}")
        return CommandResult(line, True, bound_output(self.redactor.scrub(output)), command.ends_session)

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
        if any(self.redactor.is_secret(w.strip("'\"")) for w in words):
            return redacted(value)
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


@dataclass(frozen=True)
class Breakpoint:
    file: str  # absolute path
    line: int  # a line that starts a statement; for a function, its `def` line
    function: str | None = None  # stop at the function's first line run, as bdb's funcname
    condition: str | None = None  # a safe expression, checked in the stopped frame

    def __str__(self) -> str:
        where = f"{self.function} ({display_path(self.file)}:{self.line})" if self.function \
            else f"{display_path(self.file)}:{self.line}"
        return where + (f" if {self.condition}" if self.condition else "")


def resolve_breakpoint(s: "Session", location: str, condition: str | None) -> Breakpoint:
    """FILE:LINE (a line that starts a statement) or a function name seen from the current frame."""
    if condition is not None:
        try:
            check_expression(condition)
        except Refused as exc:
            raise CommandError(f"condition: {exc}") from None
    file_part, colon, line_part = location.rpartition(":")
    if colon and line_part.isdigit():
        path = _find_file(s, file_part)
        line = int(line_part)
        if line not in statement_lines(path):
            raise CommandError(f"{display_path(path)}:{line} is not a line of code")
        return Breakpoint(path, line, None, condition)
    if not _NAME_RE.match(location):
        raise CommandError(f"LOCATION must be FILE:LINE or a function name, not {location!r}")
    target = getattr(s.evaluate(location), "__func__", None) or s.evaluate(location)
    code = getattr(target, "__code__", None)
    if code is None or not is_user_file(code.co_filename):
        raise CommandError(f"{location} is not a function of your program")
    return Breakpoint(code.co_filename, code.co_firstlineno, code.co_name, condition)


def _find_file(s: "Session", name: str) -> str:
    for frame in s.debugger.all_frames():
        path = frame.f_code.co_filename
        if name in (path, display_path(path)) or path.endswith("/" + name):
            return path
    if os.path.isfile(name):
        return os.path.abspath(name)
    raise CommandError(f"no file {name!r} in the program")


def statement_lines(path: str) -> set[int]:
    """Lines where a statement starts: where a line breakpoint can stop."""
    try:
        tree = ast.parse("\n".join(source_lines(path)))
    except (SyntaxError, ValueError):
        return set()
    return {node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt)
            and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def fold_indexes(total: int, keep: int) -> list[int]:
    """Indexes of a stack to show: all of a short stack, the ends of a tall one (and KEEP)."""
    if total <= FOLD_HEAD + FOLD_TAIL + 5:
        return list(range(total))
    shown = set(range(FOLD_HEAD)) | set(range(total - FOLD_TAIL, total)) | {keep}
    return sorted(shown)


def fold_summary(entries: list[FrameEntry]) -> str:
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.function] = counts.get(e.function, 0) + 1
    top = sorted(counts.items(), key=lambda kv: -kv[1])[:3]
    return ", ".join(f"{name} x{n}" for name, n in top)


def _is_definition(value) -> bool:
    return inspect.ismodule(value) or inspect.isclass(value) or inspect.isfunction(value) or inspect.isbuiltin(value)


def format_source(lines: list[str], first: int, last: int, current: int | None, offset: int = 0) -> str:
    """Numbered source lines FIRST..LAST (1-based in LINES), `->` on CURRENT, numbers shifted by OFFSET."""
    width = len(str(last + offset))
    out = []
    for n in range(first, last + 1):
        mark = "->" if n + offset == current else "  "
        out.append(f"{str(n + offset).rjust(width)} {mark} {cut(lines[n - 1], 200)}")
    return "\n".join(out)


def bound_output(text: str) -> str:
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        text = "\n".join(lines[:MAX_LINES]) + f"\n...[cut: {len(lines) - MAX_LINES} more lines]"
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n...[cut: {len(text) - MAX_CHARS} more characters]"
    return text
