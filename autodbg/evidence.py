"""The evidence dossier: what a debugger would look at first, gathered without any model.

For each user frame (innermost first): a numbered source window, the values of every name,
attribute and subscript on the failing statement, the other locals, and the source of user
functions called on that statement (their frames are gone when, say, `assert parse(s) == 3`
fails). Returned as a `records.Dossier`: the rich report, the model prompt and the JSON report
read it.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import re
import sys
import types

from autodbg.analysis import backtrack
from autodbg.analysis import source
from autodbg.analysis.source import module_nodes, parse_source
from autodbg.analysis.replay import history_text
from autodbg.debugger.commands import replay_here, replayable_here
from autodbg.debugger.output import CommandError
from autodbg.frames.core import (
    FrameEntry, Inspector, PostMortem, display_path, frame_source_lines, is_user_file, source_lines,
)
from autodbg.frames.safe_eval import TimeLimit, can_run_user_code, cut, time_limit
from autodbg.debugger.session import Session
from autodbg.records import (
    CalledFunction, ChainLink, CrashSite, Dossier, ExceptionInfo, FrameEvidence, LineValue, Replay, SourceWindow,
    ValueOrigin,
)

MAX_FRAMES = 6  # user frames described in detail; the rest are counted
CRASH_CONTEXT = 6  # source lines each side of the crash line
CALLER_CONTEXT = 2
MAX_LOCALS = 20
MAX_CALLED_SOURCE = 40  # lines of a called function's source
MAX_REPLAYS = 2  # calls of the crash line replayed for the evidence
REPLAY_CHARS = 700  # of one replay's history: about 250 tokens the model reads
MAX_ORIGINS = 10  # lines the values came from: more name no more root causes (bench/HISTORY.md)
# Origins that tell nothing a reader (or a model) could act on: an import, a `def` or `class` line,
# a parameter (its caller's argument is what tells), a `with` target.
UNTOLD_ORIGINS = frozenset({"import", "def", "class", "param", "with"})


def build_dossier(session: Session) -> Dossier:
    debugger = session.debugger
    exc = debugger.chain[debugger.top_exception].exc
    stack = debugger.stack
    user = [e for e in reversed(stack) if e.is_user]
    alive = {e.frame.f_code for e in stack}
    shown, repeats = fold_recursion(user)
    frames = []
    for i, entry in enumerate(shown[:MAX_FRAMES]):
        frame = _describe_frame(session, entry, crash=(i == 0), alive=alive)
        frame.repeated = repeats[i]
        frames.append(frame)
    crash = user[0] if user else stack[-1]
    scrub = session.redactor.scrub
    origins = [dataclasses.replace(o, code=scrub(o.code)) for o in value_origins(shown[:MAX_FRAMES], session)]
    return Dossier(
        exception=ExceptionInfo(type(exc).__qualname__, scrub(cut(_safe_str(exc), 1000)),
                                scrub(cut(debugger.chain[debugger.top_exception].title, 1000))),
        chain=[ChainLink(i, scrub(cut(c.title, 300)), c.relation) for i, c in enumerate(debugger.chain)],
        crash_site=CrashSite(crash.filename, crash.lineno, crash.function),
        frames=frames,
        folded_user_frames=max(0, len(shown) - MAX_FRAMES),
        library_frames=len(stack) - len(user),
        assertion=isinstance(exc, AssertionError),
        origins=origins,
    )


def value_origins(user: list[FrameEntry], session: Session) -> list[ValueOrigin]:
    """Where the values the failing lines used came from, by static analysis of the program's
    source (autodbg.analysis.backtrack): the crash frame's reaching definitions, parameters
    followed into their callers, results followed into the return lines of the program's
    functions. Lines the frames already show as their current line are left out, but for a
    caller's call that passed a failing parameter: where an argument went wrong, that line is the
    root cause (`make_date(day, month, year)` for `def make_date(year, month, day)`)."""
    sources = {path: "\n".join(source_lines(path)) for path in reachable_files(user)}
    sites = [backtrack.site(sources[e.filename], e.filename, e.lineno, e.function) for e in user if e.filename in sources]
    current = {(e.filename, e.lineno) for e in user}
    origins = []
    for lead in backtrack.backtrack(sites, sources):
        shown = (lead.file, lead.origin.line) in current and lead.origin.kind != "argument"
        if shown or (lead.file, lead.origin.line) == (user[0].filename, user[0].lineno) \
                or lead.origin.kind in UNTOLD_ORIGINS:
            continue
        lines = source_lines(lead.file)
        code = lines[lead.origin.line - 1].strip() if 0 < lead.origin.line <= len(lines) else lead.origin.code
        origins.append(ValueOrigin(via=lead.via, kind=lead.origin.kind, file=lead.file, display_file=display_path(lead.file), line=lead.origin.line, code=cut(code, 200), depth=lead.depth))
        if len(origins) == MAX_ORIGINS:
            break
    return origins


def crash_line_replays(session: Session) -> list[Replay]:
    """The calls the crash line made to the program's functions, which returned before it failed
    (`assert parse(s) == 3`), run again under the line tracer: what their lines made is what the
    frames no longer show. Runs program code: only in a probe, and in a probe of its own, so a
    replay that hangs costs the replays, not the evidence. A call that cannot be replayed (the
    sandbox refused what it did) is left out."""
    d = session.debugger
    user = [e for e in d.stack if e.is_user]
    if not user:
        return []
    entry = user[-1]
    d.select_frame(entry.index)
    replays = []
    for call, made_from in replayable_here(session).items():
        if made_from is not entry:
            continue  # the call that made the crash frame: that frame is still there to read
        try:
            history = replay_here(session, call)
        except CommandError:
            continue
        if not history.steps:
            continue
        lines = list(dict.fromkeys(step.line for step in reversed(history.steps) if step.function == history.function))
        scrub = session.redactor.scrub
        replays.append(Replay(call=scrub(call), file=history.steps[0].file, function=history.function, history=scrub(history_text(history, REPLAY_CHARS)), lines=lines))
        if len(replays) == MAX_REPLAYS:
            break
    return replays


def traceback_dossier(debugger: Inspector, note: str) -> Dossier:
    """The evidence that needs no program code, for when the probes that read values did not come
    back: the stack and its source, no values; the exception by its type (its message is the
    program's code). Runs in the crashed process itself, so it touches no program object."""
    stack = debugger.stack
    user = [e for e in reversed(stack) if e.is_user]
    frames = []
    for i, entry in enumerate(user[:MAX_FRAMES]):
        lines = frame_source_lines(entry.frame, module_globals=False)  # a loader's get_source is program code
        context = CRASH_CONTEXT if i == 0 else CALLER_CONTEXT
        first, last = max(1, entry.lineno - context), min(len(lines), entry.lineno + context)
        code = lines[entry.lineno - 1].strip() if 0 < entry.lineno <= len(lines) else ""
        frames.append(FrameEvidence(index=entry.index, file=entry.filename, display_file=display_path(entry.filename), function=entry.function, line=entry.lineno, is_crash_frame=i == 0, code=code, source=SourceWindow(first, [cut(l, 200) for l in lines[first - 1:last]]), line_values=[], locals={}, locals_cut=0, called_functions=[]))
    kind = type(debugger.exception) if isinstance(debugger, PostMortem) else None
    name = type.__dict__["__qualname__"].__get__(kind) if kind is not None else "no exception"
    crash = user[0] if user else stack[-1]
    return Dossier(exception=ExceptionInfo(name, note, f"{name} ({note})"), chain=[ChainLink(0, name, "raised")], crash_site=CrashSite(crash.filename, crash.lineno, crash.function), frames=frames, folded_user_frames=max(0, len(user) - MAX_FRAMES), library_frames=len(stack) - len(user), assertion=kind is not None and issubclass(kind, AssertionError))


def unraised_dossier(exc: BaseException) -> Dossier:
    """The evidence of an exception no frame of the program raised: a script that does not compile
    (where the SyntaxError points, and the lines around it), or one handed to the hook unraised (its
    type and message). Read from the exception and the file alone: no program code runs."""
    name = type.__dict__["__qualname__"].__get__(type(exc))
    message = _safe_str(exc)
    frames = []
    filename, line = getattr(exc, "filename", None), getattr(exc, "lineno", None)
    if isinstance(exc, SyntaxError) and isinstance(filename, str) and isinstance(line, int):
        lines = source_lines(filename)
        if 0 < line <= len(lines):
            first, last = max(1, line - CRASH_CONTEXT), min(len(lines), line + CRASH_CONTEXT)
            frames.append(FrameEvidence(
                index=0, file=filename, display_file=display_path(filename), function="<module>", line=line,
                is_crash_frame=True, code=lines[line - 1].strip(),
                source=SourceWindow(first, [cut(text, 200) for text in lines[first - 1:last]]),
                line_values=[], locals={}, locals_cut=0, called_functions=[]))
    site = CrashSite(filename if frames else "", line if frames else 0, "<module>" if frames else "")
    return Dossier(exception=ExceptionInfo(name, message, f"{name}: {message}" if message else name),
                   chain=[ChainLink(0, name, "raised")], crash_site=site, frames=frames, folded_user_frames=0,
                   library_frames=0, assertion=False)


def reachable_files(user: list[FrameEntry]) -> list[str]:
    """The program's files the crash frames can reach: their own, and those of the user modules,
    functions and classes their globals name (the calls a value may have come through)."""
    files = dict.fromkeys(e.filename for e in user)
    for entry in user:
        for value in list(entry.frame.f_globals.values())[:500]:
            if isinstance(value, types.ModuleType):
                path = value.__dict__.get("__file__")
            elif isinstance(value, types.FunctionType):
                path = value.__code__.co_filename
            elif isinstance(value, type):
                path = getattr(sys.modules.get(value.__dict__.get("__module__", "")), "__file__", None)
            else:
                continue
            if isinstance(path, str):
                files.setdefault(os.path.abspath(path))
    return [path for path in files if not path.startswith("<") and is_user_file(path)]


def fold_recursion(user: list[FrameEntry]) -> tuple[list[FrameEntry], list[int]]:
    """Frames innermost first with runs of the same call (recursion) folded into their innermost
    frame; and for each kept frame how many identical ones were folded into it. A RecursionError
    then shows the repeating call once and, next, where the recursion began."""
    shown: list[FrameEntry] = []
    repeats: list[int] = []
    for entry in user:
        if shown and (entry.frame.f_code, entry.lineno) == (shown[-1].frame.f_code, shown[-1].lineno):
            repeats[-1] += 1
            continue
        shown.append(entry)
        repeats.append(0)
    return shown, repeats


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return "<str() failed>"


def _describe_frame(session: Session, entry: FrameEntry, *, crash: bool, alive: set) -> FrameEvidence:
    lines = session.debugger.source_lines(entry)
    context = CRASH_CONTEXT if crash else CALLER_CONTEXT
    # not the tail or head of the functions around it; the whole file at its top level
    first, last = source.function_span("\n".join(lines), entry.lineno) or (1, len(lines))
    first = max(first, entry.lineno - context)
    last = min(last, entry.lineno + context)
    statement = failing_statement(lines, entry.lineno)
    shown_names: set[str] = set()
    line_values = []
    called = []
    if statement is not None:
        for expr in expressions_on(statement):
            value = _value_text(session, entry, expr)
            if value.startswith("!NameError") or value.startswith("<module "):
                continue  # a comprehension's own variable seen from outside, or an import: no evidence
            line_values.append(LineValue(expr, value))
            shown_names.add(expr)
        if can_run_user_code():
            called = _called_functions(session, entry, statement, alive)
    window = "\n".join(lines[first - 1:last])
    # A module's locals are all its globals, hundreds in a large program: those its shown lines use.
    told = (lambda name: re.search(rf"\b{re.escape(name)}\b", window) is not None) \
        if entry.frame.f_code.co_name == "<module>" else (lambda name: True)
    other = {
        name: session.show(name, value)
        for name, value in session.visible_locals(entry).items()
        if name not in shown_names and told(name)
    }
    other_items = list(other.items())
    scrub = session.redactor.scrub
    return FrameEvidence(
        index=entry.index,
        file=entry.filename,
        display_file=display_path(entry.filename),
        function=entry.function,
        line=entry.lineno,
        is_crash_frame=crash,
        code=scrub(lines[entry.lineno - 1].strip()) if 0 < entry.lineno <= len(lines) else "",
        source=SourceWindow(first, [scrub(cut(l, 200)) for l in lines[first - 1:last]]),
        line_values=line_values,
        locals={k: scrub(v) for k, v in other_items[:MAX_LOCALS]},
        locals_cut=max(0, len(other_items) - MAX_LOCALS),
        called_functions=called,
    )


def _value_text(session: Session, entry: FrameEntry, expr: str) -> str:
    try:
        value = session.evaluate(expr, entry)
    except CommandError as exc:
        return "!" + session.redactor.scrub(str(exc))
    return session.redactor.scrub(session.show(expr, value))


def failing_statement(lines: list[str], lineno: int) -> ast.AST | None:
    """The smallest statement of the file that contains LINENO (for a compound statement,
    only its header counts: `for x in items:` not the loop body)."""
    tree = parse_source("\n".join(lines))
    if tree is None:
        return _parse_line_alone(lines, lineno)
    best = None
    for node in module_nodes(tree):
        if not isinstance(node, ast.stmt) or not node.lineno <= lineno <= (node.end_lineno or node.lineno):
            continue
        if best is None or (node.end_lineno - node.lineno) <= (best.end_lineno - best.lineno):
            best = node
    return best


def _parse_line_alone(lines: list[str], lineno: int) -> ast.AST | None:
    if not 0 < lineno <= len(lines):
        return None
    text = lines[lineno - 1].strip().rstrip(":")
    for candidate in (text, text + ": pass", text.removeprefix("return "), text.removeprefix("assert ")):
        try:
            return ast.parse(candidate).body[0]
        except (SyntaxError, IndexError):
            continue
    return None


_COMPOUND_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _header_nodes(statement: ast.AST):
    """The parts of STATEMENT that execute on its own line(s), not nested bodies."""
    for name, value in ast.iter_fields(statement):
        if name in _COMPOUND_BODIES or name in ("decorator_list", "returns", "type_params", "args"):
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in value if isinstance(value, list) else [value]:
            if isinstance(node, ast.AST):
                yield node


def expressions_on(statement: ast.AST) -> list[str]:
    """Names, attribute chains and simple subscripts read by STATEMENT, in source order."""
    found: dict[str, tuple[int, int, int]] = {}

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for gen in node.generators:
                visit(gen.iter)
                for condition in gen.ifs:
                    visit(condition)
            for part in ("elt", "key", "value"):
                if getattr(node, part, None) is not None:
                    visit(getattr(node, part))
            return
        if isinstance(node, ast.Call):
            visit_callee(node.func)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                visit(arg)
            return
        if _is_readable(node) and isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            text = ast.unparse(node)
            found.setdefault(text, (node.lineno, node.col_offset, len(text)))
            if isinstance(node, ast.Subscript):
                visit(node.value)
                visit(node.slice)
                return
            if isinstance(node, ast.Attribute):
                visit(node.value)
                return
        for child in ast.iter_child_nodes(node):
            visit(child)

    def visit_callee(func: ast.AST) -> None:
        # `obj.method(...)`: the object is evidence, the bound method is not.
        if isinstance(func, ast.Attribute):
            visit(func.value)
        elif not isinstance(func, ast.Name):
            visit(func)

    for node in _header_nodes(statement):
        visit(node)
    return [expr for expr, _ in sorted(found.items(), key=lambda kv: kv[1])]


def _is_readable(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _is_readable(node.value) and not node.attr.startswith("__")
    if isinstance(node, ast.Subscript):
        index = node.slice
        simple_index = isinstance(index, ast.Constant) or (_is_readable(index) and not isinstance(index, ast.Subscript))
        return _is_readable(node.value) and simple_index
    return False


def _called_functions(session: Session, entry: FrameEntry, statement: ast.AST, alive: set) -> list[CalledFunction]:
    """Source of user functions called on the statement whose frames are gone."""
    out, seen = [], set()
    for node in _header_nodes(statement):
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            if not _is_readable(call.func):
                continue
            name = ast.unparse(call.func)
            try:
                target = session.evaluate(name, entry)
            except CommandError:
                continue
            target = getattr(target, "__func__", target)
            if inspect.isclass(target):
                target = target.__dict__.get("__init__", None)
            if not isinstance(target, types.FunctionType) or target.__code__ in alive or target.__code__ in seen:
                continue
            seen.add(target.__code__)
            filename = target.__code__.co_filename
            if not is_user_file(filename):
                continue
            source = _function_source(target)
            if source is None:
                continue
            start, body = source
            out.append(CalledFunction(
                name=name,
                file=filename,
                display_file=display_path(filename),
                line=start,
                lines=[session.redactor.scrub(cut(l, 200)) for l in body[:MAX_CALLED_SOURCE]],
                lines_cut=max(0, len(body) - MAX_CALLED_SOURCE),
            ))
    return out


def _function_source(function: types.FunctionType) -> tuple[int, list[str]] | None:
    try:
        with time_limit(1.0):
            lines, start = inspect.getsourcelines(function)
    except (OSError, TypeError, TimeLimit):
        return None
    return start, [l.rstrip("\r\n") for l in lines]
