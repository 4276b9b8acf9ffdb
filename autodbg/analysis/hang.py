"""A program interrupted while it ran (Ctrl-C, or the watchdog): where it was, and whether it was
stuck there.

`where_it_was` reads the interrupted stack without running program code (but for guarded reprs):
each thread's user frames, the innermost loop of the program around the interrupted line and its
variables, a recursion and how its arguments went. `run_loop_on` runs program code -- call it only
inside a probe (a fork of the interrupted process): it runs the interrupted loop on from the
interrupted frame's values, under a line tracer, for a short while, and records which of the
loop's names change. `verdict` says from both whether the program was stuck.
"""

from __future__ import annotations

import ast
import os
import sys
import time
import types

from autodbg.analysis.source import function_span, module_nodes, parse_source
from autodbg.frames.core import display_path, is_user_file, source_lines
from autodbg.frames.safe_eval import Evaluator, cut, safe_repr
from autodbg.records import Hang, LockWait, Loop, LoopCheck, Recursion, ThreadStack

MAX_STACK = 8  # user frames shown of each thread
MAX_NAMES = 12  # of a loop's names shown and followed
MAX_VALUES = 4  # first values of a changing name kept
CHECK_SECONDS = 0.3  # the loop runs on for this long at most
CHECK_LINES = 200_000  # or this many traced lines
VALUE_CHARS = 80
_NOT_STATE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)
_MISSING = object()


def interrupted_frames(exc: BaseException) -> list[tuple[types.FrameType, int]]:
    """(frame, line) of EXC's traceback in the program's own files, innermost first. Under
    `asyncio.run` (3.11+), Ctrl-C first cancels the main task and the KeyboardInterrupt is raised
    after it, in asyncio's runner: the coroutines' frames where they were stuck are in the
    traceback of the CancelledError it was raised from."""
    frames = _user_frames(exc.__traceback__)
    cancelled = exc.__context__
    while cancelled is not None and type(cancelled).__name__ == "CancelledError":
        inner = _user_frames(cancelled.__traceback__)
        if inner:
            return inner + frames
        cancelled = cancelled.__context__
    return frames


def _user_frames(tb: types.TracebackType | None) -> list[tuple[types.FrameType, int]]:
    frames = []
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames[::-1]


