"""Going back in time, the child's side: `python -m autodbg.program.tracer READ_FD WRITE_FD` runs
the program under a `bdb` tracer and, at each breakpoint, serves commands from the parent
(`autodbg.program.rerun`) until told to go on.
"""

from __future__ import annotations

import bdb
import dataclasses
import sys

from autodbg.channel import Channel, ChannelError
from autodbg.debugger.commands import COMMANDS_BY_NAME
from autodbg.frames.core import Inspector, exception_title
from autodbg.frames.safe_eval import Evaluator, set_mode
from autodbg.probe.fork import available, run_in_probe
from autodbg.crash import CrashSession
from autodbg.program.target import Program, exit_status, run_program

CONDITION_SECONDS = 1.0

REQUESTS = {
    "config": ("module", "argv", "cwd", "max_hits", "breakpoints", "probes"),
    "command": ("line",),
    "break": ("file", "line", "function", "condition"),
    "quit": (),
}


class Tracer(Inspector):
    """Runs the program; at a breakpoint, serves commands until told to go on."""

    def __init__(self, channel: Channel, max_hits: int, probes: bool) -> None:
        super().__init__()
        self.channel = channel
        self.max_hits = max_hits
        self.probes = probes and available()  # the program's frames are looked at in probes forked from here
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
            self.channel.send("ended", text=f"stopped the re-run after {self.max_hits} breakpoint hits")
            self.set_quit()
            return
        self.interact(frame)

    def _condition_holds(self, condition: str, frame) -> bool:
        """COND in FRAME, in a probe where there is one: checking it must not change the run."""
        def check() -> bool:
            set_mode("probe" if self.probes else "inline")
            return bool(Evaluator(dict(frame.f_locals), frame.f_globals).evaluate(condition))

        if self.probes:
            outcome = run_in_probe(check, deadline=CONDITION_SECONDS)
            return outcome.status == "ok" and outcome.value is True
        try:
            return check()
        except Exception:  # a condition that cannot be checked (refused, too slow, raising) does not stop
            return False

    def interact(self, frame) -> None:
        self.set_stack(frame, None)
        session = CrashSession(lambda: self, probes=self.probes, live=True)
        entry = self.current
        lines = self.source_lines(entry)
        code = lines[entry.lineno - 1].strip() if 0 < entry.lineno <= len(lines) else ""
        text = f"stopped at {entry.location} (hit {self.hits})\n  {entry.lineno} -> {code}"
        self.channel.send("stopped", text=text, state=_state_data(session))
        while True:
            try:
                request = self.channel.receive(REQUESTS)
            except ChannelError:  # the parent is gone
                self.set_quit()
                return
            kind = request.pop("kind")
            if kind == "break":
                self.add(**request)
                self.channel.send("added")
                continue
            if kind != "command":
                self.set_quit()
                return
            command = COMMANDS_BY_NAME.get(request["line"].split()[0])  # an alias (`c`) is its command
            if command is not None and command.resumes:
                self.mode = command.name
                stopped = self.stack[-1].frame
                {"continue": self.set_continue, "next": lambda: self.set_next(stopped),
                 "step": self.set_step}[command.name]()
                return
            result = session.execute(request["line"])
            self.channel.send("output", ok=result.ok, output=result.output, lines=[list(l) for l in result.lines],
                              ended=result.ended, state=_state_data(session))


def _state_data(session: CrashSession) -> dict | None:
    state = session.state()
    return dataclasses.asdict(state) if state is not None else None


def main(read_fd: int, write_fd: int) -> int:
    channel = Channel(read_fd, write_fd)
    config = channel.receive({"config": REQUESTS["config"]})
    tracer = Tracer(channel, config["max_hits"], config["probes"])
    for b in config["breakpoints"]:
        tracer.add(**b)
    outcome = tracer.runcall(run_program, Program(config["module"], config["argv"], config["cwd"]))
    if isinstance(outcome, bdb.BdbQuit):
        return 0
    if outcome is None or isinstance(outcome, SystemExit):
        text = f"the re-run finished: the program exited with status {exit_status(outcome)}"
    else:
        text = f"the re-run ended with {exception_title(outcome)}"
    channel.send("ended", text=text)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2])))
