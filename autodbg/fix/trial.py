"""Try a checked fix on the crashed program itself, inside a probe: load the fixed code into the
probe's copy of its module, run the crash's outermost program frame again, and say how that
ended.

The outermost program frame that the exception left is where the crash's story starts: for a script, its module (run
again from the top, so whatever the fixed function feeds is made again); for a test function,
a thread's target or a callback, that function called again with its arguments. Runs program
and model-written code: call `try_fix` only in a sandboxed probe (autodbg.crash).
"""

from __future__ import annotations

import ast
import os
import re
import sys
import types

from autodbg.frames.core import Inspector, display_path, is_user_file, source_lines
from autodbg.frames.safe_eval import safe_repr
from autodbg.fix.check import added_guard
from autodbg.fix.lines import python_lines, replace_lines
from autodbg.probe.fork import refusal_in_chain
from autodbg.records import Edit, FixTrial, TrialResult

DETAIL_CHARS = 200
VALUE_CHARS = 60  # of each value in the fixed function's first call
# Why a fix was "not run" that concern that fix alone (FixTrial.stopped_by_fix).
NOT_REACHED = "running it again did not reach the fixed lines"
NOT_CHECKED = "with the fix, the code that holds the failing assertion no longer runs to its end, so nothing checked the fix"
NOT_RAN_AGAIN = "with the fix, the line that crashed no longer runs, so nothing checked the fix"


class NotRunnable(Exception):
    """The fix cannot be tried here; the message says why, in one line."""


def try_fix(debugger: Inspector, fix: Edit, exception_type: str) -> FixTrial:
    """Run the program's outermost frame of the crash again with FIX made; EXCEPTION_TYPE is the crash's."""
    try:
        return _try(debugger, os.path.abspath(fix.file), fix.first, fix.last, fix.replacement, exception_type)
    except NotRunnable as why:
        return FixTrial(TrialResult.NOT_RUN, str(why))


def _try(debugger: Inspector, file: str, first: int, last: int, replacement: str, exception_type: str) -> FixTrial:
    running = _running_frames()
    outer = next((entry for entry in debugger.stack if entry.is_user and id(entry.frame) not in running), None)
    if outer is None:
        raise NotRunnable("no frame of the program to run again")
    try:
        with open(file, encoding="utf-8") as f:
            original = f.read()
        patched = replace_lines(original, first, last, replacement)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise NotRunnable(f"cannot read {display_path(file)}: {exc}") from None
    span = (first, first + max(len(python_lines(replacement)), 1) - 1)
    watch = FixedCodeWatch(file, span)
    check = _check_watch(debugger, file, (first, last), span, exception_type)
    if outer.frame.f_code.co_name == "<module>":
        run = _module_run(outer.frame, file, patched, span, watch)
    else:
        _load(file, patched, span, _module_globals(file, debugger), watch)
        run = _call_again(outer.frame)
    sys.settrace(watch.on_call if check is None else _both(watch, check))
    try:
        run()
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return FixTrial(TrialResult.FAILS_DIFFERENTLY, f"the program exits with status {exc.code}", moved_on=watch.reached)
    except BaseException as exc:  # noqa: BLE001 — how the fixed program fails is the answer
        if refusal_in_chain(exc) is not None:
            raise  # the sandbox stopped it: the probe reports that, not a program failure
        return _failure(exc, exception_type, watch, crash_site(debugger, file, (first, last), span))
    finally:
        sys.settrace(None)
    if not watch.reached:
        return FixTrial(TrialResult.NOT_RUN, NOT_REACHED, stopped_by_fix=True)
    if check is not None and not check.satisfied:
        return FixTrial(TrialResult.NOT_RUN, check.missing, stopped_by_fix=True)
    if isinstance(check, FinishWatch):
        return FixTrial(TrialResult.PASSES, "with this fix the failing assertion holds, and the code that holds it runs to its end")
    guard = _guard_at_crash(debugger, file, first, last, original, replacement)
    if guard is not None:
        return FixTrial(TrialResult.GUARDS, f"with this fix the crashed program runs to the end, but only because the fix adds "
                                  f"{guard} to the line that failed: the value it failed on may still be wrong")
    return FixTrial(TrialResult.PASSES, "with this fix the crashed program now runs to the end without an exception")


