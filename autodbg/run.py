"""`autodbg run`: run a program with autodbg active, without installing anything.

With --interactive, the crash ends at an `(autodbg)` prompt that takes the same commands the
model uses (read from a pipe too, so sessions can be scripted).
"""

from __future__ import annotations

import argparse
import builtins
import os
import runpy
import sys
import traceback
import types

from autodbg.errors import AutodbgError
from autodbg.textsafe import terminal_safe


def register(sub) -> None:
    p = sub.add_parser("run", help="run a program with autodbg active (no install needed)",
                       description="Run SCRIPT (or -m MODULE) with autodbg active; on a crash print "
                                   "the traceback, then autodbg's report.")
    p.add_argument("-i", "--interactive", action="store_true",
                   help="after the report, open an (autodbg) prompt on the crash")
    p.add_argument("--no-rerun", action="store_true",
                   help="never run the program again (no `rerun`, no fix verification): its side effects happen once")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a module, like python -m")
    p.add_argument("argv", nargs=argparse.REMAINDER, metavar="SCRIPT [ARGS...]")
    p.set_defaults(func=run_command)


def run_command(args) -> int:
    if args.module is None and not args.argv:
        raise AutodbgError("autodbg run needs a SCRIPT or -m MODULE")
    if args.module is None and not os.path.isfile(args.argv[0]):
        raise AutodbgError(f"no such script: {args.argv[0]}")
    from autodbg.rerun import Program, RecordingStdin

    program = Program(args.module, [args.module, *args.argv] if args.module else list(args.argv), os.getcwd())
    real_stdin, sys.stdin = sys.stdin, RecordingStdin(sys.stdin)
    try:
        exc = run_program(args.module, args.argv)
    finally:
        program.stdin, sys.stdin = sys.stdin.text, real_stdin
    if exc is None:
        return 0
    if isinstance(exc, SystemExit):
        return exit_status(exc)
    print_user_traceback(exc)
    if isinstance(exc, KeyboardInterrupt):
        return 130
    if os.environ.get("AUTODBG") == "0":  # everything off: just the traceback, as plain python
        return 1
    from autodbg.crash import explain, handle_crash
    from autodbg.debugger.commands import Session
    from autodbg.debugger.core import PostMortem
    from autodbg.rerun import RERUN_BUDGET, Rerun
    from autodbg.settings import load_settings

    try:
        budget = min(RERUN_BUDGET, load_settings().timeout)
    except AutodbgError:
        budget = RERUN_BUDGET  # handle_crash reports the bad setting
    rerun = None if args.no_rerun else Rerun(program, budget=budget)
    session = Session(PostMortem(exc), explain=explain, rerun=rerun)
    try:
        handle_crash(exc, session=session)
        if args.interactive:
            interact(session)
    finally:
        if rerun is not None:
            rerun.stop()
    return 1


def run_program(module: str | None, argv: list[str]) -> BaseException | None:
    """Run the program as `python` would, in this process; return what ended it, if anything."""
    if module is not None:
        sys.argv = [module, *argv]
        sys.path.insert(0, os.getcwd())
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    try:
        if module is not None:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            run_script(os.path.abspath(argv[0]))
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
    """Drop the leading runpy/autodbg frames so the traceback reads as under plain `python`."""
    here = os.path.dirname(os.path.abspath(__file__))
    runpy_file = os.path.abspath(runpy.__file__)
    while tb is not None and tb.tb_next is not None:
        filename = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not (filename.startswith(here) or filename == runpy_file or "<frozen runpy>" in filename):
            break
        tb = tb.tb_next
    return tb


def exit_status(exc: SystemExit) -> int:
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
    if getattr(hook, "__module__", None) == "autodbg._boot":
        hook = sys.__excepthook__
    try:
        hook(type(exc), exc, exc.__traceback__)
    except Exception:
        traceback.print_exception(type(exc), exc, exc.__traceback__)
    sys.stderr.flush()


def interact(session) -> None:
    """The (autodbg) prompt: a terminal gets `input()`, a pipe is read line by line and echoed."""
    tty = sys.stdin.isatty()
    print("autodbg: interactive post-mortem; `help` lists the commands, `quit` leaves.")
    while True:
        try:
            if tty:
                line = input("(autodbg) ")
            else:
                line = sys.stdin.readline()
                if not line:
                    break
                line = line.strip()
                print(f"(autodbg) {line}")
        except EOFError:
            break
        except KeyboardInterrupt:
            print()
            continue
        if not line.strip():
            continue
        result = session.execute(line)
        if result.output:
            print(terminal_safe(result.output))
        if result.ends_session:
            break
        sys.stdout.flush()
