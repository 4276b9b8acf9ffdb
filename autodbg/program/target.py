"""Run the program as `python SCRIPT ARGS` or `python -m MODULE ARGS` would, in this process.

The same code runs the first run under `autodbg run` and every re-run in the tracer child, so
they see the same argv, sys.path, __main__ and exit status.
"""

from __future__ import annotations

import builtins
import os
import runpy
import sys
import traceback
import types
from dataclasses import dataclass


@dataclass
class Program:
    """How the first run was started: enough to start it again the same way."""

    module: str | None  # -m MODULE, else None for a script
    argv: list[str]  # sys.argv as the program sees it (the script as typed, or the module, then arguments)
    cwd: str
    stdin: str = ""  # what the first run read from stdin, replayed

    @classmethod
    def script(cls, argv: list[str]) -> "Program":
        return cls(None, list(argv), os.getcwd())

    @classmethod
    def of_module(cls, module: str, args: list[str]) -> "Program":
        return cls(module, [module, *args], os.getcwd())

    @property
    def command(self) -> list[str]:
        return [sys.executable, "-m", self.module, *self.argv[1:]] if self.module else [sys.executable, *self.argv]

    @property
    def root(self) -> str:
        """The program's folder: the script's, or for a module the working directory."""
        return os.path.dirname(os.path.abspath(self.argv[0])) if self.module is None else self.cwd


def run_program(program: Program) -> BaseException | None:
    """Run PROGRAM here; return what ended it, if anything."""
    sys.argv = list(program.argv)
    sys.path.insert(0, program.cwd if program.module else program.root)
    try:
        if program.module is not None:
            runpy.run_module(program.module, run_name="__main__", alter_sys=True)
        else:
            run_script(os.path.abspath(program.argv[0]))
    except BaseException as exc:  # everything the program raises is the program's outcome
        exc.__traceback__ = _without_our_frames(exc.__traceback__)
        return exc
    return None


def run_script(path: str) -> None:
    """Run PATH as `python PATH` does: in a fresh __main__, compiled with its absolute path,
    sys.argv left as given (runpy.run_path would rewrite argv[0])."""
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __builtins__=builtins, __cached__=None)
    sys.modules["__main__"] = main
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    exec(code, main.__dict__)


def _without_our_frames(tb):
    """Drop the leading runpy/autodbg frames so the traceback reads as under plain `python`: none
    at all when only they ran (a script that does not compile)."""
    ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the autodbg package
    runpy_file = os.path.abspath(runpy.__file__)
    while tb is not None:
        filename = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not (filename.startswith(ours + os.sep) or filename == runpy_file or "<frozen runpy>" in filename):
            break
        tb = tb.tb_next
    return tb


def exit_status(exc: BaseException | None) -> int:
    """The status `python` exits with when EXC ended the program (None: it finished)."""
    if exc is None:
        return 0
    if isinstance(exc, KeyboardInterrupt):
        return 130
    if not isinstance(exc, SystemExit):
        return 1
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def print_user_traceback(exc: BaseException) -> None:
    """The program's own excepthook if it set one, else Python's standard traceback."""
    hook = sys.excepthook
    while getattr(hook, "_autodbg", False):  # the start-up hook's: the one it wraps prints the traceback
        hook = hook.__wrapped__
    try:
        hook(type(exc), exc, exc.__traceback__)
    except Exception:
        traceback.print_exception(type(exc), exc, exc.__traceback__)
    sys.stderr.flush()


class RecordingStdin:
    """sys.stdin for the first run: reads pass through and are kept for the re-runs."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.recorded: list[str] = []

    def read(self, *args):
        return self._keep(self._stream.read(*args))

    def readline(self, *args):
        return self._keep(self._stream.readline(*args))

    def readlines(self, *args):
        lines = self._stream.readlines(*args)
        self.recorded.extend(lines)
        return lines

    def __iter__(self):
        for line in self._stream:
            yield self._keep(line)

    def fileno(self):
        # input() on a terminal would read the terminal directly, past this recorder.
        if self._stream.isatty():
            raise OSError("stdin is recorded")
        return self._stream.fileno()

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def _keep(self, data):
        self.recorded.append(data)
        return data

    @property
    def text(self) -> str:
        return "".join(self.recorded)