def _guard_at_crash(debugger: Inspector, file: str, first: int, last: int, original: str,
                    replacement: str) -> str | None:
    """What guard (fix.check.added_guard) REPLACEMENT adds, when lines FIRST..LAST of FILE that it
    replaces hold the line that crashed; None otherwise."""
    crash = next((entry for entry in reversed(debugger.stack) if entry.is_user), None)
    if crash is None or not (first <= crash.lineno <= last and _same_file(crash.filename, file)):
        return None
    return added_guard("".join(python_lines(original)[first - 1:last]), replacement)


def _running_frames() -> set[int]:
    """The frames still running here: a traceback's frame among them caught the exception (a
    test's helper, a `logging.exception` call), and running it again would catch it again."""
    running, frame = set(), sys._getframe()
    while frame is not None:
        running.add(id(frame))
        frame = frame.f_back
    return running


def _module_run(frame: types.FrameType, file: str, patched: str, span: tuple[int, int], watch: "FixedCodeWatch"):
    """Run the script's module again from its first line, in its own globals; when the fix is in
    this file, the fixed text is what runs (so its definitions are the fixed ones)."""
    path = frame.f_code.co_filename
    if _same_file(path, file):
        text = patched
    else:
        _load(file, patched, span, _module_globals(file, None), watch)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise NotRunnable(f"cannot read {display_path(path)}: {exc}") from None
    code = _compile(text, path)
    return lambda: exec(code, frame.f_globals)  # noqa: S102 — in the probe, by design


def _call_again(frame: types.FrameType):
    """Call the function running in FRAME again with the values its parameters have now."""
    code = frame.f_code
    function = next((f for f in _functions_with(code)), None)
    if function is None:
        raise NotRunnable(f"cannot find the function {code.co_name} to call again")
    names = code.co_varnames
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    values = frame.f_locals
    args = [values[n] for n in names[:positional] if n in values]
    kwargs = {n: values[n] for n in names[positional:positional + keyword_only] if n in values}
    index = positional + keyword_only
    if code.co_flags & 0x04:  # CO_VARARGS
        args += list(values.get(names[index], ()))
        index += 1
    if code.co_flags & 0x08:  # CO_VARKEYWORDS
        kwargs.update(values.get(names[index], {}))
    return lambda: function(*args, **kwargs)


def _functions_with(code: types.CodeType):
    import gc  # the probe disabled collection; finding referrers does not collect

    for referrer in gc.get_referrers(code):
        if isinstance(referrer, types.FunctionType) and referrer.__code__ is code:
            yield referrer


def _load(file: str, patched: str, span: tuple[int, int], module_globals: dict, watch: "FixedCodeWatch") -> None:
    """Put the fixed code where the program finds it: the function holding the fix gets the fixed
    code (every reference to it, `from m import f` ones too, then runs it); a fix outside any
    function re-runs the changed module-level statement in the module, so the fixed lines have run
    (`VAT_RATE = 0.20` in a module a test imports) and WATCH is told."""
    tree = _parse(patched, file)
    top, path = _holder(tree, span)
    if top is None:
        raise NotRunnable("the fix is not inside one statement of the module")
    code = compile(ast.Module(body=[top], type_ignores=[]), file, "exec", dont_inherit=True)
    if not path:  # a module-level statement: run its fixed version there
        exec(code, module_globals)  # noqa: S102
        watch.reached = True
        return
    scratch: dict = {}
    exec(code, module_globals, scratch)  # noqa: S102 — defines the fixed function aside
    new, old = _walk(scratch, path), _walk(module_globals, path)
    if new is None or old is None:
        raise NotRunnable(f"cannot find {'.'.join(path)} in {display_path(file)}'s module")
    try:
        old.__code__ = new.__code__
    except ValueError as exc:  # a different closure: the names it captures changed
        raise NotRunnable(f"cannot load the fixed {'.'.join(path)}: {exc}") from None


def _holder(tree: ast.Module, span: tuple[int, int]) -> tuple[ast.stmt | None, list[str]]:
    """The module-level statement holding SPAN, and the path (class, method names) to the
    outermost function holding it; [] when no function holds it."""
    first, last = span
    for node in tree.body:
        if node.lineno <= first and last <= (node.end_lineno or node.lineno):
            path: list[str] = []
            current: ast.AST = node
            while isinstance(current, ast.ClassDef):
                inner = next((n for n in current.body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                              and n.lineno <= first and last <= (n.end_lineno or n.lineno)), None)
                if inner is None:
                    return node, []  # a class-level statement: the class is defined again
                path.append(current.name)
                current = inner
            if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node, path + [current.name]
            return node, []
    return None, []


