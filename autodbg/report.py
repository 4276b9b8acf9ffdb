"""Rich renderables for what autodbg prints: the evidence dossier and the diagnosis summary.

Untrusted text (exception messages, values, source, model output) is always a `Text` or a
`Syntax`, never markup, with its control characters and escape sequences made visible. Colour
follows the terminal: none when stderr is not a TTY or NO_COLOR is set.
"""

from __future__ import annotations

import difflib
import os
import time

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.live import Live
from rich.rule import Rule
from rich.syntax import Syntax
from rich.text import Text

from autodbg.fix.label import label_of
from autodbg.frames.core import file_line
from autodbg.records import Dossier, FixTrial, FrameEvidence, Hang, Judgement, Label, Result, Search, Step, TrialResult
from autodbg.textsafe import terminal_safe, terminal_safe_tree

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
        yield Text(quoted(d.exception.title), style="bold red")
        if len(d.chain) > 1:
            for link in d.chain:
                yield Text(quoted(f"  #{link.index} {link.title}  ({link.relation})"), style="dim")
        for frame in d.frames:
            yield Text("")
            yield from frame_view(frame)
        if d.origins:
            yield Text("")
            yield Text("where the values came from (read from the source, no model):", style="bold")
            for origin in d.origins:
                yield Text.assemble("  ", (origin.via, "cyan"), f" ← {file_line(origin.display_file, origin.line)}: ", quoted(origin.code))
        if d.replays:
            yield Text("")
            yield Text("what the failing line's calls did (run again in a sandboxed copy, no model):", style="bold")
            for replay in d.replays:
                yield Text.assemble("  ", (replay.call, "cyan"), ": ", quoted(replay.history))
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
            yield Text.assemble("    ", (item.expr, "cyan"), " = ", quoted(item.value))
    for called in frame.called_functions:
        yield Text(f"  called on this line: {called.name} ({file_line(called.display_file, called.line)})", style="bold")
        yield source_block(called.lines, called.line)
    if frame.locals:
        shown = ", ".join(f"{k} = {v}" for k, v in frame.locals.items())
        more = f" (+{frame.locals_cut} more)" if frame.locals_cut else ""
        yield Text.assemble(("  other locals: ", "bold"), quoted(shown + more))


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
            yield Text.assemble(quoted(f"  {thread.thread}: "), (quoted(innermost), "bold"), "   ", quoted(thread.code))
            if thread.awaits:
                yield Text(f"    awaits {thread.awaits}")
            wait = locks.get(thread.thread)
            if wait is not None:
                held = f"holds {', '.join(wait.holds)}" if wait.holds else "holds no lock"
                yield Text(f"    {held}" + (f"; waits for {wait.waits_for}" if wait.waits_for else ""))
        loop = h.loop
        if loop is not None:
            position = f"  (iteration {loop.iteration:,} of {loop.total:,})" if loop.iteration is not None else ""
            yield Text.assemble("  in the loop ", (file_line(loop.display_file, loop.line), "bold"), ": ", quoted(loop.header), position)
            if loop.values:
                yield Text(quoted("    " + ", ".join(f"{k} = {v}" for k, v in loop.values.items())))
        r = h.recursion
        if r is not None:
            same = ", ".join(f"{k} = {v}" for k, v in r.unchanged.items())
            yield Text(quoted(f"  in a recursion: {r.function}() {r.depth} calls deep" + (f"; always {same}" if same else "")))


