"""Re-run a call whose frame is gone under a line tracer, keeping what each line assigned.

`assert parse(s) == 3` fails after parse() has returned: its frame, and every value it computed,
is gone. Calling parse(s) again with the same arguments, while recording each executed line and
the names whose value changed there, gives a value history ("line 6: scores = [42] · line 7:
return scores[1:] → []") the model and the human can read.

This runs program code: call it only inside a sandboxed probe (a forked copy of the process).
It bounds itself anyway: past MAX_LINES traced lines it stops the call by raising from the
tracer (a BaseException, raised again at every further line, so `except Exception:` in the
program cannot keep it going); a line run more than MAX_ITERATIONS_PER_LINE times is folded into
one step; every value's text is cut. Wall time is the probe's deadline, not bounded here.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import linecache
import sys
import types
from dataclasses import dataclass, field

from autodbg.analysis.source import parse_statement
from autodbg.frames.core import is_user_file
from autodbg.frames.safe_eval import cut, safe_repr
from autodbg.redact import Redactor, is_secret_name, redacted

TRACE_DEPTH = 1  # the replayed function's own lines, and those of the user functions it calls
MAX_YIELDS = 50  # items taken from a generator the call returns
MAX_CODE = 80  # characters of a step's source line


@dataclass
class Step:
    """One executed line, the names it changed with their new values, and what it returned (or
    yielded) or raised. COUNT > 1: a hot line's runs past the fold, the line's total runs so far,
    with the last values."""

    file: str
    function: str
    line: int
    code: str
    assigned: dict[str, str] = field(default_factory=dict)
    count: int = 1
    returned: str | None = None
    raised: str | None = None


@dataclass
class ValueHistory:
    """The replayed call's steps in execution order and its outcome: RESULT (the return value's
    text) or EXCEPTION ("ValueError: ..."); CUT when it was stopped at the line limit."""

    function: str
    steps: list[Step]
    result: str | None
    exception: str | None
    cut: bool


class ReplayCut(BaseException):
    """Raised from the tracer to stop a replay past its line limit."""


def replay(function, args: tuple, kwargs: dict, *, max_lines: int = 500, max_iterations_per_line: int = 50,
           max_value_chars: int = 120, redactor: Redactor | None = None) -> ValueHistory:
    """Call FUNCTION(*ARGS, **KWARGS) under a line tracer. FUNCTION: a Python function, bound
    method, or class (its `__init__` is traced). A returned generator is run for up to
    MAX_YIELDS items, which are the result. The trace function in force before is restored.
    REDACTOR (a session's): judges which names are secret, and learns the secrets of each traced
    frame as it returns, so that it can scrub them from the history's text."""
    code = code_of(function)
    tracer = _Tracer(code, max_lines, max_iterations_per_line, max_value_chars, redactor)
    result = exception = None
    previous, previous_profile = sys.gettrace(), sys.getprofile()
    sys.settrace(tracer.on_call)
    try:
        value = function(*args, **kwargs)
        result = _outcome_text(value, max_value_chars)
    except ReplayCut:
        pass
    except (Exception, SystemExit) as exc:
        exception = cut(_error_text(type(exc), exc), max_value_chars)
    finally:
        sys.setprofile(previous_profile)  # first: the re-arming profile function would trace again
        sys.settrace(previous)
    return ValueHistory(code.co_name, tracer.steps, None if tracer.stopped else result,
                        None if tracer.stopped else exception, tracer.stopped)


def replay_call(call: str, global_names: dict, local_names: dict, **bounds) -> ValueHistory:
    """Replay CALL, one of replayable_calls()'s texts, with its callee and arguments taken from
    a frame's names (its f_globals and f_locals). BOUNDS: replay()'s keyword arguments.
    ValueError when CALL is not such a call; TypeError when its callee is not Python code."""
    if replayable_calls(call) != [call]:
        raise ValueError(f"not a replayable call: {cut(call, 80)}")
    node = parse_statement(call).body[0].value

    def value(expression: ast.expr):
        return eval(compile(ast.Expression(expression), "<replay>", "eval"), global_names, local_names)

    args = tuple(value(a) for a in node.args)
    kwargs = {k.arg: value(k.value) for k in node.keywords}
    return replay(value(node.func), args, kwargs, **bounds)


def replayable_calls(statement_source: str) -> list[str]:
    """The calls in a failing statement that can be re-run from its frame's names alone, in
    evaluation order: the callee is a name or attribute chain, and every argument is a name,
    attribute chain, subscript of those by a literal or name, or a literal (so re-evaluating it
    runs nothing else). Calls inside comprehensions and lambdas use names the frame does not
    have and are left out. Built-ins are not told apart: the caller keeps the program's own."""
    tree = parse_statement(statement_source)
    if tree is None:
        return []
    calls = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call) and _chain(node.func) and all(
                _plain(a) for a in [*node.args, *(k.value for k in node.keywords)]) and not any(
                isinstance(a, ast.Starred) for a in node.args) and all(k.arg for k in node.keywords):
            calls.append(node)
        stack.extend(ast.iter_child_nodes(node))
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(ast.unparse(c) for c in calls))


