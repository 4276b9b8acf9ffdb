"""The command language: one table declares every command (name, arguments, help, executor, and
how it behaves: when it can run, where, how often the model may use it).

The parser, the help text and the model's grammar (`autodbg.debugger.grammar`) are all generated
from `COMMANDS`, so they can never disagree; adding a command touches this table only. A command's
`aliases` are pdb's names for it (`p`, `bt`, `u`...), for a person's habits: the parser and the help
know them, the model's grammar offers only the canonical names. Every output is plain text and
bounded in size.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import re
import sys
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from autodbg.analysis import source
from autodbg.analysis.source import statement_text
from autodbg.analysis.replay import ValueHistory, code_of, history_text, replay_call, replayable_calls
from autodbg.frames.core import FrameEntry, display_path, is_user_file, source_lines
from autodbg.debugger.output import (
    MAX_LINES, CommandError, Output, ShownLine, format_source,
)
from autodbg.frames.safe_eval import (
    Refused, TimeLimit, can_run_user_code, check_expression, cut, in_probe, time_limit,
)
from autodbg.probe import sandbox
from autodbg.probe.fork import refusal_in_chain
from autodbg.records import Record

if TYPE_CHECKING:
    from autodbg.debugger.session import Session

LIST_CONTEXT = 5  # lines each side of the current line for a bare `list`
HERE = "."  # `list .`: around the current line, as in pdb
TRACE_LINES = 500  # lines a replay may run before it is stopped (the probe's deadline bounds its time)
TRACE_CHARS = 1200  # of a replay's history: its start and end are kept, the middle steps left out
MAX_TRACE_CALLS = 10  # calls of one line `trace` offers


# --- arguments -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Arg:
    """One argument of a command. KIND decides how it parses and what the grammar allows:
    count (1..), frame, exception, line (numbers valid right now), expr (rest of the line),
    name (a dotted name), call (a replayable call, as `replayable_calls` writes it), command
    (a command's name, for a person's `help`), change (`FILE:LINE CODE`: a line and its new code)."""

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
    if arg.kind == "call":
        return _parse_call(arg, text)
    if arg.kind == "change":
        return _parse_change(arg, text)
    if arg.kind == "command":
        if text not in COMMANDS_BY_NAME:
            raise CommandError(f"no command {text!r}; `help` lists them")
        return text
    return text  # expr: checked by the evaluator


def _parse_call(arg: Arg, text: str) -> str:
    """TEXT as replayable_calls() writes it, when it is one such call (`parse( s )` is `parse(s)`)."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.Call) and ast.unparse(node) in replayable_calls(text):
        return ast.unparse(node)
    raise CommandError(f"{arg.name} must be a call of the current line whose arguments are names and literals, "
                       f"like `parse(s)`, not {cut(text, 80)!r}")


_CHANGE_RE = re.compile(r"^(\S+:\d+)\s+(\S.*)$")


def _parse_change(arg: Arg, text: str) -> tuple[str, str]:
    """`FILE:LINE CODE` as (FILE:LINE, CODE)."""
    match = _CHANGE_RE.match(text)
    if match is None:
        raise CommandError(f"{arg.name} must be a line and its new code, like `app.py:12 return total / count`, "
                           f"not {cut(text, 80)!r}")
    return match.group(1), match.group(2).strip()


# --- the table -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Alias:
    """pdb's name for a command. Where pdb's command behaves otherwise, RUN is pdb's behaviour and
    HELP says what it does; the other attributes (when and where it runs) are the command's."""
    name: str
    run: Callable[..., "str | Output"] | None = None
    help: str | None = None


