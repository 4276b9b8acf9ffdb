"""The post-mortem debugger: a `bdb.Bdb` attached to a crash's tracebacks.

It holds the exception chain, the stack of the selected exception and the current frame, and
tells user frames from library frames. It knows nothing of commands or models.
"""

from __future__ import annotations

import __future__
import bdb
import builtins
import functools
import inspect
import linecache
import operator
import os
import re
import sys
import sysconfig
import types
from dataclasses import dataclass
from typing import Callable

MAX_CHAIN = 64


@dataclass
class ChainedException:
    """One exception of the crash's chain and how it relates to the others."""

    exc: BaseException
    relation: str  # "raised", "cause of #N", "context of #N", "member K of group #N"

    @property
    def title(self) -> str:
        return exception_title(self.exc)


def exception_title(exc: BaseException) -> str:
    name = type(exc).__qualname__
    module = type(exc).__module__
    if module not in ("builtins", "__main__"):
        name = f"{module}.{name}"
    try:
        message = str(exc)
    except Exception:
        message = "<str() failed>"
    return f"{name}: {message}" if message else name


def exception_chain(exc: BaseException) -> tuple[list[ChainedException], int]:
    """The chain in the order Python prints it (earliest first), and the index of EXC.

    Follows `__cause__`, else `__context__` unless suppressed, and the members of exception
    groups; cycle-safe and bounded.
    """
    chain: list[ChainedException] = []
    seen: set[int] = set()

    def add(e: BaseException, relation: str) -> int:
        seen.add(id(e))
        before = e.__cause__ or (None if e.__suppress_context__ else e.__context__)
        if before is not None and id(before) not in seen and len(chain) < MAX_CHAIN:
            kind = "cause" if e.__cause__ is not None else "context"
            slot = add(before, "")
            chain[slot].relation = f"{kind} of #{len(chain)}"
        chain.append(ChainedException(e, relation))
        index = len(chain) - 1
        for k, member in enumerate(getattr(e, "exceptions", ()) if _is_group(e) else ()):
            if id(member) not in seen and len(chain) < MAX_CHAIN:
                add(member, f"member {k} of group #{index}")
        return index

    top = add(exc, "raised")
    return chain, top


def _is_group(exc: BaseException) -> bool:
    return isinstance(exc, getattr(builtins, "BaseExceptionGroup", ()))  # 3.11+


