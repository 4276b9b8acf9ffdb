"""`autodbg run`: run a program with autodbg active, without installing anything.

With --interactive, the crash ends at an `(autodbg)` prompt that takes the same commands the
model uses, and pdb's names for them (read from a pipe too, so sessions can be scripted).
"""

from __future__ import annotations

import argparse
import os
import sys

from autodbg.errors import AutodbgError
from autodbg.textsafe import say

HISTORY_LINES = 1000  # of the prompt's history kept between sessions


def register(sub) -> None:
    p = sub.add_parser("run", help="run a program with autodbg active (no install needed)",
                       description="Run SCRIPT (or -m MODULE) with autodbg active; on a crash print "
                                   "the traceback, then autodbg's report.")
    p.add_argument("-i", "--interactive", action="store_true",
                   help="after the report, open an (autodbg) prompt on the crash")
    p.add_argument("--no-rerun", action="store_true",
                   help="never run the program again (no `rerun`, no fix verification): its side effects happen once")
    p.add_argument("--hang-after", type=float, metavar="SECONDS",
                   help="interrupt the program after SECONDS, as Ctrl-C would, and say where it was stuck")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="after the traceback, all the evidence and the model's transcript (as AUTODBG_VERBOSE=1)")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a module, like python -m")
    p.add_argument("argv", nargs=argparse.REMAINDER, metavar="SCRIPT [ARGS...]")
    p.set_defaults(func=run_command)


def run_command(args) -> int:
    from autodbg.program.target import Program, RecordingStdin, exit_status, print_user_traceback, run_program
    from autodbg.settings import turned_off

    if args.module is None and not args.argv:
        raise AutodbgError("autodbg run needs a SCRIPT or -m MODULE")
    if args.module is None and not os.path.isfile(args.argv[0]):
        raise AutodbgError(f"no such script: {args.argv[0]}")
    program = Program.of_module(args.module, args.argv) if args.module else Program.script(args.argv)
    watchdog = Watchdog(args.hang_after) if args.hang_after is not None else None
    real_stdin, sys.stdin = sys.stdin, RecordingStdin(sys.stdin)
    try:
        exc = run_program(program)
    finally:
        program.stdin, sys.stdin = sys.stdin.text, real_stdin
        if watchdog is not None:
            watchdog.cancel()
    if exc is None or isinstance(exc, SystemExit):
        return exit_status(exc)
    if program.module is not None and isinstance(exc, ImportError) and exc.__traceback__ is None:
        message = str(exc)  # runpy's: no such module, or a package without __main__; nothing of the program ran
        raise AutodbgError(message[:1].lower() + message[1:])
    print_user_traceback(exc)
    if turned_off():  # AUTODBG=0: just the traceback, as plain python
        return exit_status(exc)
    fired = watchdog is not None and watchdog.fired
    investigate_crash(exc, program, rerun_allowed=not args.no_rerun, interactive=args.interactive,
                      interrupted_by=f"--hang-after {args.hang_after:g}" if fired else "Ctrl-C",
                      threads=watchdog.threads if fired else None, verbose=args.verbose)
    return exit_status(exc)


class Watchdog:
    """Interrupts the main thread after SECONDS as Ctrl-C does: SIGINT sent to that thread, so a
    blocking call there (a sleep, a wait) is woken too, and the program's own SIGINT handler runs."""

    def __init__(self, seconds: float) -> None:
        import threading

        self.fired = False
        self.threads: dict[int, list] = {}  # every thread's stack as it fired (autodbg.analysis.hang)
        self.main = threading.main_thread().ident
        self.timer = threading.Timer(seconds, self._interrupt)
        self.timer.daemon = True
        self.timer.start()

    def _interrupt(self) -> None:
        import signal
        import threading

        from autodbg.analysis.hang import thread_stacks

        self.threads = thread_stacks({threading.get_ident()})
        self.fired = True
        signal.pthread_kill(self.main, signal.SIGINT)

    def cancel(self) -> None:
        self.timer.cancel()


def investigate_crash(exc: BaseException, program, *, rerun_allowed: bool, interactive: bool,
                      interrupted_by: str = "Ctrl-C", threads: dict[int, list] | None = None,
                      verbose: bool = False) -> None:
    import dataclasses

    from autodbg.pipeline import explain, handle_crash
    from autodbg.crash import CrashSession
    from autodbg.program.rerun import RERUN_BUDGET, Rerun
    from autodbg.settings import load_settings

    settings = load_settings()
    if verbose:
        settings = dataclasses.replace(settings, verbose=True)
    rerun = Rerun(program, budget=min(RERUN_BUDGET, settings.timeout), probes=settings.probe) if rerun_allowed else None
    session = CrashSession.of_crash(exc, probes=settings.probe, explain=explain, rerun=rerun, redact=settings.redact)
    try:
        handle_crash(exc, session=session, settings=settings, interrupted_by=interrupted_by, threads=threads)
        if interactive:
            interact(session)
    finally:
        if rerun is not None:
            rerun.stop()


def interact(session) -> None:
    """The (autodbg) prompt. A terminal gets readline's line editing and the history of earlier
    sessions, and an empty line repeats the last command, as in pdb; a pipe is read line by line
    and echoed."""
    tty = sys.stdin.isatty()
    readline = _readline_with_history() if tty else None
    say("autodbg: interactive post-mortem; `help` lists the commands, `quit` leaves.")
    last = ""
    try:
        while True:
            try:
                if tty:
                    line = input("(autodbg) ")
                else:
                    line = sys.stdin.readline()
                    if not line:
                        break
                    line = line.strip()
                    say(f"(autodbg) {line}")
            except EOFError:
                break
            except KeyboardInterrupt:
                say("")
                continue
            if not line.strip():
                if not (tty and last):
                    continue
                line = last
            last = line
            result = session.execute(line)
            if result.output:
                say(result.output)
            if result.ends_session:
                break
            sys.stdout.flush()
    finally:
        if readline is not None:
            _save_history(readline)


def _readline_with_history():
    """readline (input()'s line editing) holding the prompt's saved history; None where Python
    has no readline (Windows)."""
    try:
        import readline
    except ImportError:
        return None
    from autodbg.files import history_file

    readline.clear_history()  # not the lines the program itself typed into input()
    readline.set_history_length(HISTORY_LINES)
    try:
        readline.read_history_file(history_file())
    except OSError:  # the first session, or an unreadable file: start without
        pass
    return readline


def _save_history(readline) -> None:
    from autodbg.files import history_file

    path = history_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the commands may name secrets
        readline.write_history_file(path)  # the last HISTORY_LINES lines
    except OSError:  # the history is a convenience: a read-only home loses it, nothing else
        pass
