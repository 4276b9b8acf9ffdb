"""Rich renderables for what autodbg prints: the evidence dossier and the diagnosis summary.

Untrusted text (exception messages, values, source, model output) is always a `Text` or a
`Syntax`, never markup, with its control characters and escape sequences made visible. Colour
follows the terminal: none when stderr is not a TTY or NO_COLOR is set.
"""

from __future__ import annotations

import difflib

import os

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.panel import Panel
from rich.rule import Rule
from rich.syntax import Syntax
from rich.text import Text

from autodbg.fix.label import label_of
from autodbg.frames.core import file_line
from autodbg.records import Dossier, FixTrial, FrameEvidence, Hang, Judgement, Label, Result, Search, TrialResult
from autodbg.textsafe import terminal_safe_tree

THEME = "ansi_dark"  # follows the terminal's palette


def make_console(file=None, width: int | None = None) -> Console:
    kwargs = {"no_color": True} if os.environ.get("NO_COLOR") else {}
    if width is not None:
        kwargs["width"] = width
    if file is None:
        return Console(stderr=True, highlight=False, soft_wrap=False, **kwargs)
    return Console(file=file, highlight=False, soft_wrap=False, **kwargs)


def source_block(lines: list[str], first: int, highlight: set[int] | None = None) -> Syntax:
    return Syntax("\n".join(lines), "python", theme=THEME, line_numbers=True, start_line=first,
                  highlight_lines=highlight or set(), word_wrap=False, code_width=None)


class EvidenceView:
    """The dossier: exception chain, then each user frame innermost first."""

    def __init__(self, dossier: Dossier, title: str = "autodbg · evidence") -> None:
        self.dossier = Dossier.from_json(terminal_safe_tree(dossier.to_json()))  # no escape sequences reach the terminal
        self.title = title

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        d = self.dossier
        yield Rule(Text(self.title, style="bold"), style="red")
        yield Text(d.exception.title, style="bold red")
        if len(d.chain) > 1:
            for link in d.chain:
                yield Text(f"  #{link.index} {link.title}  ({link.relation})", style="dim")
        for frame in d.frames:
            yield Text("")
            yield from frame_view(frame)
        if d.origins:
            yield Text("")
            yield Text("where the values came from (read from the source, no model):", style="bold")
            for origin in d.origins:
                yield Text.assemble("  ", (origin.via, "cyan"), f" ← {file_line(origin.display_file, origin.line)}: ", origin.code)
        if d.replays:
            yield Text("")
            yield Text("what the failing line's calls did (run again in a sandboxed copy, no model):", style="bold")
            for replay in d.replays:
                yield Text.assemble("  ", (replay.call, "cyan"), ": ", replay.history)
        folded = []
        if d.folded_user_frames:
            folded.append(f"{d.folded_user_frames} more user frames")
        if d.library_frames:
            folded.append(f"{d.library_frames} library frames")
        if folded:
            yield Text(f"({' and '.join(folded)} not shown)", style="dim")


def frame_view(frame: FrameEvidence) -> RenderResult:
    role = "crash site" if frame.is_crash_frame else "called from here"
    header = Text.assemble((file_line(frame.display_file, frame.line), "bold"),
                           f" in {frame.function}  ", (f"({role})", "dim"))
    yield header
    if frame.repeated:
        yield Text(f"  the same call repeats {frame.repeated} more times above (recursion)", style="yellow")
    if frame.source.lines:  # none for code whose source is not known (a string exec'd)
        yield source_block(frame.source.lines, frame.source.first, {frame.line})
    if frame.line_values:
        yield Text("  values on this line:", style="bold")
        for item in frame.line_values:
            yield Text.assemble("    ", (item.expr, "cyan"), " = ", item.value)
    for called in frame.called_functions:
        yield Text(f"  called on this line: {called.name} ({file_line(called.display_file, called.line)})", style="bold")
        yield source_block(called.lines, called.line)
    if frame.locals:
        shown = ", ".join(f"{k} = {v}" for k, v in frame.locals.items())
        more = f" (+{frame.locals_cut} more)" if frame.locals_cut else ""
        yield Text.assemble(("  other locals: ", "bold"), shown + more)