class VerdictView:
    """Whether the interrupted program was stuck; when it was and VERBOSE, every thread's stack."""

    def __init__(self, hang: Hang, verbose: bool = False) -> None:
        self.hang = Hang.from_json(terminal_safe_tree(hang.to_json()))
        self.verbose = verbose

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        h = self.hang
        yield Text(quoted(f"  {h.verdict}"), style="bold red" if h.stuck else "dim")
        if not (h.stuck and self.verbose):  # where each thread was is above; their whole stacks only on request
            return
        for thread in h.threads:
            yield Text(f"  {thread.thread}:", style="bold")
            for frame in thread.frames:
                yield Text(quoted(f"    {frame}"))


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
    """The screen after the traceback: the answer first (root cause, line, the change as a plain
    unified diff a user can copy, its label), then only the evidence that supports it. VERBOSE
    (the whole evidence was printed as it came) adds the model's commands and the footer instead."""

    def __init__(self, result: Result, reason: str | None = None, verbose: bool = False) -> None:
        self.result = Result.from_json(terminal_safe_tree(result.to_json()))
        self.reason = terminal_safe_tree(reason)
        self.verbose = verbose

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        r, patch, diagnosis = self.result, self.result.patch, self.result.diagnosis
        title = shorten((r.dossier.exception.title.splitlines() or [r.dossier.exception.type])[0], TITLE)
        yield Rule(Text(f"autodbg · {title}", style="bold"), style="red", align="left")
        from_diagnosis = diagnosis is not None and diagnosis.fix is not None and patch is not None and patch.edit == diagnosis.fix.edit
        if diagnosis is not None:
            yield Text(quoted(diagnosis.root_cause))
        if patch is not None and not from_diagnosis:
            yield Text("Found by trying small changes in a sandbox, no model:")
        elif diagnosis is None and (r.search is not None or not self.reason):  # nothing sought, nothing "not found"
            yield Text("No fix found." if self.reason else "No fix found (the model gave none).", style="yellow")
        if patch is not None:
            yield Text(file_line(patch.path, patch.edit.first), style="bold")
            yield from diff_lines(patch.diff)
            heading, style = HEADINGS[patch.label]
            yield Text(heading, style=style)
            fix = diagnosis.fix if from_diagnosis else None
            if fix is not None and fix.judgement is not None:
                yield judgement_line(fix.judgement)
            elif fix is not None and fix.trial is not None:
                yield trial_line(fix.trial)
            elif fix is not None and fix.outcome is not None:
                yield Text(quoted(fix.outcome), style="yellow")
        elif diagnosis is not None and diagnosis.fix is not None and diagnosis.fix.usable:
            fix = diagnosis.fix  # a change that did not run to the end: listed apart, never offered to apply
            yield Text(file_line(diagnosis.display_file, diagnosis.line), style="bold")
            heading, style = HEADINGS[fix.label or label_of(fix)]
            yield Text(heading, style=style)
            yield from diff_lines(fix.diff)
            if fix.trial is not None:
                yield trial_line(fix.trial)
            if fix.judgement is not None:
                yield judgement_line(fix.judgement)
        elif diagnosis is not None:
            yield Text(file_line(diagnosis.display_file, diagnosis.line), style="bold")
            problem = diagnosis.fix.problem if diagnosis.fix is not None else None
            yield Text(quoted(f"No checked fix ({problem or 'the model gave none'})."), style="yellow")
        if self.verbose:
            evidence = [t for t in r.transcript if t.valid and t.command != "done"]
            for turn in evidence:
                first_line = turn.output.splitlines()[0] if turn.output else ""
                yield Text.assemble("  ", (turn.command, "cyan"), "  → ", first_line[:120])
            yield Text(footer(r), style="dim")
            yield from self.evidence_only()
            return
        supporting = list(supporting_evidence(r))
        if supporting:
            yield Text("")
            yield Text("the evidence (no model):", style="bold")
            yield from supporting
        more = "AUTODBG_VERBOSE=1 shows all the evidence"
        yield Text(more + (" · `autodbg fix` applies the change" if patch is not None else ""), style="dim")
        yield from self.evidence_only()

    def evidence_only(self) -> RenderResult:
        if self.reason:  # last: why no model answered (none was set, it could not load, Ctrl-C...)
            yield Text(quoted(terminal_safe(f"autodbg: evidence only ({self.reason})")), style="dim")