def history_text(history: ValueHistory, limit_chars: int = 600) -> str:
    """The history on one line: `line 6: scores = [42] · line 7: return scores[1:] → []`, the
    middle steps left out when it is longer than LIMIT_CHARS."""
    parts = [_step_text(step, history.function) for step in history.steps]
    if history.cut:
        end = "stopped at the line limit"
    elif history.exception is not None:
        end = f"raised {history.exception}"
    else:
        end = f"returned {history.result}"
    return _fit(parts, "⇒ " + end, limit_chars)


# --- the tracer ------------------------------------------------------------------------------

class _Tracer:
    def __init__(self, code: types.CodeType, max_lines: int, max_iterations: int, max_chars: int,
                 redactor: Redactor | None):
        self.code = code
        self.redactor = redactor
        self.is_secret = redactor.is_secret if redactor is not None else is_secret_name
        self.max_lines = max_lines
        self.max_iterations = max_iterations
        self.max_chars = max_chars
        self.steps: list[Step] = []
        self.stopped = False
        self.lines_run = 0
        self.depth: dict[types.FrameType, int] = {}
        self.values: dict[types.FrameType, dict[str, str]] = {}
        self.current: dict[types.FrameType, Step] = {}
        self.raising: set[types.FrameType] = set()
        self.runs: dict[tuple[str, int], int] = {}
        self.folded: dict[tuple[str, int], Step] = {}

    def on_call(self, frame: types.FrameType, event: str, arg):
        if self.stopped:
            raise ReplayCut
        depth = self._depth(frame)
        if depth is None:
            return None
        self.depth[frame] = depth
        self.values.setdefault(frame, self._snapshot(frame))
        return self.on_event

    def _depth(self, frame: types.FrameType) -> int | None:
        parent = self.depth.get(frame.f_back)
        if parent is not None:
            inner = parent + 1
            traced = inner <= TRACE_DEPTH and is_user_file(frame.f_code.co_filename)
            # A comprehension's or lambda's own frame: its effect shows on the line that ran it.
            return inner if traced and not frame.f_code.co_name.startswith("<") else None
        if frame in self.depth:
            return self.depth[frame]  # a generator resumed
        return 0 if frame.f_code is self.code and not self.depth else None

    def on_event(self, frame: types.FrameType, event: str, arg):
        if event == "line":
            self._settle(frame)
            self.raising.discard(frame)
            self._count_line(frame)
        elif event == "exception":
            step = self.current.get(frame)
            if step is not None and frame not in self.raising and arg[0] is not ReplayCut:
                step.raised = cut(_error_text(arg[0], arg[1]), self.max_chars)
            self.raising.add(frame)
        elif event == "return":
            self._settle(frame)
            if self.redactor is not None:
                self.redactor.learn_frame(frame)
            step = self.current.get(frame)
            if step is not None and frame not in self.raising:
                step.returned = safe_repr(arg, self.max_chars)
        return self.on_event

    def _count_line(self, frame: types.FrameType) -> None:
        self.lines_run += 1
        if self.lines_run > self.max_lines:
            self.stopped = True
        if self.stopped:
            # Python drops a trace function that raises; should the program swallow the
            # ReplayCut (`except BaseException:`), its next call puts the tracer back.
            sys.setprofile(self.rearm)
            raise ReplayCut
        key = (frame.f_code.co_filename, frame.f_lineno)
        step = self.current.get(frame)
        if step is not None and step.line == frame.f_lineno and step.count == 1 and step is self.steps[-1]:
            return  # the same line again at once: Python 3.12+ after an inlined comprehension
        self.runs[key] = self.runs.get(key, 0) + 1
        if self.runs[key] <= self.max_iterations:
            step = self._new_step(frame)
            self.steps.append(step)
        elif key in self.folded:
            step = self.folded[key]
            step.count += 1
        else:
            step = self.folded[key] = self._new_step(frame)
            step.count = self.runs[key]
            self.steps.append(step)
        self.current[frame] = step

    def rearm(self, frame: types.FrameType, event: str, arg) -> None:
        sys.settrace(self.on_call)
        while frame is not None:
            if frame in self.depth:
                frame.f_trace = self.on_event
            frame = frame.f_back

    def _new_step(self, frame: types.FrameType) -> Step:
        file, line = frame.f_code.co_filename, frame.f_lineno
        code = cut(linecache.getline(file, line).strip(), MAX_CODE)
        return Step(file, frame.f_code.co_name, line, code)

    def _settle(self, frame: types.FrameType) -> None:
        """Credit the names that changed since the last event to the line that just ran."""
        now = self._snapshot(frame)
        before = self.values.get(frame, {})
        step = self.current.get(frame)
        if step is not None:
            step.assigned.update({name: text for name, text in now.items() if before.get(name) != text})
            for name in [n for n in step.assigned if n not in now]:
                del step.assigned[name]  # gone again: an inlined comprehension's variable
        self.values[frame] = now

    def _snapshot(self, frame: types.FrameType) -> dict[str, str]:
        return {name: redacted(value) if self.is_secret(name) else safe_repr(value, self.max_chars)
                for name, value in list(frame.f_locals.items())
                if not name.startswith((".", "__"))}