class WhereView:
    """Where an interrupted program was: each thread's innermost frame of the program and the locks
    it held and waited on, the loop around the interrupted line and its values (autodbg.analysis.hang)."""

    def __init__(self, hang: Hang) -> None:
        self.hang = Hang.from_json(terminal_safe_tree(hang.to_json()))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        h = self.hang
        ran = f"; it had run {h.ran_seconds:.1f} s" if h.ran_seconds is not None else ""
        yield Rule(Text(f"autodbg · where it was ({h.interrupted_by}{ran})", style="bold"), style="yellow")
        locks = {wait.thread: wait for wait in h.locks}
        for thread in h.threads:
            innermost = thread.frames[0] if thread.frames else "?"
            yield Text.assemble(f"  {thread.thread}: ", (innermost, "bold"), "   ", thread.code)
            if thread.awaits:
                yield Text(f"    awaits {thread.awaits}")
            wait = locks.get(thread.thread)
            if wait is not None:
                held = f"holds {', '.join(wait.holds)}" if wait.holds else "holds no lock"
                yield Text(f"    {held}" + (f"; waits for {wait.waits_for}" if wait.waits_for else ""))
        loop = h.loop
        if loop is not None:
            position = f"  (iteration {loop.iteration:,} of {loop.total:,})" if loop.iteration is not None else ""
            yield Text.assemble("  in the loop ", (file_line(loop.display_file, loop.line), "bold"), ": ", loop.header, position)
            if loop.values:
                yield Text("    " + ", ".join(f"{k} = {v}" for k, v in loop.values.items()))
        r = h.recursion
        if r is not None:
            same = ", ".join(f"{k} = {v}" for k, v in r.unchanged.items())
            yield Text(f"  in a recursion: {r.function}() {r.depth} calls deep" + (f"; always {same}" if same else ""))


class VerdictView:
    """Whether the interrupted program was stuck; when it was, every thread's stack."""

    def __init__(self, hang: Hang) -> None:
        self.hang = Hang.from_json(terminal_safe_tree(hang.to_json()))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        h = self.hang
        yield Text(f"  {h.verdict}", style="bold red" if h.stuck else "dim")
        if not h.stuck:
            return
        for thread in h.threads:
            yield Text(f"  {thread.thread}:", style="bold")
            for frame in thread.frames:
                yield Text(f"    {frame}")


class SearchView:
    """The fixes the search found (autodbg.investigate.search), or that it found none."""

    def __init__(self, search: Search) -> None:
        self.search = Search.from_json(terminal_safe_tree(search.to_json()))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        s = self.search
        what = "the failing test runs to its end" if s.proof == "test" else "the crashed program runs to its end"
        if not s.passing:
            if s.proof == "test":  # elsewhere few changes are tried: not worth a line when none worked
                yield Text("")
                yield Text(f"no fix found: {s.tried} small changes of {s.lines} lines tried, each in a sandboxed copy "
                           f"({s.seconds:.1f} s); with none of them {what}", style="dim")
            return
        yield Text("")
        yield Text(f"with these changes {what} ({s.tried} small changes of {s.lines} lines tried, each in a "
                   f"sandboxed copy, no model):", style="bold")
        for candidate in s.passing:
            where = (file_line(candidate.display_file, candidate.edit.first), "bold")
            old, new = candidate.code.splitlines(), candidate.edit.replacement.splitlines()
            if len(old) == len(new) == 1 or not new:
                was = " ".join(candidate.code.split())
                now = " ".join(candidate.edit.replacement.split()) or "(line deleted)"
                if now == was:  # moved by its indentation alone (out of a loop)
                    shift = len(old[0]) - len(old[0].lstrip()) - (len(new[0]) - len(new[0].lstrip()))
                    now += f" ({abs(shift)} columns {'less' if shift > 0 else 'more'} indented)"
                yield Text.assemble("  ", where, ": ", was, "  →  ", (now, "green"))
                continue
            yield Text.assemble("  ", where, ":")  # lines added or removed: only those, as a diff
            for line in difflib.ndiff(old, new):
                if line[:1] in "+-":
                    yield Text("    " + line, style="green" if line[0] == "+" else "red")