def raised_by_the_program(exc: BaseException) -> bool:
    """Whether the program raised EXC itself (`raise KeyboardInterrupt`): then nothing was
    interrupted."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or not is_user_file(tb.tb_frame.f_code.co_filename):
        return False  # raised in a library (the watchdog's own handler): it interrupted the program
    tree = parse_source("\n".join(source_lines(tb.tb_frame.f_code.co_filename, tb.tb_frame.f_globals)))
    return tree is not None and any(isinstance(node, ast.Raise) and node.lineno == tb.tb_lineno
                                    for node in module_nodes(tree))


def where_it_was(exc: BaseException, interrupted_by: str, *,
                 others: dict[int, tuple[str, list[tuple[types.FrameType, int]]]],
                 tasks: list[tuple[object, list[tuple[types.FrameType, int]], object]] = ()) -> Hang:
    """Where the program was when EXC interrupted it: the interrupted thread's stack (from EXC's
    traceback) and those of the OTHERS (thread_stacks() of the other threads), its innermost loop,
    and any recursion; and asyncio's TASKS as asyncio.run's Ctrl-C handler found them (each task,
    its frames outermost first, what it awaited)."""
    interrupted = interrupted_frames(exc)
    stacks = [("interrupted thread", interrupted)]
    stacks += [(name, stack) for name, stack in others.values() if stack]
    hang = Hang(interrupted_by=interrupted_by, ran_seconds=ran_seconds(),
                threads=[_thread_stack(name, stack) for name, stack in stacks])
    for task, frames, waiter in tasks:
        stack = [(f, line) for f, line in frames[::-1] if is_user_file(f.f_code.co_filename)]
        if stack:
            hang.threads.append(_thread_stack(f"task {task.get_name()}", stack))
            hang.threads[-1].awaits = _awaited(waiter)
    hang.locks, hang.blocked = lock_waits(stacks, others_running=bool(others))
    if interrupted:
        frame, line = interrupted[0]
        hang.loop = innermost_loop(frame, line)
        hang.recursion = recursion(interrupted)
    return hang


def thread_stacks(leave_out: set[int]) -> dict[int, tuple[str, list[tuple[types.FrameType, int]]]]:
    """Every thread but LEAVE_OUT's: its name and its user frames, innermost first, with the lines
    they are at now. A watchdog takes them as it interrupts the program: by the time the crash
    handler runs, the interrupted thread's `with` blocks have let go of its locks and the threads
    it blocked went on."""
    threading = sys.modules.get("threading")  # not imported for this: a program without threads has one
    names = {t.ident: t.name for t in threading.enumerate()} if threading is not None else {}
    return {ident: (names.get(ident, f"thread {ident}"),
                    [(f, f.f_lineno) for f in _outward(frame) if is_user_file(f.f_code.co_filename)])
            for ident, frame in sys._current_frames().items() if ident not in leave_out}


def _awaited(waiter) -> str:
    """What a task awaited (its future, pending when it was looked at): another task, a gather of
    tasks, or a future of its own."""
    if waiter is None:
        return ""
    if hasattr(waiter, "get_coro"):
        return f"task {waiter.get_name()}"
    children = getattr(waiter, "_children", None)  # asyncio.gather's future
    if isinstance(children, list):
        return "gather(" + ", ".join(f"task {c.get_name()}" if hasattr(c, "get_coro") else type(c).__name__
                                     for c in children) + ")"
    return f"a {type(waiter).__name__} nobody had set yet"


def ran_seconds() -> float | None:
    """How long this process has run: from its start time in /proc; else its CPU time."""
    try:
        with open("/proc/self/stat", "rb") as f:
            started = int(f.read().rsplit(b")", 1)[1].split()[19])  # field 22, after pid and (comm)
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        return round(uptime - started / os.sysconf("SC_CLK_TCK"), 2)
    except (OSError, ValueError, IndexError):
        return round(time.process_time(), 2)


def _outward(frame: types.FrameType | None):
    while frame is not None:
        yield frame
        frame = frame.f_back


def _thread_stack(name: str, stack: list[tuple[types.FrameType, int]]) -> ThreadStack:
    frames = [f"{display_path(f.f_code.co_filename)}:{line} in {f.f_code.co_name}" for f, line in stack[:MAX_STACK]]
    if len(stack) > MAX_STACK:
        frames.append(f"... {len(stack) - MAX_STACK} more")
    code = ""
    if stack:
        lines = source_lines(stack[0][0].f_code.co_filename, stack[0][0].f_globals)
        code = lines[stack[0][1] - 1].strip() if 0 < stack[0][1] <= len(lines) else ""
    return ThreadStack(thread=name, frames=frames, code=code)


def loop_node(frame: types.FrameType, line: int) -> ast.For | ast.While | None:
    """The innermost `for` or `while` of FRAME's function that holds LINE."""
    text = "\n".join(source_lines(frame.f_code.co_filename, frame.f_globals))
    tree = parse_source(text)
    if tree is None:
        return None
    first, last = function_span(text, line) or (1, len(text.splitlines()))
    loops = [node for node in module_nodes(tree) if isinstance(node, (ast.For, ast.While))
             and first <= node.lineno and node.end_lineno <= last and node.lineno <= line <= node.end_lineno]
    return max(loops, key=lambda node: node.lineno, default=None)  # breadth first: the innermost starts last