def diff_lines(diff: str) -> RenderResult:
    """A unified diff as plain lines: no box, no line numbers, so it copies as the patch it is."""
    for line in diff.rstrip("\n").splitlines():
        style = "bold" if line.startswith(("---", "+++")) else "green" if line[:1] == "+" else "red" if line[:1] == "-" else "cyan" if line.startswith("@@") else ""
        yield Text(line, style=style, overflow="fold")  # shown whole; `autodbg fix --patch` writes it unbroken


TITLE = 70  # characters of the exception's first line in the summary's rule
SHORT_VALUE = 40  # characters of one value on the summary's evidence line
SHORT_REPLAY = 160


def supporting_evidence(result: Result) -> RenderResult:
    """The failing line's values, the provenance that names the changed line (else each failing
    name's nearest, three at most), and the replayed call that made the bad value: each one line, the frames not again."""
    d = result.dossier
    crash = next((f for f in d.frames if f.is_crash_frame), None)
    read = [v for v in crash.line_values if not v.value.startswith("!")] if crash is not None else []  # the traceback says what failed
    if read:
        values = quoted(" · ".join(f"{v.expr} = {shorten(v.value, SHORT_VALUE)}" for v in read[:3]))
        yield Text.assemble("  ", (file_line(crash.display_file, crash.line), "bold"), ": ", values)
    edit = result.patch.edit if result.patch is not None else None
    named = [o for o in d.origins if edit is not None and o.file == edit.file and edit.first <= o.line <= edit.last]
    nearest = {o.via: o for o in reversed([o for o in d.origins if o.depth == 0])}  # each name's first origin
    for origin in (named or list(nearest.values())[::-1])[:3]:
        yield Text.assemble("  ", (origin.via, "cyan"), f" ← {file_line(origin.display_file, origin.line)}: ", quoted(origin.code.strip()))
    for replay in d.replays[:1]:
        yield Text.assemble("  ", (replay.call, "cyan"), ": ", quoted(shorten(replay.history, SHORT_REPLAY)))


QUOTE_GUTTER = "\n    ┊ "  # before each later line of text a program or the model wrote


def quoted(text: str) -> str:
    """TEXT a program or the model wrote, its later lines behind a gutter, so no line of theirs can
    pass for a rule, heading or label of autodbg's own (those start at the left edge)."""
    return text.replace("\n", QUOTE_GUTTER)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


class Progress:
    """What autodbg is doing while the user waits, on a terminal only: the short evidence, the
    current step, elapsed / budget and that Ctrl-C skips, in a region rich erases when done.
    Elsewhere (a pipe, CI, TERM=dumb) it shows nothing: the final screen says it all."""

    def __init__(self, console: Console, started: float, budget: float) -> None:
        self.console, self.started, self.budget = console, started, budget
        self.step = Step("gathering evidence")
        self.shown: list = []
        self.live = None
        if console.is_terminal and not console.is_dumb_terminal:
            self.live = Live(self, console=console, transient=True, refresh_per_second=4,
                             redirect_stdout=False, redirect_stderr=False)

    def __enter__(self) -> Progress:
        if self.live is not None:
            self.live.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.live is not None:
            self.live.stop()

    def on_step(self, step: Step) -> None:
        self.step = step

    def show(self, result: Result) -> None:
        """The short evidence while the rest runs."""
        self.shown = list(supporting_evidence(Result.from_json(terminal_safe_tree(result.to_json()))))

    def __rich__(self) -> Group:
        step = self.step.doing + (f": {self.step.done} of {self.step.total}" if self.step.total else "")
        elapsed = time.monotonic() - self.started
        line = Text(f"autodbg: {elapsed:.0f} s / {self.budget:.0f} s · {terminal_safe(step)} · Ctrl-C skips", style="dim")
        return Group(*self.shown, line)


# What each label's heading says: only "passes your tests" is green, and only what ran is a "Suggested fix".
HEADINGS = {
    Label.PASSES_YOUR_TESTS: ("Suggested fix · passes your tests", "bold green"),
    Label.STOPS_THE_CRASH: ("Suggested fix · stops the crash (the run goes on to its end; no test judged it)",
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
