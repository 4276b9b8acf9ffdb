"""Going back in time: run the program again in a fresh subprocess under a `bdb` tracer, stop at
breakpoints, and inspect the live frames with the same commands as the post-mortem.

Only `autodbg run` can do this (it owns the program's start, argv, working directory and the
stdin it read); never the installed excepthook. Re-running repeats the program's side effects.

Parent and child talk over a pair of pipes, one JSON object per line:
  parent -> child: {"op": "command", "line"} | {"op": "break", <Breakpoint fields>} | {"op": "quit"}
  child -> parent: {"event": "stopped", "text", "file", "grammar"} | {"event": "output", "ok", "output",
                    "file"} | {"event": "ended", "text"}
"""

from __future__ import annotations

import bdb
import dataclasses
import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from autodbg.debugger.commands import Breakpoint, Session, bound_output
from autodbg.debugger.core import Inspector, display_path
from autodbg.debugger.safe_eval import Evaluator, Refused, TimeLimit, cut
from autodbg.files import is_inside, write_shared

MAX_HITS = 20  # breakpoint stops in one re-run
RERUN_BUDGET = 30.0  # seconds the program may run between two stops
RESUME = {"continue", "next", "step"}
_CHANNEL = "AUTODBG_RERUN_CHANNEL"  # "READ_FD,WRITE_FD" of the child's control pipes


@dataclass
class Program:
    """How the first run was started: enough to start it again the same way."""

    module: str | None
    argv: list[str]  # sys.argv as the program saw it (the script as typed, then its arguments)
    cwd: str
    stdin: str = ""  # what the first run read from stdin, replayed

    @property
    def command(self) -> list[str]:
        return [sys.executable, "-m", self.module, *self.argv[1:]] if self.module else [sys.executable, *self.argv]


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


@dataclass
class Rerun:
    """The parent's handle on re-runs of one program."""

    program: Program
    budget: float = RERUN_BUDGET
    breakpoints: list[Breakpoint] = field(default_factory=list)
    runs: int = 0
    stopped: bool = False
    grammar: str | None = None  # the step grammar of the live stop, built by the child
    file: str | None = None  # the live stop's current file
    where: str = ""  # how the live stop was described (where, and which hit)
    _process: subprocess.Popen | None = None
    _reader: object = None
    _writer: object = None
    _buffer: bytes = b""
    _output: object = None  # the re-run program's own stdout and stderr

    def add_breakpoint(self, breakpoint: Breakpoint) -> str:
        if breakpoint not in self.breakpoints:
            self.breakpoints.append(breakpoint)
        if self.stopped:
            self._send({"op": "break", **dataclasses.asdict(breakpoint)})
            self._receive(time.monotonic() + 10)
        number = self.breakpoints.index(breakpoint) + 1
        return f"breakpoint {number} at {breakpoint}" + ("" if self.stopped else " (takes effect at `rerun`)")

    def start(self) -> str:
        """Start the program again from the beginning; describe where it stopped or how it ended."""
        self.stop()
        self.runs += 1
        control_in, child_out = os.pipe()
        child_in, control_out = os.pipe()
        self._output = tempfile.TemporaryFile()
        stdin = tempfile.TemporaryFile()
        stdin.write(self.program.stdin.encode())
        stdin.seek(0)
        env = {**os.environ, "AUTODBG": "0", _CHANNEL: f"{child_in},{child_out}"}
        self._process = subprocess.Popen(
            [sys.executable, "-m", "autodbg.rerun"], cwd=self.program.cwd, env=env, stdin=stdin,
            stdout=self._output, stderr=self._output, pass_fds=(child_in, child_out), start_new_session=True)
        os.close(child_in)
        os.close(child_out)
        stdin.close()
        self._reader = os.fdopen(control_in, "rb", buffering=0)
        self._writer = os.fdopen(control_out, "w", buffering=1)
        self._send({"module": self.program.module, "argv": self.program.argv, "max_hits": MAX_HITS,
                    "breakpoints": [dataclasses.asdict(b) for b in self.breakpoints]})
        return f"re-run {self.runs} (side effects of the program happen again): " + self._await_event()

    def send(self, line: str) -> tuple[bool, str]:
        """Run LINE in the stopped re-run: an inspection command, or continue/next/step."""
        if line.split()[0] in RESUME:
            self._send({"op": "command", "line": line})
            return True, self._await_event()
        self._send({"op": "command", "line": line})
        reply = self._receive(time.monotonic() + 10)
        self.file = reply.get("file", self.file)
        return reply["ok"], reply["output"]

    def stop(self) -> None:
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            for stream in (self._reader, self._writer, self._output):
                try:
                    stream.close()
                except (OSError, AttributeError):
                    pass
        self._process, self._buffer, self.stopped, self.grammar = None, b"", False, None

    # --- channel -----------------------------------------------------------------------------

    def _await_event(self) -> str:
        """Wait while the program runs, until it stops at a breakpoint or ends."""
        try:
            event = self._receive(time.monotonic() + self.budget)
        except TimeoutError:
            self.stop()
            return f"the re-run ran past its {self.budget:g}s budget and was stopped"
        except EOFError:
            text = f"the re-run ended abruptly{self._program_output()}"
            self.stop()
            return text
        if event["event"] == "stopped":
            self.stopped, self.grammar, self.file, self.where = True, event["grammar"], event["file"], event["text"]
            return event["text"]
        text = event["text"] + self._program_output()
        self.stop()
        return text

    def _program_output(self) -> str:
        self._output.seek(0)
        lines = self._output.read().decode("utf-8", "replace").splitlines()
        if not lines:
            return ""
        return "\nlast lines of its output:\n" + "\n".join("  " + cut(l, 160) for l in lines[-6:])

    def _send(self, message: dict) -> None:
        self._writer.write(json.dumps(message) + "\n")

    def _receive(self, deadline: float) -> dict:
        with selectors.DefaultSelector() as selector:
            selector.register(self._reader, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                if selector.select(timeout=min(remaining, 0.5)):
                    chunk = self._reader.read(65536)
                    if not chunk:
                        raise EOFError
                    self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)