@dataclass(frozen=True)
class Command:
    """One command, and everything that depends on which command it is."""
    name: str
    args: tuple[Arg, ...]
    help: str
    run: Callable[..., "str | Output"]
    for_model: bool = True  # offered to the model by the grammar
    ends_session: bool = False
    needs: str = "crash"  # when it can run: crash (always), rerun (autodbg run, re-running allowed),
    #                       breakpoints (and some set), stop (a re-run stopped at a breakpoint),
    #                       probe (it runs the program's code: only in probes, on the crash)
    live: bool = False  # while a re-run is stopped, runs in its live frames instead of the crash's
    resumes: bool = False  # lets a stopped re-run go on
    back_to_crash: bool = False  # ends a re-run's stop first: it is about the crash's exceptions
    needs_chain: bool = False  # offered to the model only when the crash has chained exceptions
    limit: int | None = None  # times the model may use it in one investigation (re-runs cost time)
    controls: bool = False  # drives the session or its re-runs: runs in the process that holds them,
    #                         never where the program's frames are (a probe, a re-run child)
    aliases: tuple[Alias, ...] = ()  # a person's other names for it; never offered to the model

    @property
    def usage(self) -> str:
        return " ".join([self.name, *(a.usage for a in self.args)])

    def available(self, s) -> bool:
        """Whether it can run now in S, a session controller (autodbg.crash)."""
        if self.needs == "rerun":
            return s.rerun is not None
        if self.needs == "breakpoints":
            return s.rerun is not None and bool(s.rerun.breakpoints)
        if self.needs == "stop":
            return s.live
        if self.needs == "probe":
            return s.probes and not s.live
        return True


def _where(s: "Session") -> str:
    return s.format_stack()


def _up(s: "Session", count: int = 1) -> str:
    return s.move(-count)


def _down(s: "Session", count: int = 1) -> str:
    return s.move(count)


def _pdb_up(s: "Session", count: int = 1) -> str:
    """pdb's `u N`: to the outermost frame when there are fewer than N above."""
    return s.move(-max(1, min(count, s.debugger.curindex)))


def _pdb_down(s: "Session", count: int = 1) -> str:
    """pdb's `d N`: to the innermost frame when there are fewer than N below."""
    return s.move(max(1, min(count, len(s.debugger.stack) - 1 - s.debugger.curindex)))


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


def _pdb_print(s: "Session", expr: str) -> str:
    return s.show(expr, s.evaluate(expr))


def _pdb_pretty_print(s: "Session", expr: str) -> str:
    return s.show(expr, s.evaluate(expr), pretty=True)


def _type(s: "Session", expr: str) -> str:
    return f"type({expr}) = {_type_name(type(s.evaluate(expr)))}"


def _type_name(kind: type) -> str:
    module = "" if kind.__module__ == "builtins" else kind.__module__ + "."
    return module + kind.__qualname__


def _whatis(s: "Session", expr: str) -> str:
    """pdb's `whatis`: a function, method or class by its name, anything else by its type."""
    value = s.evaluate(expr)
    function = value.__func__ if isinstance(value, types.MethodType) else value
    if inspect.isfunction(function):
        return f"{'Function' if function is value else 'Method'} {function.__code__.co_name}"
    if type(value) is type:
        return f"Class {value.__module__}.{value.__qualname__}"
    return f"<class '{_type_name(type(value))}'>"


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


def _list(s: "Session", first: int | str | None = None, last: int | None = None) -> Output:
    entry = s.debugger.current
    if first in (None, HERE):
        first, last = entry.lineno - LIST_CONTEXT, entry.lineno + LIST_CONTEXT
    elif last is None:
        last = first + 2 * LIST_CONTEXT
    elif last < first:  # as in pdb: a LAST smaller than FIRST is a count
        last = first + last - 1
    return _source_window(s, first, last)


def _pdb_list(s: "Session", first: int | str | None = None, last: int | None = None) -> str | Output:
    """pdb's `l`: a bare `l` goes on after the last listing of this frame; FIRST alone is the middle
    of the window; a LAST smaller than FIRST counts the lines after FIRST."""
    d = s.debugger
    if first is None and s.listed is not None and s.listed[:2] == (d.exception_index, d.curindex):
        first = s.listed[2] + 1
    elif first in (None, HERE):
        first = d.current.lineno - LIST_CONTEXT
    elif last is None:
        first -= LIST_CONTEXT
    first = max(first, 1)
    if last is None:
        last = first + 2 * LIST_CONTEXT
    elif last < first:
        last = first + last
    if first > len(d.source_lines()) > 0:
        return "[EOF]"
    return _source_window(s, first, last)