class SummaryView:
    """The model's diagnosis: root cause, evidence, source, checked fix, footer."""

    def __init__(self, result: Result) -> None:
        self.result = Result.from_json(terminal_safe_tree(result.to_json()))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        r = self.result
        diagnosis = r.diagnosis
        parts: list = [Text("Root cause", style="bold"), Text(diagnosis.root_cause)]
        evidence = [t for t in r.transcript if t.valid and t.command != "done"]
        if evidence:
            parts += [Text(""), Text("Evidence", style="bold")]
            for turn in evidence:
                first_line = turn.output.splitlines()[0] if turn.output else ""
                parts.append(Text.assemble("  ", (turn.command, "cyan"), "  → ", first_line[:120]))
        window = diagnosis.source_window
        parts += [Text(""), Text(file_line(diagnosis.display_file, diagnosis.line), style="bold"),
                  source_block(window.lines, window.first, set(range(diagnosis.line, diagnosis.line_end + 1)))]
        fix = diagnosis.fix
        parts.append(Text(""))
        if fix is not None and fix.usable:
            label = fix.label or label_of(fix)
            heading, style = HEADINGS[label]
            # Wrapped: every line the fix adds is shown whole, however wide.
            parts += [Text(heading, style=style), Syntax(fix.diff.rstrip("\n"), "diff", theme=THEME, word_wrap=True)]
            if fix.trial is not None:
                parts.append(trial_line(fix.trial))
            if fix.outcome is not None:
                parts.append(Text(fix.outcome, style="green" if label == Label.PASSES_YOUR_TESTS else "yellow"))
            if fix.judgement is not None:
                parts.append(judgement_line(fix.judgement))
        else:
            reason = (fix.problem if fix is not None else None) or "the model gave none"
            parts.append(Text(f"No checked fix ({reason}).", style="yellow"))
        parts += [Text(""), Text(footer(r), style="dim")]
        title = Text(f"autodbg · {r.dossier.exception.type}", style="bold")
        yield Panel(Group(*parts), title=title, title_align="left", border_style="red")


# What each label's heading says: only "passes your tests" is green, and only what ran is a "Suggested fix".
HEADINGS = {
    Label.PASSES_YOUR_TESTS: ("Suggested fix · passes your tests", "bold green"),
    Label.STOPS_THE_CRASH: ("Suggested fix · stops the crash (the crashed run goes on to its end; no test judged it)",
                            "bold yellow"),
    Label.GUARD: ("A guard, not a fix · it only adds a condition around the line that crashed", "bold yellow"),
    Label.DID_NOT_WORK: ("Tried, did not work · no fix found", "bold red"),
    Label.NOT_RUN: ("Untried change · it could not be run here (applies and compiles)", "bold yellow"),
}


def judgement_line(judged: Judgement) -> Text:
    """What the program's own tests said of the fix."""
    files = ", ".join(judged.tests[:3]) + (f" and {len(judged.tests) - 3} more" if len(judged.tests) > 3 else "")
    if judged.detail:
        return Text(f"your tests ({files}) could not judge it: {judged.detail}", style="dim")
    said = [f"{judged.kept} of {judged.passed_before} tests that passed before still pass"]
    if judged.fixed:
        said.insert(0, f"now passes: {', '.join(judged.fixed)}")
    if judged.broken:
        said.append(f"now fails: {', '.join(judged.broken)}")
    if judged.still_failing:
        said.append(f"still fails: {', '.join(judged.still_failing)}")
    return Text(f"your tests ({files}): " + "; ".join(said), style="green" if judged.holds else "red")


def trial_line(trial: FixTrial) -> Text:
    """What happened when the crashed program ran again with the fix, in a probe."""
    if trial.passes:
        return Text(f"ran: {trial.detail}", style="green")
    if trial.result == TrialResult.GUARDS:
        return Text(f"ran: {trial.detail}", style="yellow")
    if trial.result == TrialResult.NOT_RUN:
        return Text(f"not run: {trial.detail}", style="dim")
    return Text(f"ran: it {trial.result}: {trial.detail}", style="yellow")


def footer(result: Result) -> str:
    model = result.model.id if result.model else "?"
    turns = sum(1 for t in result.transcript if t.command != "done")
    reruns = f" · re-ran the program {result.reruns}x (its side effects happened again)" if result.reruns else ""
    return f"{model} · {turns} commands · {result.timings.total or 0:.1f}s{reruns} · AUTODBG=0 turns autodbg off"
