"""The investigation: the model drives the debugger through the command language, under a
grammar rebuilt from the live state each turn, then answers under the answer grammar.

Joins the debugger session and a model engine; knows nothing of how either works inside. The
model is anything with the `Engine.complete` signature (tests use a scripted stand-in).
"""

from __future__ import annotations

import inspect
import json
import re
import time
from dataclasses import dataclass, field
from typing import Callable

from autodbg.debugger.commands import COMMANDS, Session, help_text
from autodbg.debugger.core import display_path, source_lines
from autodbg.debugger.safe_eval import cut
from autodbg.fixcheck import check_fix, does_nothing
from autodbg.settings import DEFAULT_TURNS
from autodbg.llm.engine import EngineError
from autodbg.llm.grammar import THOUGHT_CHARS, Known, answer_grammar, answer_max_chars, source_names, step_grammar

MAX_GENERATED_TOKENS = 1500
PROMPT_VALUE = 160  # characters of one value in the model's prompt: it reads every one of them
SAME_VALUE_CHARS = 40  # a value this long, shown again in another frame, is named, not repeated
ANSWER_SHARE = 0.35  # of the time budget kept back for the final answer, so there always is one
ANSWER_RESERVE_MIN = 12.0
# Re-runs repeat the program's side effects and cost time: a few per investigation.
RERUN_LIMITS = {"break": 3, "rerun": 2, "continue": 4, "next": 4, "step": 4}
STEP_TOKENS = THOUGHT_CHARS + 80  # the grammar's longest step, even at one token per character

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
`print` of a value you were not shown.
Use `done` as soon as you know the root cause.
When the values that went wrong are gone (a function already returned), and re-running is allowed,
`break` where they were made, `rerun`, and inspect them there.
Then answer in JSON: root_cause (one or two sentences), first_line and last_line (the lines to change,
copied exactly from the source you were shown, as FILE:N| code), and new_code: the Python code that
replaces those lines, with their indentation, or null. new_code is code, never an explanation."""


@dataclass
class Budget:
    deadline: float
    max_turns: int = DEFAULT_TURNS
    max_generated: int = MAX_GENERATED_TOKENS


@dataclass
class Investigation:
    transcript: list[dict] = field(default_factory=list)
    diagnosis: dict | None = None
    tokens: dict = field(default_factory=lambda: {
        "prompt_tokens_evaluated": 0, "prompt_tokens_reused": 0, "generated": 0, "system_prompt_from_disk": None})
    timings: list[float] = field(default_factory=list)
    stopped_by: str = ""  # done | repeat | turns | tokens | time


def dossier_text(dossier: dict) -> str:
    """The evidence as the model reads it: compact, with numbered source lines."""
    out = [f"Crash: {dossier['exception']['title']}"]
    if len(dossier["chain"]) > 1:
        out += [f"  #{c['index']} {c['title']} ({c['relation']})" for c in dossier["chain"]]
    first_shown: dict[str, str] = {}  # a long value -> where the model first read it

    def show(name: str, value: str, frame_index: int) -> str:
        if len(value) > SAME_VALUE_CHARS:
            if value in first_shown:
                return f"{name} = (same as {first_shown[value]})"
            first_shown[value] = f"{name} in frame {frame_index}"
        return f"{name} = {cut(value, PROMPT_VALUE)}"

    for frame in dossier["frames"]:
        role = "crashed here" if frame["is_crash_frame"] else "called from"
        out.append(f"\n[frame {frame['index']}] {frame['display_file']}:{frame['line']} in {frame['function']} ({role})")
        if frame.get("repeated"):
            out.append(f"(this same call repeats {frame['repeated']} more times above it: recursion)")
        src = frame["source"]
        out += [f"{src['first'] + i}{'>' if src['first'] + i == frame['line'] else '|'} {line}"
                for i, line in enumerate(src["lines"])]
        if frame["line_values"]:
            out.append("values on line {}: {}".format(
                frame["line"], "; ".join(show(v["expr"], v["value"], frame["index"]) for v in frame["line_values"])))
        if frame["locals"]:
            out.append("other locals: " + "; ".join(show(k, v, frame["index"]) for k, v in frame["locals"].items()))
        for called in frame["called_functions"]:
            out.append(f"source of {called['name']} ({called['display_file']}):")
            out += [f"{called['line'] + i}| {line}" for i, line in enumerate(called["lines"])]
    if dossier["folded_user_frames"]:
        out.append(f"({dossier['folded_user_frames']} more user frames not shown)")
    return "\n".join(out)


def shown_source(dossier: dict) -> dict[str, tuple[str, int, str]]:
    """Every source line of the dossier as `FILE:N| code` -> (file, line, code)."""
    shown: dict[str, tuple[str, int, str]] = {}
    for frame in dossier["frames"]:
        src = frame["source"]
        for i, line in enumerate(src["lines"]):
            _add_shown(shown, frame["file"], src["first"] + i, line)
        for called in frame["called_functions"]:
            for i, line in enumerate(called["lines"]):
                _add_shown(shown, called["file"], called["line"] + i, line)
    return shown


def _add_shown(shown: dict, filename: str, lineno: int, code: str) -> None:
    if code.strip():
        shown[f"{display_path(filename)}:{lineno}| {code.strip()}"] = (filename, lineno, code)


_LISTED = re.compile(r"^\s*(\d+) (?:->|  ) (.*)$")


def _learn_shown(shown: dict, session: Session, command: str, output: str) -> None:
    """Source lines printed by `list` and `source` become quotable too."""
    name = command.split(" ", 1)[0]
    if name not in ("list", "source"):
        return
    lines = output.splitlines()
    live = session.rerun is not None and session.rerun.stopped
    filename = session.rerun.file if live else session.debugger.current.filename
    if name == "source" and lines and ":" in lines[0]:
        header = lines.pop(0).rsplit(":", 1)[0]
        filename = _resolve_display(header, session) or filename
    for line in lines:
        m = _LISTED.match(line)
        if m:
            _add_shown(shown, filename, int(m.group(1)), m.group(2))


def _resolve_display(display: str, session: Session) -> str | None:
    for frame in session.debugger.all_frames():
        if display_path(frame.f_code.co_filename) == display:
            return frame.f_code.co_filename
    import os
    return os.path.abspath(display) if os.path.isfile(display) else None


def investigate(session: Session, dossier: dict, engine, budget: Budget,
                on_step: Callable[[dict | None], None] = lambda turn: None) -> Investigation:
    """Run the turns, then get and check the answer. Raises the engine's errors.

    ON_STEP gets each transcript entry as it happens, then None while the answer is written."""
    result = Investigation()
    shown = shown_source(dossier)
    # Sources the evidence showed: functions it called on the failing lines, and the frames' own.
    shown_sources = {called["name"] for frame in dossier["frames"] for called in frame["called_functions"]}
    shown_sources |= {frame["function"] for frame in dossier["frames"]}
    ask_first = "What is your first command?"
    unseen = unseen_sources(session, shown, shown_sources) if budget.max_turns else []
    if unseen:  # where a wrong value was made, most often: what the session can show and the evidence cannot
        ask_first = f"Used by the code above, source not shown: {', '.join(unseen)}.\n{ask_first}"
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": dossier_text(dossier) + "\n\n" + ask_first},
    ]

    def ask(grammar: str, max_tokens: int, deadline: float, seed: int = 0) -> tuple[str, int, float]:
        started = time.monotonic()
        for message in messages:  # what the engine gets leaves autodbg (a remote engine, a log)
            message["content"] = session.redactor.scrub(message["content"])
        fit_context(messages, engine, max_tokens, deadline)
        completion = engine.complete(messages, grammar=grammar, max_tokens=max_tokens, deadline=deadline,
                                     cache_prefix_messages=1, seed=seed)
        result.timings.append(round(time.monotonic() - started, 3))
        result.tokens["prompt_tokens_evaluated"] += completion.prompt_tokens_evaluated
        result.tokens["prompt_tokens_reused"] += completion.prompt_tokens_reused
        result.tokens["generated"] += completion.completion_tokens
        if result.tokens["system_prompt_from_disk"] is None:
            result.tokens["system_prompt_from_disk"] = completion.system_prompt_from_disk
        return completion.text, completion.completion_tokens, round(time.monotonic() - started, 3)

    reserve = max(ANSWER_RESERVE_MIN, ANSWER_SHARE * (budget.deadline - time.monotonic()))
    seen_commands: set[str] = set()
    shown_frames = frames_shown(session, dossier)
    for turn in range(budget.max_turns):
        if time.monotonic() > budget.deadline - reserve:
            result.stopped_by = "time"
            break
        if result.tokens["generated"] >= budget.max_generated:
            result.stopped_by = "tokens"
            break
        exclude = known_outputs(session, seen_commands, shown_frames) | used_up(result.transcript)
        if session.rerun is not None and session.rerun.stopped:
            grammar = without_commands(session.rerun.grammar, exclude)  # built from the live frames
        else:
            on_crash = session.debugger.exception_index == session.debugger.top_exception
            known = Known(exclude, frozenset(shown_sources), shown_frames if on_crash else frozenset(),
                          frozenset((file, line) for file, line, _ in shown.values()))
            grammar = step_grammar(session, known=known)
        text, generated, seconds = ask(grammar, STEP_TOKENS, budget.deadline - reserve / 2)
        thought, command = parse_step(text)
        if _state_key(session, command) in seen_commands:
            result.stopped_by = "repeat"  # asking again what it already saw: it has nothing new to ask
            break
        outcome = session.execute(command) if command else None
        output = outcome.output if outcome else "error: no command given"
        seen_commands.add(_state_key(session, command))
        result.transcript.append({"thought": thought, "command": command, "valid": bool(outcome and outcome.valid),
                                  "output": output, "tokens": generated, "seconds": seconds})
        on_step(result.transcript[-1])
        if outcome and outcome.ends_session:
            result.stopped_by = "done"
            break
        _learn_shown(shown, session, command, output)
        if command.startswith("source ") and outcome and outcome.ok:
            shown_sources.add(command.removeprefix("source "))
        messages += [{"role": "assistant", "content": text},
                     {"role": "user", "content": f"Output:\n{output}\n\nNext command, or done."}]
    else:
        result.stopped_by = "turns"

    on_step(None)
    if session.rerun is not None:
        session.rerun.stop()  # back to the crash: the answer quotes what was shown
    if result.transcript and result.transcript[-1]["command"] == "done":
        messages.append({"role": "assistant", "content": _step_text(result.transcript[-1])})
    messages.append({"role": "user", "content": "Give the final answer as JSON now."})
    grammar = answer_grammar(list(shown))
    for attempt in range(2):
        try:
            text, _, _ = ask(grammar, answer_max_chars(list(shown)), budget.deadline, seed=attempt)
        except EngineError:
            if attempt == 0:
                raise
            break  # the retry ran out of time: the first answer's root cause still stands
        diagnosis = make_diagnosis(text, shown, dossier)
        result.diagnosis = diagnosis
        if diagnosis is None or diagnosis["fix"] is None or diagnosis["fix"]["problem"] is None:
            break
        if attempt == 0:
            messages += [{"role": "assistant", "content": text},
                         {"role": "user", "content": f"That fix is not usable: {diagnosis['fix']['problem']}. "
                                                     "Give the final answer as JSON again."}]
    return result


UNSEEN_SOURCES = 6


def unseen_sources(session: Session, shown: dict, shown_sources: set[str]) -> list[str]:
    """User functions, classes and methods the shown lines use, whose source was not shown;
    not tests (they are the specification) nor exception classes (they only carry the error)."""
    code = "\n".join(text for _, _, text in shown.values())
    frame = session.debugger.current.frame
    names = []
    for name in source_names(session):
        value = frame.f_locals.get(name, frame.f_globals.get(name))
        if (name in shown_sources or name.rsplit(".", 1)[-1].startswith("test")
                or (inspect.isclass(value) and issubclass(value, BaseException))):
            continue
        if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", code):
            names.append(name)
    return names[:UNSEEN_SOURCES]


def frames_shown(session: Session, dossier: dict) -> frozenset[int]:
    """Frames of the crash whose lines and locals the evidence showed, including the calls a
    recursion repeats (the evidence folds them into the one it shows)."""
    places = {(f["file"], f["line"], f["function"]) for f in dossier["frames"] if not f["locals_cut"]}
    return frozenset(e.index for e in session.debugger.stack if (e.filename, e.lineno, e.function) in places)


TRIMMED = "[older output trimmed to fit the context]"


def fit_context(messages: list[dict], engine, max_tokens: int, deadline: float) -> None:
    """Trim the oldest command outputs (never the system prompt or the evidence) until the prompt
    and the longest possible reply fit the model's context."""
    limit = engine.context_size(deadline)
    for message in messages[2:]:
        if engine.count_tokens(messages, deadline) + max_tokens <= limit:
            return
        if message["role"] == "user" and message["content"].startswith("Output:") and message["content"] != TRIMMED:
            message["content"] = TRIMMED
    if engine.count_tokens(messages, deadline) + max_tokens > limit:
        raise EngineError("the evidence does not fit the model's context")