def loop_names(node: ast.For | ast.While) -> tuple[list[str], list[str]]:
    """(the names the loop's header reads, every name the loop uses), in source order; of the
    header's, those the loop assigns first (what should move it on)."""
    header = [node.test] if isinstance(node, ast.While) else [node.target, node.iter]
    in_header = list(dict.fromkeys(n.id for part in header for n in ast.walk(part) if isinstance(n, ast.Name)))
    assigned = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    used = list(dict.fromkeys(n.id for n in ast.walk(node) if isinstance(n, ast.Name)))
    return sorted(in_header, key=lambda name: name not in assigned), used


def state_names(frame: types.FrameType, names: list[str]) -> list[str]:
    """Of NAMES, those that hold the loop's state in FRAME: values, not functions, classes or modules."""
    kept = []
    for name in names:
        value = frame.f_locals.get(name, frame.f_globals.get(name, _MISSING))
        if value is not _MISSING and not isinstance(value, _NOT_STATE):
            kept.append(name)
    return kept[:MAX_NAMES]


def innermost_loop(frame: types.FrameType, line: int) -> Loop | None:
    node = loop_node(frame, line)
    if node is None:
        return None
    in_header, used = loop_names(node)
    names = state_names(frame, used)
    lines = source_lines(frame.f_code.co_filename, frame.f_globals)
    loop = Loop(file=frame.f_code.co_filename, display_file=display_path(frame.f_code.co_filename), line=node.lineno,
                header=lines[node.lineno - 1].strip(), condition_names=[n for n in in_header if n in names],
                values={name: cut(safe_repr(_value(frame, name)), VALUE_CHARS) for name in names})
    if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
        loop.iteration, loop.total = _range_position(frame, node)
    return loop


def _value(frame: types.FrameType, name: str):
    return frame.f_locals[name] if name in frame.f_locals else frame.f_globals.get(name)


