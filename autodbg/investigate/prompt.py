"""What the model reads: the system prompt (generated from the command table) and the evidence
dossier as compact text with numbered source lines."""

from __future__ import annotations

from autodbg.debugger.commands import COMMANDS, help_text
from autodbg.frames.safe_eval import cut
import textwrap

from autodbg.records import Candidate, Dossier

PROMPT_VALUE = 160  # characters of one value in the model's prompt: it reads every one of them
# Characters of the evidence in the first prompt (about 1000 tokens): the crash frame always, then
# callers while they fit. Every token is read before the first reply.
PROMPT_CHARS = 3500
SAME_VALUE_CHARS = 40  # a value this long, shown again in another frame, is named, not repeated

SYSTEM_PROMPT = f"""You are autodbg, a debugger for a Python program that has just crashed.
You get the crash evidence; then you run debugger commands, one per turn, to find the root cause:
the line that must change so the program works. It is often not the line that crashed: check the
callers and how the bad value was made: when a value is wrong, read the source of the function that
produced it (`source NAME`) or the lines that set it (`list`). A failing assert is a correct
specification: the bug is in the code it checks, not in the assert.

Commands:
{help_text(tuple(c for c in COMMANDS if c.for_model))}

Each turn reply with exactly two lines:
Thought: <the line or function you suspect, and what the command will show>
Command: <one command>
The evidence already shows the stack, the lines that ran and their values: do not ask for them again.
Most useful: `source` of the function that made a wrong value, `list` of lines you were not shown,
`print` of a value you were not shown. `print` may call the program's functions to test a
suspicion, e.g. `print parse("1,2")`: it runs in a sandboxed copy of the crashed program.
Use `done` as soon as you know the root cause.
When the values that went wrong are gone (a function already returned), `trace CALL` runs that call
again and shows the value each of its lines made; where re-running is allowed, `break` where they
were made, `rerun`, and inspect them there.
Then answer in JSON: root_cause (one or two sentences), first_line and last_line (the lines to change,
copied exactly from the source you were shown, as FILE:N| code), and new_code: the Python code that
replaces those lines, with their indentation, or null. new_code is code, never an explanation."""


PROMPT_ORIGINS = 5  # the model reads the first few, those that made the failing line's values


def origins_text(dossier: Dossier) -> list[str]:
    """Where the crash line's values came from, right under them (not last, where the nearest
    text pulls the answer towards it)."""
    shown = [o for o in dossier.origins if o.depth == 0][:PROMPT_ORIGINS]
    if not shown:
        return []
    return ["where those values came from:"] + [f"{o.display_file}:{o.line}| {o.code}" for o in shown]


def pointed_text(dossier: Dossier) -> list[str]:
    """The lines the program's failing tests point to, likeliest first: where the crash's frames
    show only the test, the bug is most likely among them."""
    if not dossier.pointed:
        return []
    return ["lines the failing tests ran more than the passing ones:"] + \
           [f"{p.display_file}:{p.line}| {p.code}" for p in dossier.pointed]


def dossier_text(dossier: Dossier) -> str:
    """The evidence as the model reads it: compact, with numbered source lines."""
    out = [f"Crash: {dossier.exception.title}"]
    if len(dossier.chain) > 1:
        out += [f"  #{c.index} {c.title} ({c.relation})" for c in dossier.chain]
    first_shown: dict[str, str] = {}  # a long value -> where the model first read it

    def show(name: str, value: str, frame_index: int) -> str:
        if len(value) > SAME_VALUE_CHARS:
            if value in first_shown:
                return f"{name} = (same as {first_shown[value]})"
            first_shown[value] = f"{name} in frame {frame_index}"
        return f"{name} = {cut(value, PROMPT_VALUE)}"

    for number, frame in enumerate(dossier.frames):
        block = len(out)
        role = "crashed here" if frame.is_crash_frame else "called from"
        out.append(f"\n[frame {frame.index}] {frame.display_file}:{frame.line} in {frame.function} ({role})")
        if frame.repeated:
            out.append(f"(this same call repeats {frame.repeated} more times above it: recursion)")
        src = frame.source
        out += [f"{src.first + i}{'>' if src.first + i == frame.line else '|'} {line}"
                for i, line in enumerate(src.lines)]
        if frame.line_values:
            out.append("values on line {}: {}".format(
                frame.line, "; ".join(show(v.expr, v.value, frame.index) for v in frame.line_values)))
        if frame.locals:
            out.append("other locals: " + "; ".join(show(k, v, frame.index) for k, v in frame.locals.items()))
        if frame.is_crash_frame:
            out += origins_text(dossier) + pointed_text(dossier)
        for called in frame.called_functions:
            out.append(f"source of {called.name} ({called.display_file}):")
            out += [f"{called.line + i}| {line}" for i, line in enumerate(called.lines)]
        if frame.is_crash_frame:
            out += [f"{replay.call} run again, what its lines made: {replay.history}" for replay in dossier.replays]
        if number and len("\n".join(out)) > PROMPT_CHARS:  # the rest, not told here, `frame N` shows
            del out[block:]
            out.append(f"({len(dossier.frames) - number} more frames, callers of these, not shown)")
            break
    if dossier.folded_user_frames:
        out.append(f"({dossier.folded_user_frames} more user frames not shown)")
    return "\n".join(out)


def candidates_text(passing: list[Candidate]) -> str:
    """The fixes the search found, lettered, and the question which one corrects the root cause."""
    out = ["I tried small changes of the code in a sandboxed copy of the crashed program. With each of these, "
           "the failing test runs to its end:"]
    for i, candidate in enumerate(passing):
        out.append(f"{chr(ord('A') + i)}) {candidate.display_file} line {candidate.edit.first}:")
        old = textwrap.dedent(candidate.code).splitlines()
        new = textwrap.dedent(candidate.edit.replacement).splitlines() if candidate.edit.replacement else []
        out += [f"- {line}" for line in old] + [f"+ {line}" for line in new]
    out.append("Which change corrects the root cause? Answer in JSON: root_cause (one or two sentences: what was wrong "
               "in the code and why), then fix (its letter).")
    return "\n".join(out)