def _state_key(session: Session, command: str) -> str:
    """A command and where it ran: `locals` in frame 2 is not `locals` in frame 3."""
    if session.rerun is not None and session.rerun.stopped:
        return f"{session.rerun.where}/{command}"
    d = session.debugger
    return f"{d.exception_index}/{d.curindex}/{command}"


def used_up(transcript: list[dict]) -> frozenset[str]:
    """Re-run commands the model has used as often as it may."""
    counts: dict[str, int] = {}
    for turn in transcript:
        name = turn["command"].split(" ", 1)[0]
        counts[name] = counts.get(name, 0) + 1
    return frozenset(name for name, limit in RERUN_LIMITS.items() if counts.get(name, 0) >= limit)


def without_commands(grammar: str, names: frozenset[str]) -> str:
    """GRAMMAR with the commands NAMES no longer offered (their rules stay, unused)."""
    lines = grammar.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("command ::= "):
            kept = [alt for alt in line.removeprefix("command ::= ").split(" | ")
                    if alt.removeprefix("cmd-") not in names]
            lines[i] = "command ::= " + " | ".join(kept)
    return "\n".join(lines) + "\n"


def known_outputs(session: Session, seen: set[str], shown_frames: frozenset[int]) -> frozenset[str]:
    """Commands without arguments whose output the model already has in this state."""
    known = {c.name for c in COMMANDS if not c.args and _state_key(session, c.name) in seen}
    d = session.debugger
    if d.exception_index == d.top_exception and d.curindex in shown_frames:
        known |= {"locals", "args"}  # the dossier showed them
    known.discard("done")
    return frozenset(known)