def _range_position(frame: types.FrameType, node: ast.For) -> tuple[int | None, int | None]:
    """(which iteration, of how many) a `for NAME in range(...)` was in, from NAME's value."""
    if not (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range"):
        return None, None
    try:  # the safe evaluator: range() and len() of the frame's values, no program code
        steps = Evaluator(dict(frame.f_locals), frame.f_globals).evaluate(ast.unparse(node.iter))
    except Exception:  # Refused, or the range's own error
        return None, None
    value = frame.f_locals.get(node.target.id)
    if not isinstance(steps, range) or not isinstance(value, int) or value not in steps:
        return None, None
    return steps.index(value) + 1, len(steps)


def recursion(stack: list[tuple[types.FrameType, int]]) -> Recursion | None:
    """The innermost function of STACK that calls itself (it may have called others since: `head()`
    under `resolve()`), with the arguments every one of its calls had."""
    counts: dict[types.CodeType, int] = {}
    for frame, _ in stack:
        counts[frame.f_code] = counts.get(frame.f_code, 0) + 1
    code = next((c for c, n in counts.items() if n >= 3), None)  # dicts keep order: innermost first
    if code is None:
        return None
    calls = [frame for frame, _ in stack if frame.f_code is code]
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    seen = [tuple(_state_text(frame.f_locals.get(p)) for p in params) for frame in calls]
    unchanged = {p: seen[0][i] for i, p in enumerate(params) if all(args[i] == seen[0][i] for args in seen)}
    return Recursion(function=code.co_name, depth=len(calls), unchanged=unchanged,
                     repeated=bool(params) and len(set(seen)) < len(seen))


def _state_text(value) -> str:
    """VALUE as compared between iterations: its repr, and a container's size (a repr is cut)."""
    text = cut(safe_repr(value), VALUE_CHARS)
    if isinstance(value, (list, dict, set, tuple, str, bytes, bytearray)):
        text += f" ({len(value)} long)"  # builtins only: len() runs no program code
    return text


# --- threads: who held which lock, who waited on what ------------------------------------------

# What a blocked line waits on: the method called on it (`lines.get()`, `done.wait()`, `lock.acquire()`).
_WAITING_CALLS = ("acquire", "get", "put", "join", "wait", "wait_for")
# Objects waited on or held: threading's and queue's, told apart by their type's name and module
# (no import of threading for this: a program without threads has not loaded it).
_SYNC_TYPES = {("_thread", "lock"), ("_thread", "RLock"), ("threading", "RLock"), ("threading", "_RLock"),
               ("threading", "Condition"), ("threading", "Semaphore"), ("threading", "BoundedSemaphore"),
               ("threading", "Event"), ("threading", "Barrier"), ("queue", "Queue"), ("queue", "LifoQueue"),
               ("queue", "PriorityQueue"), ("queue", "SimpleQueue"), ("_queue", "SimpleQueue")}
_HELD_TYPES = {"lock", "RLock", "_RLock", "Condition", "Semaphore", "BoundedSemaphore"}


def _sync_kind(value) -> str | None:
    kind = type(value)
    return kind.__name__ if (kind.__module__, kind.__name__) in _SYNC_TYPES else None


def lock_waits(stacks: list[tuple[str, list[tuple[types.FrameType, int]]]], *,
               others_running: bool) -> tuple[list[LockWait], str]:
    """For each thread of STACKS (its name, its user frames innermost first): the locks it held
    (its lines inside `with L:` blocks, L evaluated from the frame's names without running program
    code) and what its innermost line waited on; and, when the waits form a cycle, the deadlock in
    one line -- or, when the interrupted thread waited on a queue, event or condition and
    OTHERS_RUNNING is false (no other thread at all), that nothing could end its wait. An object
    seen more than once is labelled (lock A, lock B): the threads' expressions for it may differ,
    or be the same for different objects."""
    found = []  # (thread, [(object, expression, where)] held, (object, expression, where) | None waited)
    for name, stack in stacks:
        waits = _waited_on(*stack[0]) if stack else None
        # a thread waiting on a Condition it is inside `with` of is in its wait(), which let go of it
        holds = [held for frame, line in stack for held in _held(frame, line)
                 if not (waits and held[0] is waits[0] and _sync_kind(held[0]) == "Condition")]
        if holds or waits:
            found.append((name, holds, waits))
    seen = [id(obj) for _, holds, waits in found for obj, _, _ in holds + ([waits] if waits else [])]
    shared = list(dict.fromkeys(i for i in seen if seen.count(i) > 1))
    labels = {i: f"lock {chr(ord('A') + n)}, " for n, i in enumerate(shared[:26])}

    def text(entry, held: bool) -> str:
        obj, expr, where = entry
        return f"`{expr}` ({labels.get(id(obj), '')}{'with at ' if held else ''}{where})"

    records = [LockWait(thread=name, holds=[text(h, True) for h in holds], waits_for=text(waits, False) if waits else "")
               for name, holds, waits in found]
    holder = {id(obj): name for name, holds, _ in found for obj, _, _ in holds}
    waiting = {name: waits for name, _, waits in found if waits is not None}
    for start in waiting:
        cycle, name = [], start
        while name in waiting and id(waiting[name][0]) in holder and name not in cycle:
            cycle.append(name)
            name = holder[id(waiting[name][0])]
        if cycle and name == start and (len(cycle) > 1 or _sync_kind(waiting[start][0]) == "lock"):  # a Lock is not re-entrant
            records_of = {r.thread: r for r in records}
            parts = [f"{n} holds {', '.join(records_of[n].holds)} and waits for {records_of[n].waits_for}" for n in cycle]
            return records, "deadlock: " + "; ".join(parts)
    lone = waiting.get(stacks[0][0]) if stacks else None
    if lone is not None and not others_running and _sync_kind(lone[0]) not in _HELD_TYPES:
        return records, (f"it waits in {text(lone, False)} on a {_sync_kind(lone[0])}, and no other thread "
                         f"is running: nothing can end the wait")
    return records, ""


def _function_nodes(frame: types.FrameType, line: int) -> list[ast.AST]:
    """The nodes of FRAME's function around LINE (of its module, at the top level)."""
    text = "\n".join(source_lines(frame.f_code.co_filename, frame.f_globals))
    tree = parse_source(text)
    if tree is None:
        return []
    first, last = function_span(text, line) or (1, text.count("\n") + 1)
    return [node for node in module_nodes(tree) if first <= getattr(node, "lineno", 0) <= last]


def _evaluated(frame: types.FrameType, node: ast.expr):
    try:  # the safe evaluator: names and attributes of the frame's values, no program code
        return Evaluator(dict(frame.f_locals), frame.f_globals).evaluate(ast.unparse(node))
    except Exception:  # Refused, or not there any more
        return None


def _held(frame: types.FrameType, line: int) -> list[tuple[object, str, str]]:
    """The locks FRAME held at LINE: those of the `with` blocks whose body holds LINE."""
    nodes = _function_nodes(frame, line)
    held = []
    for node in sorted((n for n in nodes if isinstance(n, (ast.With, ast.AsyncWith))), key=lambda n: n.lineno):
        if node.body[0].lineno <= line <= node.end_lineno:
            for item in node.items:
                value = _evaluated(frame, item.context_expr)
                if _sync_kind(value) in _HELD_TYPES:
                    held.append((value, ast.unparse(item.context_expr), f"{display_path(frame.f_code.co_filename)}:{node.lineno}"))
    return held


def _waited_on(frame: types.FrameType, line: int) -> tuple[object, str, str] | None:
    """What FRAME's LINE waited on: the lock of a `with L:` on that line, or the object of a
    `q.get()`, `lock.acquire()`, `done.wait()` there."""
    nodes = _function_nodes(frame, line)
    candidates = []  # (the object's expression, what is shown of the wait)
    for node in nodes:
        if isinstance(node, (ast.With, ast.AsyncWith)) and node.lineno <= line < node.body[0].lineno:
            candidates += [(item.context_expr, item.context_expr) for item in node.items if item.context_expr.lineno == line]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.lineno == line
              and node.func.attr in _WAITING_CALLS):
            candidates.append((node.func.value, node))
    for expr, shown in candidates:
        value = _evaluated(frame, expr)
        if _sync_kind(value) is not None:
            return value, ast.unparse(shown), f"{display_path(frame.f_code.co_filename)}:{line}"
    return None


