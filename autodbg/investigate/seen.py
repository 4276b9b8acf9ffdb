"""What the model has been shown and asked: the lines it may quote, the sources and frames the
evidence showed, the commands run where; what the step grammar must therefore not offer again."""

from __future__ import annotations

import re
from collections import Counter

from autodbg.crash import CrashSession
from autodbg.debugger.commands import COMMANDS
from autodbg.debugger.grammar import Known, LiveState
from autodbg.debugger.output import ShownLine
from autodbg.frames.core import is_test_file
from autodbg.investigate.answer import judging_files, quotable, specification_lines
from autodbg.records import Dossier

UNSEEN_SOURCES = 6  # functions named in the first question whose source the evidence did not show


class Seen:
    """What the model has been shown, and what it has asked where."""

    def __init__(self, state: LiveState | None, dossier: Dossier) -> None:
        self.dossier = dossier
        self.lines: dict[str, ShownLine] = {}  # quotable `FILE:N| code` -> the line
        for frame in dossier.frames:
            self.add_lines(ShownLine(frame.file, frame.source.first + i, code) for i, code in enumerate(frame.source.lines))
            for called in frame.called_functions:
                self.add_lines(ShownLine(called.file, called.line + i, code) for i, code in enumerate(called.lines))
        self.add_lines(ShownLine(origin.file, origin.line, origin.code) for origin in dossier.origins)
        self.add_lines(ShownLine(pointed.file, pointed.line, pointed.code) for pointed in dossier.pointed)
        # Sources the evidence showed: functions it called on the failing lines, and the frames' own.
        self.sources = {called.name for frame in dossier.frames for called in frame.called_functions}
        self.sources |= {frame.function for frame in dossier.frames}
        self.frames = frames_shown(state, dossier)
        self.asked: set[str] = set()  # commands with where they ran (state_key)
        if state is not None and dossier.frames:  # the evidence replayed these, from the crash frame
            crash = f"{state.exception}/{dossier.frames[0].index}"
            self.asked |= {f"{crash}/trace {replay.call}" for replay in dossier.replays}
            if specification_lines(dossier) and len(dossier.frames) > 1:
                # The crash frame is a test: replaying the call that ran it is replaying the whole
                # test, whose calls of the program the evidence already replayed.
                self.asked |= {f"{crash}/trace {call}" for call in state.calls if call in dossier.frames[1].code}
        self.uses: Counter[str] = Counter()  # command name -> turns that used it

    def add_lines(self, lines) -> None:
        for line in lines:
            quote = quotable(line)
            if quote:
                self.lines[quote] = line

    def add_command(self, key: str, line: str, lines: tuple[ShownLine, ...], source_shown: bool) -> None:
        self.asked.add(key)
        self.uses[line.split(" ", 1)[0]] += 1
        self.add_lines(lines)
        if source_shown:
            self.sources.add(line.removeprefix("source "))

    def answerable(self) -> list[str]:
        """The shown lines an answer may name: not what judges a fix — for a failing assert the test
        that runs it (investigate.answer.specification_lines), test files and their drivers."""
        spec, judging = specification_lines(self.dossier), judging_files(self.dossier)
        return [q for q, line in self.lines.items() if (line.file, line.line) not in spec and line.file not in judging
                and not is_test_file(line.file)]

    def known(self, state: LiveState, where: str) -> Known:
        """What the step grammar must not offer in STATE, at WHERE (see `place`)."""
        exclude = {c.name for c in COMMANDS if not c.args and f"{where}/{c.name}" in self.asked}
        exclude |= {c.name for c in COMMANDS if c.limit is not None and self.uses[c.name] >= c.limit}
        if state.exception < 0:  # a live stop of a re-run
            return Known(commands=frozenset(exclude - {"done"}))
        if state.on_crash and state.current in self.frames:
            exclude |= {"locals", "args"}  # the dossier showed them
        here = f"{where}/trace "
        traced = frozenset(key.removeprefix(here) for key in self.asked if key.startswith(here))
        return Known(commands=frozenset(exclude - {"done"}), sources=frozenset(self.sources), frames=self.frames if state.on_crash else frozenset(), lines=frozenset((line.file, line.line) for line in self.lines.values()), traced=traced,
                     changeable=frozenset((self.lines[q].file, self.lines[q].line) for q in self.answerable()))


def place(session: CrashSession, state: LiveState) -> str:
    """Where commands run now: `locals` in frame 2 is not `locals` in frame 3."""
    if session.rerun is not None and session.rerun.stopped:
        return session.rerun.where
    return f"{state.exception}/{state.current}"


def frames_shown(state: LiveState | None, dossier: Dossier) -> frozenset[int]:
    """Frames of the crash whose lines and locals the evidence showed, including the calls a
    recursion repeats (the evidence folds them into the one it shows)."""
    places = {(f.file, f.line, f.function) for f in dossier.frames if not f.locals_cut}
    return frozenset(i for i, here in enumerate(state.stack) if here in places) if state else frozenset()


def unseen_sources(state: LiveState, seen: Seen) -> list[str]:
    """User functions, classes and methods the shown lines use, whose source was not shown;
    not tests (they are the specification) nor exception classes (they only carry the error)."""
    code = "\n".join(line.code for line in seen.lines.values())
    names = [name for name in state.sources
             if name not in seen.sources and not name.rsplit(".", 1)[-1].startswith("test")
             and name not in state.exception_classes
             and re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", code)]
    return names[:UNSEEN_SOURCES]