def _longlist(s: "Session") -> Output:
    """The current function's source (a module's: the whole file), at most MAX_LINES around the
    current line."""
    entry = s.debugger.current
    lines = s.debugger.source_lines(entry)
    first, last = source.function_span("\n".join(lines), entry.lineno) or (1, len(lines))
    if last - first >= MAX_LINES:
        first = max(first, min(entry.lineno - MAX_LINES // 2, last - MAX_LINES + 1))
    return _source_window(s, first, last)


def _source_window(s: "Session", first: int, last: int) -> Output:
    """Lines FIRST..LAST of the current frame's source (at most MAX_LINES), `->` at its line."""
    d = s.debugger
    entry = d.current
    lines = d.source_lines(entry)
    if not lines:
        raise CommandError(f"no source for {display_path(entry.filename)}")
    if first > len(lines):
        raise CommandError(f"{display_path(entry.filename)} has only {len(lines)} lines")
    first, last = max(first, 1), min(last, len(lines), first + MAX_LINES - 1)
    s.listed = (d.exception_index, d.curindex, last)
    shown = tuple(ShownLine(entry.filename, n, lines[n - 1]) for n in range(first, last + 1))
    return Output(format_source(lines, first, last, entry.lineno), shown)


def _source(s: "Session", name: str) -> Output:
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
    text += f"\n...[cut: {len(body) - shown} more lines]" if shown < len(body) else ""
    return Output(text, tuple(ShownLine(os.path.abspath(filename), start + i, body[i]) for i in range(shown)))


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


def _trace(s: "Session", call: str) -> str:
    return history_text(replay_here(s, call), TRACE_CHARS)


def replay_here(s: "Session", call: str) -> ValueHistory:
    """CALL, one of `replayable_here`'s, run again under the line tracer; CommandError when it
    cannot be, or when it did what a replay may not (the sandbox refused it)."""
    if not in_probe():  # the program's code would run in the crashed process itself
        raise CommandError("trace runs the program's code: only in a probe, and there is none here")
    calls = replayable_here(s)
    if call not in calls:
        offered = ", ".join(calls) if calls else "none here"
        raise CommandError(f"{call} is not a call to replay from this frame; these are: {cut(offered, 200)}")
    entry = calls[call]
    with sandbox.refusals_during() as refused:
        try:
            history = replay_call(call, entry.frame.f_globals, s.frame_locals(entry), max_lines=TRACE_LINES,
                                  redactor=s.redactor)
        except Exception as exc:  # evaluating the callee or its arguments failed
            raise CommandError(f"not replayable: {type(exc).__name__}: {cut(str(exc), 200)}",
                               refused=refusal_in_chain(exc) is not None) from None
    if refused:  # even when the program caught it: it ran on differently
        raise CommandError(f"not replayable: {cut(refused[0], 200)}; a replay may not "
                           "write files, reach the network or start processes", refused=True)
    return history


def _help(s, name: str | None = None) -> str:
    if name is None:
        return help_text() + "\n\n" + aliases_text()
    command = COMMANDS_BY_NAME[name]
    canonical = next(c for c in COMMANDS if c.name == command.name)
    alias = next((a for a in canonical.aliases if a.name == name), None)
    if alias is not None and alias.help is not None:  # pdb's own behaviour
        return _rows([(f"{alias.name} {_arg_usage(canonical)}".strip(), f"{canonical.name}: {alias.help}")])
    return _rows([(canonical.usage, canonical.help)] + _alias_rows(canonical))


def _why(s) -> str:
    if s.explain is None:
        raise CommandError("why is only available under `autodbg run --interactive`")
    return s.explain(s)


def _break(s, spec: str) -> str:
    location, _, condition = spec.partition(" if ")
    breakpoint = s.resolve_breakpoint(location.strip(), condition.strip() or None)  # where the frames are
    return s.rerun.add_breakpoint(breakpoint)


def _try(s, change: tuple[str, str]) -> str:
    location, code = change
    return s.try_change(location, code)


def _rerun(s) -> str:
    return s.rerun.start()


def _resume(s) -> str:
    raise CommandError("no re-run is stopped at a breakpoint: set one with `break`, then `rerun`")


def _quit(s) -> str:
    return ""


def _done(s) -> str:
    return ""


COMMANDS: tuple[Command, ...] = (
    # The model is not offered where/up/down: its evidence already is the stack, and `frame N`
    # goes straight where up/down would take it turn by turn.
    Command("where", (), "show the stack; > marks the current frame", _where, for_model=False, live=True,
            aliases=(Alias("bt"), Alias("w"))),
    Command("up", (Arg("N", "count", optional=True),), "move N frames toward the caller (default 1)", _up,
            for_model=False, live=True,
            aliases=(Alias("u", _pdb_up, "to the outermost frame when fewer than N are above"),)),
    Command("down", (Arg("N", "count", optional=True),), "move N frames toward the crash (default 1)", _down,
            for_model=False, live=True,
            aliases=(Alias("d", _pdb_down, "to the innermost frame when fewer than N are below"),)),
    Command("frame", (Arg("N", "frame"),), "select frame N (numbers as in `where`)", _frame, live=True),
    Command("locals", (), "show the current frame's local variables", _locals, live=True),
    Command("args", (), "show the current function's arguments", _args, live=True, aliases=(Alias("a"),)),
    Command("print", (Arg("EXPR", "expr"),), "show the value of a read-only expression", _print, live=True,
            aliases=(Alias("p", _pdb_print, "the value alone"),
                     Alias("pp", _pdb_pretty_print, "the value pretty-printed, one item a line when it is wide"))),
    Command("type", (Arg("EXPR", "expr"),), "show the type of an expression", _type, live=True,
            aliases=(Alias("whatis", _whatis, "Function NAME, Method NAME, Class NAME, or the type"),)),
    Command("dir", (Arg("EXPR", "expr"),), "show the public attributes of an expression's value", _dir, live=True),
    Command("list", (Arg("FIRST", "line", optional=True), Arg("LAST", "line", optional=True)),
            "show source lines of the current file (around the current line by default)", _list, live=True,
            aliases=(Alias("l", _pdb_list, "FIRST in the middle; a bare `l` goes on, `l .` is the current line"),)),
    Command("longlist", (), "show the whole current function (a module: its file)", _longlist, for_model=False,
            live=True, aliases=(Alias("ll"),)),
    Command("source", (Arg("NAME", "name"),), "show the source of a function or class", _source, live=True),
    Command("trace", (Arg("CALL", "call"),),
            "re-run a call of the current line, or the call that made this frame: what each line assigned",
            _trace, needs="probe", back_to_crash=True, limit=3),
    Command("exceptions", (), "list the chained exceptions; > marks the current one", _exceptions,
            back_to_crash=True, needs_chain=True),
    Command("exception", (Arg("N", "exception"),), "switch to exception N of the chain", _exception,
            back_to_crash=True),
    Command("try", (Arg("FILE:LINE CODE", "change"),),
            "run the program with line FILE:LINE replaced by CODE, then its tests: what passed, what failed", _try,
            needs="probe", limit=2, controls=True),
    Command("break", (Arg("LOCATION [if COND]", "breakpoint"),),
            "stop a re-run at FILE:LINE or at the start of FUNCTION (when COND is true)", _break,
            needs="rerun", limit=3, controls=True, aliases=(Alias("b"),)),
    Command("rerun", (), "run the program again from the start, stopping at the breakpoints", _rerun,
            needs="breakpoints", limit=2, controls=True),
    Command("continue", (), "let the re-run go on to the next breakpoint", _resume, needs="stop", live=True,
            resumes=True, limit=4, controls=True, aliases=(Alias("c"), Alias("cont"))),
    Command("next", (), "run the current line of the re-run, stopping at the next line here", _resume,
            needs="stop", live=True, resumes=True, limit=4, controls=True, aliases=(Alias("n"),)),
    Command("step", (), "run the current line of the re-run, stopping in any function it calls", _resume,
            needs="stop", live=True, resumes=True, limit=4, controls=True, aliases=(Alias("s"),)),
    Command("done", (), "finish the investigation and give the diagnosis", _done, ends_session=True, controls=True),
    Command("why", (), "hand the session to the model from here and print its diagnosis", _why, for_model=False,
            controls=True),
    Command("help", (Arg("COMMAND", "command", optional=True),), "show this help, or a command's", _help,
            for_model=False, controls=True, aliases=(Alias("h"),)),
    Command("quit", (), "leave the debugger", _quit, for_model=False, ends_session=True, controls=True,
            aliases=(Alias("q"), Alias("exit"))),
)
# Each alias parses to its command, running pdb's behaviour where it has its own.
COMMANDS_BY_NAME = {c.name: c for c in COMMANDS} | {
    a.name: dataclasses.replace(c, run=a.run or c.run) for c in COMMANDS for a in c.aliases}


def help_text(commands=COMMANDS) -> str:
    return _rows([(c.usage, c.help) for c in commands])


def aliases_text(commands=COMMANDS) -> str:
    """pdb's names of COMMANDS, for a person's `help`."""
    rows = [row for c in commands for row in _alias_rows(c)]
    return "pdb's names for them (the same command unless said):\n" + _rows(rows)


def _alias_rows(command: Command) -> list[tuple[str, str]]:
    """(usage, help) of COMMAND's aliases: those that only rename it on one row, then each of pdb's own."""
    renames = [a.name for a in command.aliases if a.run is None]
    rows = [(f"{', '.join(renames)} {_arg_usage(command)}".strip(), command.name)] if renames else []
    return rows + [(f"{a.name} {_arg_usage(command)}".strip(), f"{command.name}: {a.help}")
                   for a in command.aliases if a.run is not None]


def _arg_usage(command: Command) -> str:
    return " ".join(a.usage for a in command.args)


def _rows(rows: list[tuple[str, str]]) -> str:
    width = max(len(usage) for usage, _ in rows)
    return "\n".join(f"{usage.ljust(width)}  {text}" for usage, text in rows)


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
    usage = f"usage: {name} {_arg_usage(command)}".rstrip()  # as typed: `p EXPR` for `p`
    if command.args and command.args[0].kind in ("expr", "breakpoint", "call", "change"):
        if not rest:
            raise CommandError(usage)
        return command, [_parse_arg(command.args[0], rest)]
    if command.args and command.args[0].kind == "line":  # pdb's forms too: `list .`, `list 3, 9`
        if rest == HERE:
            return command, [HERE]
        rest = rest.replace(",", " ")
    words = rest.split()
    required = sum(not a.optional for a in command.args)
    if not required <= len(words) <= len(command.args):
        raise CommandError(usage)
    return command, [_parse_arg(a, w) for a, w in zip(command.args, words)]


@dataclass(frozen=True)
class Breakpoint(Record):
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
    """One of the program's own files (on the stack, or a module it loaded): never any other, so
    `break` cannot tell whether some file exists."""
    for path in program_files(s):
        if name in (path, display_path(path)) or path.endswith("/" + name):
            return path
    raise CommandError(f"no file {name!r} in the program")


def program_files(s: "Session") -> list[str]:
    """The user files of the stack's frames, then of the loaded modules."""
    files = dict.fromkeys(frame.f_code.co_filename for frame in s.debugger.all_frames())
    for module in list(sys.modules.values()):
        try:
            path = object.__getattribute__(module, "__dict__").get("__file__")
        except Exception:  # not a plain module
            continue
        if isinstance(path, str):
            files.setdefault(os.path.abspath(path))
    return [path for path in files if not path.startswith("<") and is_user_file(path)]


def statement_lines(path: str) -> set[int]:
    """Lines of PATH where a statement starts: where a line breakpoint can stop."""
    return source.statement_lines("\n".join(source_lines(path)))


def replayable_here(s: "Session") -> dict[str, FrameEntry]:
    """The calls `trace` can replay from the current frame, each with the frame whose names it
    takes its callee and arguments from: the calls of the current line to the program's own
    functions, then, at the caller's line, the call that made the current frame. Nothing at a
    live stop (its line has not run yet) nor where program code cannot run."""
    d = s.debugger
    entry = d.current
    if d.exception_index < 0 or not in_probe() or not entry.is_user:
        return {}
    calls = {call: entry for call, _ in _user_calls(s, entry)}
    if entry.index > 0:
        caller = d.stack[entry.index - 1]
        calls.update({call: caller for call, code in _user_calls(s, caller)
                      if code is entry.frame.f_code and call not in calls})
    return dict(list(calls.items())[:MAX_TRACE_CALLS])


def _user_calls(s: "Session", entry: FrameEntry) -> list[tuple[str, types.CodeType]]:
    """The replayable calls of ENTRY's line whose callee is the program's own Python code, with
    that code; found without running any of the program's code (no property, no __getattr__)."""
    lines = s.debugger.source_lines(entry)
    statement = statement_text("\n".join(lines), entry.lineno) if lines else None
    found = []
    for call in replayable_calls(statement) if statement else []:
        code = _callee_code(s, entry, call)
        if code is not None and is_user_file(code.co_filename):
            found.append((call, code))
    return found


def _callee_code(s: "Session", entry: FrameEntry, call: str) -> types.CodeType | None:
    node = ast.parse(call, mode="eval").body.func
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    scope = {**entry.frame.f_globals, **s.frame_locals(entry)}
    if node.id not in scope:
        return None  # a built-in
    value = scope[node.id]
    try:
        for name in reversed(attributes):
            value = inspect.getattr_static(value, name)
        return code_of(value)
    except (AttributeError, TypeError):  # dynamic (a property, __getattr__), or not Python code
        return None