# --- the loop run on: program code, in a probe only ------------------------------------------------

class _Enough(BaseException):
    """Raised from the tracer to stop the loop; a BaseException, so `except Exception` keeps no loop going."""


def run_loop_on(frame: types.FrameType, line: int, seconds: float = CHECK_SECONDS,
                max_lines: int = CHECK_LINES) -> LoopCheck:
    """Run the innermost loop around LINE on from FRAME's values (a fresh function made of the
    loop's own code, in FRAME's globals) under a line tracer, for SECONDS or MAX_LINES traced lines,
    and record at each iteration's start the value of each of the loop's names. The loop starts
    again at its head: the iteration the interruption cut short is run from its start."""
    node = loop_node(frame, line)
    if node is None:
        return LoopCheck(iterations=0, seconds=0.0, ended=False, changed={}, unchanged={}, repeated=False,
                         detail="no loop around the interrupted line")
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Nonlocal, ast.Global)) for n in ast.walk(node)):
        return LoopCheck(iterations=0, seconds=0.0, ended=False, changed={}, unchanged={}, repeated=False,
                         detail="the loop yields, awaits or rebinds outer names: it cannot run on its own")
    _, used = loop_names(node)
    names = state_names(frame, used)
    params = [n for n in used if n in frame.f_locals]
    run = _loop_function(node, frame, params)
    skipped = 1 if isinstance(node, ast.For) else 0  # a `for` starts over: its first state is the interrupted one
    states: list[tuple[str, ...]] = []
    traced = 0
    started = time.monotonic()

    def on_line(f, event, arg):
        nonlocal traced
        if event != "line":
            return on_line
        traced += 1
        if f.f_lineno == node.lineno:
            states.append(tuple(_state_text(f.f_locals[n] if n in f.f_locals else f.f_globals.get(n)) for n in names))
        if traced > max_lines or time.monotonic() - started > seconds:
            raise _Enough
        return on_line

    def on_call(f, event, arg):
        return on_line if f.f_code is run.__code__ else None  # the loop's own lines; not the calls it makes

    ended, detail = False, ""
    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        run(*(frame.f_locals[p] for p in params))
        ended = True
    except _Enough:
        pass
    except Exception as exc:  # the loop raised: it ended, otherwise than by its condition
        ended, detail = True, f"it raised {type(exc).__name__}"
    finally:
        sys.settrace(previous)
    return _check_of(names, states[skipped:], ended, time.monotonic() - started, detail)