# --- helpers ---------------------------------------------------------------------------------

def code_of(function) -> types.CodeType:
    """The code replay() traces for FUNCTION; TypeError when it has none (a built-in)."""
    target = function.__dict__.get("__init__") if inspect.isclass(function) else function
    target = getattr(target, "__func__", target)
    code = getattr(target, "__code__", None)
    if not isinstance(code, types.CodeType):
        raise TypeError(f"not a Python function: {safe_repr(function, 80)}")
    return code


def _outcome_text(value, limit: int) -> str:
    if inspect.isgenerator(value):
        items = list(itertools.islice(value, MAX_YIELDS + 1))
        value.close()
        more = ", more not taken" if len(items) > MAX_YIELDS else ""
        return cut(f"a generator that yielded {safe_repr(items[:MAX_YIELDS], limit)}{more}", limit + 40)
    if inspect.iscoroutine(value):
        value.close()
        return "a coroutine (not run)"
    return safe_repr(value, limit)


def _error_text(kind: type, exc: BaseException) -> str:
    """`ValueError: bad`, or `AssertionError` alone for an exception without a message."""
    try:
        message = str(exc)
    except Exception:
        message = "<str() failed>"
    return f"{kind.__name__}: {message}" if message else kind.__name__


def _chain(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _plain(node: ast.AST) -> bool:
    """An argument whose evaluation runs no program code beyond attribute and item access."""
    if isinstance(node, ast.Constant) or _chain(node):
        return True
    if isinstance(node, ast.Subscript):
        return _plain(node.value) and _plain(node.slice)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_plain(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _plain(k) and _plain(v) for k, v in zip(node.keys, node.values))
    return False


def _step_text(step: Step, top_function: str) -> str:
    where = f"line {step.line}" if step.function == top_function else f"{step.function} line {step.line}"
    if step.count > 1:
        where += f" ×{step.count}"
    text = where
    if step.assigned:
        values = ", ".join(f"{name} = {value}" for name, value in step.assigned.items())
        text += (", last: " if step.count > 1 else ": ") + values
    if step.returned is not None:
        text += f"{';' if step.assigned else ':'} {step.code} → {step.returned}"
    elif step.raised is not None:
        text += f"{';' if step.assigned else ':'} {step.code} !! {step.raised}"
    elif not step.assigned:
        text += f": {step.code}"
    return text


def _fit(parts: list[str], end: str, limit: int) -> str:
    """PARTS joined with " · " and END, dropping middle parts (the start and the end of a run
    say the most) until it fits in LIMIT characters."""
    def joined(kept_head: int, kept_tail: int) -> str:
        left_out = len(parts) - kept_head - kept_tail
        middle = [f"… {left_out} steps …"] if left_out else []
        tail = parts[len(parts) - kept_tail:] if kept_tail else []
        return " · ".join([*parts[:kept_head], *middle, *tail, end])

    head, tail = (len(parts) + 1) // 2, len(parts) // 2
    text = joined(head, tail)
    while len(text) > limit and head + tail > 0:
        if head > tail:
            head -= 1
        else:
            tail -= 1
        text = joined(head, tail)
    return cut(text, limit)