def _walk(namespace: dict, path: list[str]):
    """The plain function at PATH (class, ..., name) in NAMESPACE, through decorators that keep
    the original in `__wrapped__`, staticmethod/classmethod and properties."""
    thing = namespace.get(path[0])
    for name in path[1:]:
        thing = vars(thing).get(name) if isinstance(thing, type) else None
    for _ in range(10):
        if isinstance(thing, types.FunctionType):
            return thing
        if isinstance(thing, (staticmethod, classmethod)):
            thing = thing.__func__
        elif isinstance(thing, property):
            thing = thing.fget
        else:
            thing = getattr(thing, "__wrapped__", None)
    return None


def _module_globals(file: str, debugger: Inspector | None) -> dict:
    if debugger is not None:
        for entry in debugger.stack:
            if _same_file(entry.frame.f_code.co_filename, file):
                return entry.frame.f_globals
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and _same_file(path, file):
            return vars(module)
    raise NotRunnable(f"{display_path(file)} is not a module the program loaded")


def _check_watch(debugger: Inspector, file: str, replaced: tuple[int, int], span: tuple[int, int],
                 exception_type: str) -> "FinishWatch | LineWatch | None":
    """What must run again for `passes` to mean anything, at the crash's innermost program line
    (where it is after the fix): for a failing assert, the code that holds it, to its end (a fix
    that stops it running -- deletes the test's call -- passes nothing); for another exception, the
    line that crashed (a fix that stops it running -- replaces the call that led there with a
    `def` -- checked nothing), but for a `raise`, which a fix rightly avoids."""
    crash = crash_site(debugger, file, replaced, span)
    if crash is None:
        return None
    filename, line, before = crash
    if exception_type == "AssertionError":
        return FinishWatch(filename, line)
    code = source_lines(filename)
    if 0 < before <= len(code) and re.match(r"\s*raise\b", code[before - 1]):
        return None
    return LineWatch(filename, line)


def crash_site(debugger: Inspector, file: str, replaced: tuple[int, int],
               span: tuple[int, int]) -> tuple[str, int, int] | None:
    """The program line the crash was raised at (its innermost program frame's): file, its number
    once lines REPLACED of FILE are the fix's SPAN, and its number before."""
    crash = next((entry for entry in reversed(debugger.stack) if entry.is_user), None)
    if crash is None:
        return None
    line = crash.lineno
    if _same_file(crash.filename, file) and line > replaced[1]:
        line += (span[1] - span[0]) - (replaced[1] - replaced[0])
    return crash.filename, line, crash.lineno


def _both(fixed: "FixedCodeWatch", check: _CodeWatch):
    """One trace function for both watches (there is one per thread)."""
    fixed.alone = False  # its untracing would blind the other watch

    def on_call(frame: types.FrameType, event: str, arg):
        local = [t for t in (fixed.on_call(frame, event, arg), check.on_call(frame, event, arg)) if t is not None]
        if len(local) < 2:
            return local[0] if local else None

        def each(frame: types.FrameType, event: str, arg):
            for trace in local:
                trace(frame, event, arg)
            return each
        return each
    return on_call


class _CodeWatch:
    """Watches the code objects that hold FILE:LINE; SATISFIED once what it waits for happened."""

    missing = ""  # why a trial is "not run" when it never happened

    def __init__(self, file: str, line: int) -> None:
        self.file, self.line = file, line
        self.satisfied = False
        self.checked: dict[types.CodeType, bool] = {}

    def on_call(self, frame: types.FrameType, event: str, arg):
        if self.satisfied or event != "call":
            return None
        code = frame.f_code
        holds = self.checked.get(code)
        if holds is None:
            holds = self.checked[code] = _same_file(code.co_filename, self.file) and any(
                line == self.line for _, _, line in code.co_lines())
        return self.on_event if holds else None

    def on_event(self, frame: types.FrameType, event: str, arg):
        raise NotImplementedError