def _loop_function(node: ast.For | ast.While, frame: types.FrameType, params: list[str]) -> types.FunctionType:
    """A function whose body is the loop NODE (its own line numbers), taking PARAMS, in FRAME's globals."""
    tree = ast.parse(f"def _autodbg_loop({', '.join(params)}):\n    pass\n")
    tree.body[0].body = [node]
    code = compile(tree, frame.f_code.co_filename, "exec")
    function_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    return types.FunctionType(function_code, frame.f_globals)


def _check_of(names: list[str], states: list[tuple[str, ...]], ended: bool, seconds: float, detail: str) -> LoopCheck:
    changed, unchanged = {}, {}
    for i, name in enumerate(names):
        values = list(dict.fromkeys(state[i] for state in states))
        if len(values) > 1:
            changed[name] = values[:MAX_VALUES]
        elif values:
            unchanged[name] = values[0]
    return LoopCheck(iterations=max(0, len(states) - 1), seconds=round(seconds, 3), ended=ended, changed=changed,
                     unchanged=unchanged, repeated=len(set(states)) < len(states), detail=detail)


# --- the verdict -------------------------------------------------------------------------------------

def verdict(hang: Hang) -> tuple[bool, str]:
    """(was the program stuck, one line saying why or why not)."""
    if hang.blocked:
        return True, f"stuck: {hang.blocked}"
    r = hang.recursion
    if r is not None and r.repeated:
        same = ", ".join(f"`{k}` stays {v}" for k, v in r.unchanged.items()) or "its arguments come back"
        return True, f"stuck: {r.function}() calls itself {r.depth} deep and its arguments do not shrink: {same}"
    check, loop = hang.check, hang.loop
    waited = next((w.waits_for for w in hang.locks if w.thread == "interrupted thread" and w.waits_for), "")
    if loop is None and waited:
        return False, (f"could not tell whether it was stuck: it waited for {waited}, and no thread seen after "
                       f"the interruption held it")
    if loop is None:
        return False, "no loop of your code around the interrupted line"
    if check is None or check.detail and not check.ended:
        return False, f"could not tell whether it was stuck ({check.detail if check else 'the loop was not run on'})"
    if check.ended:
        how = f" ({check.detail})" if check.detail else ""
        return False, f"not stuck: run on, `{loop.header.rstrip(':')}` ended after {check.iterations:,} more iterations{how}"
    if check.iterations < 2:
        return False, f"could not tell whether it was stuck: one iteration took longer than {check.seconds:g} s"
    header = f"`{loop.header.rstrip(':')}`"
    frozen = [name for name in loop.condition_names if name in check.unchanged]
    if loop.condition_names and len(frozen) == len(loop.condition_names):
        stays = " and ".join(f"`{name}` stays {check.unchanged[name]}" for name in frozen[:1])  # the one the loop assigns, where it does
        return True, f"stuck: {stays} and {header} never changes over {check.iterations:,} iterations"
    if check.repeated:
        return True, f"stuck: the loop's state comes back unchanged ({header}, {check.iterations:,} iterations)"
    moving = "; ".join(f"`{name}` went {' → '.join(values)}" for name, values in list(check.changed.items())[:3])
    return False, f"not stuck: {moving} over {check.iterations:,} iterations: it was still working"