def _step_text(turn: dict) -> str:
    return f"Thought: {turn['thought']}\nCommand: {turn['command']}"


def parse_step(text: str) -> tuple[str, str]:
    thought, _, command = text.partition("\nCommand: ")
    return thought.removeprefix("Thought: ").strip(), command.strip()


def source_window(filename: str, first: int, last: int, context: int = 3) -> dict:
    lines = source_lines(filename)
    start = max(1, first - context)
    return {"first": start, "lines": lines[start - 1:min(len(lines), last + context)]}


def make_diagnosis(text: str, shown: dict, dossier: dict) -> dict | None:
    try:
        answer = json.loads(text)
        first = shown[answer["first_line"]]
        last = shown[answer["last_line"]]
    except (json.JSONDecodeError, KeyError, TypeError):
        return None  # the grammar makes this rare: an answer cut by max_tokens
    filename, line, _ = first
    line_end = last[1] if last[0] == filename and last[1] >= line else line
    diagnosis = {
        "file": filename, "display_file": display_path(filename), "line": line, "line_end": line_end,
        "root_cause": answer["root_cause"], "fix": None, "source_window": source_window(filename, line, line_end),
    }
    if answer.get("new_code") is not None:
        fix = check_fix(filename, line, line_end, answer["new_code"])
        if fix.problem is None:  # the root cause is what the fix changes
            line, line_end = fix.first, fix.last
            diagnosis.update(line=line, line_end=line_end, source_window=source_window(filename, line, line_end))
        diagnosis["fix"] = fix.to_dict()
        site = dossier["crash_site"]
        at_crash = site["file"] == filename and line <= site["line"] <= line_end
        if at_crash and dossier["assertion"]:
            # A failing assert is the specification: a "fix" that rewrites it only hides the bug.
            diagnosis["fix"]["problem"] = "it rewrites the failing assertion, which is the specification: fix the code it checks"
        elif at_crash and does_nothing(diagnosis["fix"]["replacement"]):
            diagnosis["fix"]["problem"] = "it deletes the line that crashed, which hides the error: correct the code instead"
    return diagnosis