def _library_roots() -> tuple[str, ...]:
    roots = {sysconfig.get_path(p) for p in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # autodbg itself
    return tuple(os.path.normcase(os.path.realpath(r)) + os.sep for r in roots if r)


_LIBRARY_ROOTS = _library_roots()


def is_user_file(filename: str) -> bool:
    """User code is anything not in the standard library, site-packages, or autodbg itself."""
    if filename.startswith("<"):
        return filename in ("<string>", "<stdin>") or filename.startswith(("<python-input", "<ipython-input-"))
    path = os.path.normcase(os.path.realpath(filename))
    if "site-packages" in path or "dist-packages" in path:
        return False
    return not path.startswith(_LIBRARY_ROOTS)


def is_test_file(filename: str) -> bool:
    """Whether FILENAME is a test (test_*.py, *_test.py, test.py, tests.py, conftest.py, or under a
    tests/ folder): what judges a fix, never what a fix may change."""
    name = os.path.basename(filename)
    parts = os.path.normpath(filename).split(os.sep)[:-1]
    return (name.endswith(".py") and (name.startswith("test_") or name[:-3].endswith("_test")
                                      or name in ("test.py", "tests.py", "conftest.py"))
            or "tests" in parts)


@dataclass
class FrameEntry:
    """One frame of the selected stack, numbered from the outermost (0), as in pdb."""

    index: int
    frame: types.FrameType
    lineno: int

    @property
    def filename(self) -> str:
        return self.frame.f_code.co_filename

    @property
    def function(self) -> str:
        return self.frame.f_code.co_name

    @property
    def is_user(self) -> bool:
        return is_user_file(self.filename)

    @property
    def location(self) -> str:
        return f"{file_line(display_path(self.filename), self.lineno)} in {self.function}"


_file_namer: Callable[[str], str | None] | None = None
CELL_NAME = re.compile(r"Cell In\[\d+\]")  # IPython's name of a cell


def name_files(namer: Callable[[str], str | None] | None) -> None:
    """Show files by the name NAMER gives them (None: a file it does not name): the IPython
    extension names its cells `Cell In[N]`, as IPython does. None: no names."""
    global _file_namer
    _file_namer = namer


def display_path(filename: str) -> str:
    """A file as the user knows it: a notebook cell by its name, a path under the working directory
    relative to it."""
    named = _file_namer(filename) if _file_namer is not None else None
    if named is not None:
        return named
    if filename.startswith("<"):
        return filename
    try:
        rel = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if rel.startswith("..") else rel


def file_line(display_file: str, line: int) -> str:
    """Where LINE of a file (named by display_path) is, as the user's tools say it: `app.py:3`,
    and for a cell as IPython does, `Cell In[2], line 3`."""
    return f"{display_file}, line {line}" if CELL_NAME.fullmatch(display_file) else f"{display_file}:{line}"


class Inspector(bdb.Bdb):
    """Frames to look at and which one is current: shared by the post-mortem and by a live stop
    at a breakpoint of a re-run. It inspects; it never changes the program's state."""

    def __init__(self) -> None:
        super().__init__()
        self.chain: list[ChainedException] = []
        self.top_exception = self.exception_index = -1  # -1: no exception (a live stop)
        self.stack: list[FrameEntry] = []
        self.curindex = 0

    def set_stack(self, frame: types.FrameType | None, tb: types.TracebackType | None) -> None:
        """Take the stack of FRAME (a live stop) or of TB (a traceback); select its innermost
        user frame."""
        raw, _ = self.get_stack(frame, tb)
        # With a traceback, get_stack's line numbers are the lines that were executing, also for
        # frames that kept running afterwards (the module in an `except`).
        self.stack = [FrameEntry(i, f, lineno) for i, (f, lineno) in enumerate(raw)]
        users = self.user_indexes()
        self.curindex = users[-1] if users else self.crash_index

    @property
    def crash_index(self) -> int:
        return len(self.stack) - 1

    @property
    def current(self) -> FrameEntry:
        return self.stack[self.curindex]

    def user_indexes(self) -> list[int]:
        return [e.index for e in self.stack if e.is_user]

    def select_frame(self, index: int) -> FrameEntry:
        if not 0 <= index < len(self.stack):
            raise ValueError(f"no frame {index}: frames are 0..{len(self.stack) - 1}")
        self.curindex = index
        return self.current

    def all_frames(self):
        """Every frame of every exception in the chain, and of the stack (each once)."""
        seen = set()
        frames = [e.frame for e in self.stack]
        for chained in self.chain:
            tb = chained.exc.__traceback__
            while tb is not None:
                frames.append(tb.tb_frame)
                tb = tb.tb_next
        for frame in frames:
            if id(frame) not in seen:
                seen.add(id(frame))
                yield frame

    def source_lines(self, entry: FrameEntry | None = None) -> list[str]:
        return frame_source_lines((entry or self.current).frame)


class PostMortem(Inspector):
    """A debugger attached to a finished crash: the exception chain and its tracebacks."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.chain, self.top_exception = exception_chain(exc)
        self.select_exception(self.top_exception)

    @property
    def exception(self) -> BaseException:
        return self.chain[self.exception_index].exc

    def select_exception(self, index: int) -> None:
        """Make exception INDEX of the chain current, at its innermost user frame."""
        exc = self.chain[index].exc
        if exc.__traceback__ is None:
            raise ValueError(f"exception #{index} was never raised, so it has no frames")
        self.reset()
        self.set_stack(None, exc.__traceback__)
        self.exception_index = index


def source_lines(filename: str, module_globals: dict | None = None) -> list[str]:
    """The file's lines (without newlines); none for STRING, whose name says not which string it was
    (frame_source_lines can tell)."""
    if filename == STRING:
        return []
    return [line.rstrip("\r\n") for line in linecache.getlines(filename, module_globals)]


STRING = "<string>"  # the name of code compiled from a string: exec, eval, compile, python -c
MAX_STRING = 200_000  # characters of a string tried as a frame's source
MAX_CALLERS = 50  # frames looked through for the string a frame's code was compiled from
_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                                for name in __future__.all_feature_names))


def frame_source_lines(frame: types.FrameType, module_globals: bool = True) -> list[str]:
    """The lines of FRAME's source: its file's (read with its module's loader when MODULE_GLOBALS);
    for code compiled from a string, the string that compiles to this very code, where one is found
    (the `python -c` argument, linecache, the strings the frame and its callers name), else none:
    `exec` names all its strings alike, and another string's lines would be the wrong ones."""
    code = frame.f_code
    if code.co_filename != STRING:
        return source_lines(code.co_filename, frame.f_globals if module_globals else None)
    for text in _strings_near(frame):
        if _compiles_to(text, code):
            return [line.rstrip("\r\n") for line in text.splitlines()]
    return []


def _strings_near(frame: types.FrameType):
    """Strings FRAME's code may have been compiled from, read without running any program code."""
    argv = getattr(sys, "orig_argv", [])
    if "-c" in argv[:-1]:
        yield argv[argv.index("-c") + 1]
    yield "".join(linecache.getlines(STRING))  # what a tool put there (a name not a file's is never read)
    caller = frame
    for _ in range(MAX_CALLERS):
        if caller is None:
            return
        code = caller.f_code
        scopes = [caller.f_locals, caller.f_globals] if code.co_flags & inspect.CO_OPTIMIZED else [caller.f_globals]
        for name in dict.fromkeys(code.co_varnames + code.co_cellvars + code.co_freevars + code.co_names):
            for scope in scopes:
                value = dict.get(scope, name) if isinstance(scope, dict) else None  # no mapping's own code
                if type(value) is str and len(value) <= MAX_STRING:
                    yield value
        yield from (c for c in code.co_consts if type(c) is str and len(c) <= MAX_STRING)
        caller = caller.f_back


def _compiles_to(text: str, code: types.CodeType) -> bool:
    """Whether TEXT, compiled as `exec` or `eval` would, holds CODE (equal code is the same
    instructions at the same lines)."""
    for mode in ("exec", "eval"):
        try:
            compiled = compile(text, STRING, mode, flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
        except Exception:  # not Python, or not of this mode
            continue
        if _holds(compiled, code):
            return True
    return False


def _holds(compiled: types.CodeType, code: types.CodeType) -> bool:
    return compiled == code or any(_holds(c, code) for c in compiled.co_consts if isinstance(c, types.CodeType))