# --- verified fixes ----------------------------------------------------------------------------

MAX_COPY_FILES = 2000


def verify_fix(program: Program, file: str, first: int, last: int, replacement: str, exception_type: str,
               budget: float = RERUN_BUDGET) -> dict:
    """Run the program again on a temporary copy of its folder with the fix applied (never the
    user's files) and say whether the original exception is gone."""
    root = os.path.dirname(os.path.abspath(program.argv[0])) if not program.module else program.cwd
    file = os.path.abspath(file)
    if os.path.commonpath([root, file]) != root:
        return {"verified": False, "outcome": f"not verified: {display_path(file)} is outside the program's folder"}
    files = sum(len(names) for _, _, names in os.walk(root))
    if files > MAX_COPY_FILES:
        return {"verified": False, "outcome": f"not verified: the program's folder has over {MAX_COPY_FILES} files"}
    with tempfile.TemporaryDirectory(prefix="autodbg-verify-") as tmp:
        copy = os.path.join(tmp, os.path.basename(root) or "program")
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".git"))
        target = Path(copy, os.path.relpath(file, root))
        if not (target.parent.is_dir() and is_inside(target.parent, Path(tmp))):  # linked: the user's own files
            return {"verified": False, "outcome": f"not verified: {display_path(file)} is in a linked folder"}
        with open(file, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        lines[first - 1:last] = [replacement if replacement.endswith("\n") else replacement + "\n"]
        write_shared(target, "".join(lines))  # replaces a symlinked file in the copy, never writes through it
        moved = lambda p: os.path.join(copy, os.path.relpath(p, root)) if os.path.commonpath([root, os.path.abspath(p)]) == root else p  # noqa: E731
        command = program.command
        if not program.module:
            command = [sys.executable, moved(os.path.abspath(program.argv[0])), *program.argv[1:]]
        try:
            run = subprocess.run(command, cwd=moved(program.cwd), input=program.stdin, capture_output=True, text=True,
                                 env={**os.environ, "AUTODBG": "0"}, timeout=budget, start_new_session=True)
        except subprocess.TimeoutExpired:
            return {"verified": False, "outcome": f"not verified: the fixed program ran past {budget:g}s"}
    last_line = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ""
    if run.returncode == 0:
        return {"verified": True, "outcome": "verified by re-running: the program now exits 0"}
    if last_line.split(":")[0].rsplit(".", 1)[-1] == exception_type:
        return {"verified": False, "outcome": f"re-run with the fix still fails: {cut(last_line, 160)}"}
    return {"verified": True, "outcome": f"verified by re-running: {exception_type} is gone, but the program "
                                         f"now fails differently: {cut(last_line, 160) or f'exit status {run.returncode}'}"}


# --- the child ---------------------------------------------------------------------------------

class Tracer(Inspector):
    """Runs the program; at a breakpoint, serves commands until told to go on."""

    def __init__(self, reader, writer, max_hits: int) -> None:
        super().__init__()
        self.reader, self.writer = reader, writer
        self.max_hits = max_hits
        self.hits = 0
        self.mode = "start"
        self.currentbp = None  # set by bdb's break_here when a breakpoint is hit
        self.conditions: dict[int, str] = {}  # bdb breakpoint number -> condition, checked safely here

    def add(self, file: str, line: int, function: str | None, condition: str | None) -> None:
        self.set_break(self.canonic(file), line, funcname=function)
        if condition:
            number = self.get_breaks(self.canonic(file), line)[-1].number
            self.conditions[number] = condition

    def user_line(self, frame) -> None:
        if self.mode == "start":
            self.break_here(frame)  # bdb skipped it: it stops anywhere at the start
        hit, self.currentbp = self.currentbp, None
        if self.mode in ("start", "continue") and not hit:
            self.set_continue()
            return
        if hit in self.conditions and not self._condition_holds(self.conditions[hit], frame):
            self.set_continue()
            return
        self.hits += 1
        if self.hits > self.max_hits:
            self._write({"event": "ended", "text": f"stopped the re-run after {self.max_hits} breakpoint hits"})
            self.set_quit()
            return
        self.interact(frame)

    def _condition_holds(self, condition: str, frame) -> bool:
        try:
            return bool(Evaluator(dict(frame.f_locals), frame.f_globals).evaluate(condition))
        except (Refused, TimeLimit, Exception):  # a condition that cannot be checked does not stop
            return False

    def interact(self, frame) -> None:
        from autodbg.llm.grammar import step_grammar

        self.set_stack(frame, None)
        session = Session(self, live=True)
        entry = self.current
        text = f"stopped at {entry.location} (hit {self.hits})\n" + session.describe_frame(entry).split("\n", 1)[1]
        self._write({"event": "stopped", "text": text, "file": entry.filename, "grammar": step_grammar(session)})
        while True:
            line = self.reader.readline()
            if not line:
                self.set_quit()
                return
            request = json.loads(line)
            if request.get("op") == "break":
                request.pop("op")
                self.add(**request)
                self._write({"event": "output", "ok": True, "output": "", "file": self.current.filename})
                continue
            if request.get("op") != "command":
                self.set_quit()
                return
            name = request["line"].split()[0]
            if name in RESUME:
                self.mode = name
                stopped = self.stack[-1].frame
                {"continue": self.set_continue, "next": lambda: self.set_next(stopped),
                 "step": self.set_step}[name]()
                return
            result = session.execute(request["line"])
            self._write({"event": "output", "ok": result.ok, "output": bound_output(result.output),
                         "file": self.current.filename})

    def _write(self, message: dict) -> None:
        self.writer.write(json.dumps(message) + "\n")
        self.writer.flush()


def child_main() -> int:
    from autodbg.debugger.core import exception_title
    from autodbg.run import exit_status, run_program

    read_fd, write_fd = map(int, os.environ.pop(_CHANNEL).split(","))
    reader = os.fdopen(read_fd, "r")
    writer = os.fdopen(write_fd, "w")
    config = json.loads(reader.readline())
    tracer = Tracer(reader, writer, config["max_hits"])
    for b in config["breakpoints"]:
        tracer.add(**b)
    outcome = tracer.runcall(run_program, config["module"], config["argv"])
    if isinstance(outcome, bdb.BdbQuit):
        return 0
    if outcome is None:
        text = "the re-run finished: the program exited with status 0"
    elif isinstance(outcome, SystemExit):
        text = f"the re-run finished: the program exited with status {exit_status(outcome)}"
    else:
        text = f"the re-run ended with {exception_title(outcome)}"
    tracer._write({"event": "ended", "text": text})
    return 0


if __name__ == "__main__":
    sys.exit(child_main())
