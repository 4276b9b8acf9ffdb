"""Going back in time, the parent's side: run the program again in a fresh subprocess under the
tracer (`autodbg.program.tracer`), stopped at breakpoints, and inspect its live frames with the
same commands as the post-mortem.

Only `autodbg run` can do this (it owns the program's start, argv, working directory and the
stdin it read); never the installed excepthook. Re-running repeats the program's side effects.

The two processes talk over a pair of pipes (autodbg.channel):
  parent -> child: config {module, argv, cwd, max_hits, breakpoints} | command {line}
                   | break {<Breakpoint fields>} | quit {}
  child -> parent: stopped {text, state} | output {ok, output, lines} | ended {text}
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from autodbg.channel import Channel, ChannelError, ChannelTimeout
from autodbg.debugger.commands import COMMANDS_BY_NAME, Breakpoint
from autodbg.debugger.output import ShownLine
from autodbg.debugger.grammar import LiveState
from autodbg.frames.safe_eval import cut
from autodbg.debugger.session import CommandResult
from autodbg.program.target import Program

MAX_HITS = 20  # breakpoint stops in one re-run
RERUN_BUDGET = 30.0  # seconds the program may run between two stops
REPLY_SECONDS = 10.0  # for a command at a stop: the tracer answers at once or not at all

EVENTS = {"stopped": ("text", "state"), "ended": ("text",)}
OUTPUT = {"output": ("ok", "output", "lines", "ended", "state")}


@dataclass
class Rerun:
    """The parent's handle on re-runs of one program (a debugger.session.RerunHandle)."""

    program: Program
    budget: float = RERUN_BUDGET
    probes: bool = True  # the re-run's frames are looked at in probes forked from it
    breakpoints: list[Breakpoint] = field(default_factory=list)
    runs: int = 0
    stopped: bool = False
    where: str = ""  # how the live stop was described (where, and which hit)
    _state: LiveState | None = None  # of the live stop, read by the child
    _process: subprocess.Popen | None = None
    _channel: Channel | None = None
    _output: object = None  # the re-run program's own stdout and stderr

    def add_breakpoint(self, breakpoint: Breakpoint) -> str:
        if breakpoint not in self.breakpoints:
            self.breakpoints.append(breakpoint)
        if self.stopped:
            self._channel.send("break", **dataclasses.asdict(breakpoint))
            self._receive({"added": ()}, REPLY_SECONDS)
        number = self.breakpoints.index(breakpoint) + 1
        return f"breakpoint {number} at {breakpoint}" + ("" if self.stopped else " (takes effect at `rerun`)")

    def start(self) -> str:
        """Start the program again from the beginning; describe where it stopped or how it ended."""
        self.stop()
        self.runs += 1
        control_in, child_out = os.pipe()
        child_in, control_out = os.pipe()
        self._output = tempfile.TemporaryFile()
        with tempfile.TemporaryFile() as stdin:
            stdin.write(self.program.stdin.encode())
            stdin.seek(0)
            self._process = subprocess.Popen(
                [sys.executable, "-m", "autodbg.program.tracer", str(child_in), str(child_out)],
                cwd=self.program.cwd, env={**os.environ, "AUTODBG": "0"}, stdin=stdin, stdout=self._output,
                stderr=self._output, pass_fds=(child_in, child_out), start_new_session=True)
        os.close(child_in)
        os.close(child_out)
        self._channel = Channel(control_in, control_out)
        self._channel.send("config", module=self.program.module, argv=self.program.argv, cwd=self.program.cwd,
                           max_hits=MAX_HITS, breakpoints=[dataclasses.asdict(b) for b in self.breakpoints],
                           probes=self.probes)
        return f"re-run {self.runs} (side effects of the program happen again): " + self._await_event()

    def send(self, line: str) -> CommandResult:
        """Run LINE in the stopped re-run: a live command, or one that resumes it."""
        self._channel.send("command", line=line)
        if COMMANDS_BY_NAME[line.split()[0]].resumes:
            return CommandResult(line=line, ok=True, output=self._await_event())
        try:
            reply = self._receive(OUTPUT, REPLY_SECONDS)
        except ChannelError:
            self.stop()
            return CommandResult(line=line, ok=False, output="error: the re-run stopped answering")
        if reply["state"] is not None:
            self._state = LiveState.from_json(reply["state"])
        return CommandResult(line=line, ok=reply["ok"], output=reply["output"], lines=tuple(ShownLine(*l) for l in reply["lines"]), ended=reply["ended"])

    def state(self) -> LiveState:
        return self._state

    def stop(self) -> None:
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            self._channel.close()
            self._output.close()
        self._process, self._channel, self.stopped, self._state = None, None, False, None

    # --- channel -----------------------------------------------------------------------------

    def _await_event(self) -> str:
        """Wait while the program runs, until it stops at a breakpoint or ends."""
        try:
            event = self._receive(EVENTS, self.budget)
        except ChannelTimeout:
            self.stop()
            return f"the re-run ran past its {self.budget:g}s budget and was stopped"
        except ChannelError:  # closed, or garbled by a dying child
            text = f"the re-run ended abruptly{self._program_output()}"
            self.stop()
            return text
        if event["kind"] == "stopped":
            self.stopped, self.where = True, event["text"]
            self._state = LiveState.from_json(event["state"]) if event["state"] is not None else None
            return event["text"]
        text = event["text"] + self._program_output()
        self.stop()
        return text

    def _receive(self, shapes: dict, seconds: float) -> dict:
        return self._channel.receive(shapes, time.monotonic() + seconds)

    def _program_output(self) -> str:
        self._output.seek(0)
        lines = self._output.read().decode("utf-8", "replace").splitlines()
        if not lines:
            return ""
        return "\nlast lines of its output:\n" + "\n".join("  " + cut(l, 160) for l in lines[-6:])