class FinishWatch(_CodeWatch):
    """Whether a code object holding FILE:LINE returned, at least once (an exception leaving it
    ends the trial as a failure, so a return seen here is a normal one)."""

    missing = NOT_CHECKED

    def on_event(self, frame: types.FrameType, event: str, arg):
        if event == "return":  # an exception leaving it ends the trial as a failure before this is asked
            self.satisfied = True
        return self.on_event


class LineWatch(_CodeWatch):
    """Whether FILE:LINE ran, at least once."""

    missing = NOT_RAN_AGAIN

    def on_event(self, frame: types.FrameType, event: str, arg):
        if event == "line" and frame.f_lineno == self.line:
            self.satisfied = True
            return None  # seen: no more line events in this frame
        return self.on_event


class FixedCodeWatch:
    """Whether a function (or the module) holding the fixed lines ran -- a `passes` that never
    reached them says nothing about the fix -- and what its first call got and gave back, so a
    fix that did not work can be told with which values (`page_count(total_items=7) returned 0`)."""

    def __init__(self, file: str, span: tuple[int, int]) -> None:
        self.file, self.span = file, span
        self.reached = False
        self.call = ""  # the first call of the fixed function and its outcome
        self.raised = ""
        self.checked: dict[types.CodeType, bool] = {}
        self.alone = True  # the only trace function: it may switch tracing off when it is done

    def on_call(self, frame: types.FrameType, event: str, arg):
        if self.reached or event != "call":
            return None
        code = frame.f_code
        holds = self.checked.get(code)
        if holds is None:
            holds = self.checked[code] = self._holds(code)
        if not holds:
            return None
        self.reached = True
        if code.co_name == "<module>":
            self._untrace()
            return None
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        args = ", ".join(f"{n}={safe_repr(frame.f_locals[n], VALUE_CHARS)}" for n in names if n in frame.f_locals)
        self.call = f"{code.co_name}({args})"
        return self.on_return

    def on_return(self, frame: types.FrameType, event: str, arg):
        if event == "exception":
            self.raised = arg[0].__name__  # caught inside, or about to leave the call
        elif event == "return":
            outcome = f"raised {self.raised}" if arg is None and self.raised else f"returned {safe_repr(arg, VALUE_CHARS)}"
            self.call += f" {outcome}"
            self._untrace()
        return self.on_return

    def _untrace(self) -> None:
        if self.alone:  # nothing more to learn: the rest runs at full speed
            sys.settrace(None)

    def _holds(self, code: types.CodeType) -> bool:
        if not (code.co_filename == self.file or _same_file(code.co_filename, self.file)):
            return False
        first, last = self.span
        return any(line is not None and first <= line <= last for _, _, line in code.co_lines())


def _failure(exc: BaseException, exception_type: str, watch: FixedCodeWatch,
             crashed_at: tuple[str, int, int] | None) -> FixTrial:
    where = _where(exc.__traceback__)
    text = _describe(exc) + (f" ({display_path(where[0])}:{where[1]})" if where else "")
    if not watch.reached:
        text += "; it did not reach the fixed lines"
    elif watch.call:
        text += f"; with the fix, {watch.call}"
    same_kind = type(exc).__name__ == exception_type
    first, last = watch.span
    in_fix = where is not None and _same_file(where[0], watch.file) and first <= where[1] <= last
    as_before = same_kind and where is not None and crashed_at is not None \
        and _same_file(where[0], crashed_at[0]) and where[1] == crashed_at[1]
    moved_on = watch.reached and where is not None and not in_fix and not as_before
    return FixTrial(TrialResult.STILL_FAILS if same_kind else TrialResult.FAILS_DIFFERENTLY, text, moved_on)


def _where(tb: types.TracebackType | None) -> tuple[str, int] | None:
    """The file and line of the innermost program frame TB passes through."""
    last = None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            last = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return last


def _describe(exc: BaseException) -> str:
    try:
        message = " ".join(str(exc).split())
    except BaseException:  # noqa: BLE001 — a program's __str__ may fail in any way
        message = ""
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS - 3] + "..."


def _parse(text: str, file: str) -> ast.Module:
    try:
        return ast.parse(text, file)
    except (SyntaxError, ValueError) as exc:
        raise NotRunnable(f"the fixed file does not compile: {exc}") from None


def _compile(text: str, file: str) -> types.CodeType:
    try:
        return compile(text, file, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise NotRunnable(f"{display_path(file)} does not compile: {exc}") from None


def _same_file(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
