"""The model's final answer, read and checked: it names lines it was shown, and its fix must
apply, compile, change what the code does, and leave the failing assert and the crash line's
meaning alone."""

from __future__ import annotations

import ast
import json
import re

from autodbg.analysis.source import function_span, module_nodes, parse_source
from autodbg.debugger.output import ShownLine
from autodbg.frames.core import display_path, is_test_file, source_lines
from autodbg.fix.check import check_fix, does_nothing
from autodbg.records import Diagnosis, Dossier, Edit, SourceWindow, ValueOrigin


# Which provenance lines hold the bug most often (bench/HISTORY.md, "The answer strategies"): a
# `return` of a function that already returned, then a changed attribute or an unbound name and the binding that made it local
# (an UnboundLocalError's cause) or the test of an `if` that decided whether a definition ran, then
# assignments, then a caller's call that passed a failing parameter (its arguments may be wrong;
# changing its data rarely is right), loop targets last.
SUSPECT_KINDS = {"return": 0, "attribute": 1, "mutate": 1, "unbound": 1, "binding": 1, "discarded": 1, "guard": 1,
                 "argument": 3, "for": 4}


def likeliest_first(origins: list[ValueOrigin]) -> list[ValueOrigin]:
    """ORIGINS in the order they most likely hold the bug: by kind (SUSPECT_KINDS), then depth."""
    return sorted(origins, key=lambda o: (SUSPECT_KINDS.get(o.kind, 2), o.depth))


def quotable(line: ShownLine) -> str | None:
    """How the model quotes LINE in its answer (`FILE:N| code`); None for a blank line."""
    return f"{display_path(line.file)}:{line.line}| {line.code.strip()}" if line.code.strip() else None


def source_window(filename: str, first: int, last: int, context: int = 3) -> SourceWindow:
    lines = source_lines(filename)
    start = max(1, first - context)
    return SourceWindow(start, lines[start - 1:min(len(lines), last + context)])


def block_end(filename: str, line: int) -> int:
    """The last line of the innermost function or class holding LINE (of the module, at its top
    level): a fix's lines must not run on into the next function, whose code they would delete."""
    tree = parse_source("\n".join(source_lines(filename)))
    if tree is None:
        return line
    end = None
    for node in module_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.lineno <= line <= (node.end_lineno or node.lineno):
            end = node.end_lineno if end is None else min(end, node.end_lineno)
    if end is not None:
        return end
    following = [n.lineno - 1 for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                 and n.lineno > line]
    return min(following, default=len(source_lines(filename)))


def make_diagnosis(text: str, shown: dict[str, ShownLine], dossier: Dossier) -> Diagnosis | None:
    """The diagnosis in TEXT, the model's JSON answer naming lines among SHOWN (quote -> line)."""
    try:
        answer = json.loads(text)
        first = shown[answer["first_line"]]
        last = shown[answer["last_line"]]
        root_cause = answer["root_cause"]
    except (json.JSONDecodeError, KeyError, TypeError):
        return None  # the grammar makes this rare: an answer cut by max_tokens
    return diagnosis_of(first, last, root_cause, answer.get("new_code"), dossier)


def diagnosis_of(first: ShownLine, last: ShownLine, root_cause: str, new_code: str | None,
                 dossier: Dossier) -> Diagnosis:
    """The diagnosis that lines FIRST..LAST are wrong (ROOT_CAUSE says why) and NEW_CODE, when
    given, is their fix."""
    filename, line = first.file, first.line
    line_end = last.line if last.file == filename and line <= last.line <= block_end(filename, line) else line
    diagnosis = Diagnosis(file=filename, display_file=display_path(filename), line=line, line_end=line_end, root_cause=root_cause, fix=None, source_window=source_window(filename, line, line_end))
    if new_code is None:
        return diagnosis
    fix = check_fix(Edit(file=filename, first=line, last=line_end, replacement=new_code, origin="model"))
    if fix.usable:  # the root cause is what the fix changes
        diagnosis.line, diagnosis.line_end = fix.edit.first, fix.edit.last
        diagnosis.source_window = source_window(filename, fix.edit.first, fix.edit.last)
    diagnosis.fix = fix
    fix.problem = fix.problem or hiding(dossier, fix.edit)
    return diagnosis


def hiding(dossier: Dossier, edit: Edit) -> str | None:
    """Why EDIT would hide the crash rather than fix it, or None: it rewrites the failing assert,
    or the test that runs it, or deletes the line that crashed."""
    site = dossier.crash_site
    filename, first, last, replacement = edit.file, edit.first, edit.last, edit.replacement
    at_crash = site.file == filename and first <= site.line <= last
    if at_crash and dossier.assertion:
        # A failing assert is the specification: a "fix" that rewrites it only hides the bug.
        return "it rewrites the failing assertion, which is the specification: fix the code it checks"
    if any((filename, n) in specification_lines(dossier) for n in range(first, last + 1)):
        return "it changes the test that runs the failing assertion, not the code the assertion checks"
    if is_test_file(filename) or filename in judging_files(dossier):
        return (f"it changes {display_path(filename)}, which judges the fix (a test, or the driver that runs one): "
                "fix the code it tests")
    if at_crash and does_nothing(replacement):
        return "it deletes the line that crashed, which hides the error: correct the code instead"
    return None


def judging_files(dossier: Dossier) -> set[str]:
    """The files of the crash that judge a fix, which no fix may change: its test files and, where a
    test file's function was called from elsewhere, the callers that ran it (the driver)."""
    files = [frame.file for frame in dossier.frames]  # the crash frame first, the outermost last
    tests = [i for i, file in enumerate(files) if is_test_file(file)]
    return set(files[tests[0]:]) if tests else set()


def specification_lines(dossier: Dossier) -> set[tuple[str, int]]:
    """(file, line) of the test a fix may not change, nor an answer name, when a failing assert
    checks what the program's own functions returned (`assert parse(s) == 3`): the test function
    holding it (its data and its other asserts are the specification too) and the lines that call
    into it (`check(candidate)` deleted would "pass"). So is any failing assert in a test file, such
    as unittest's `self.assertIn(2, cache)` after the test used the program: a test is never what a
    fix changes. Nothing for other crashes, nor for a bare `assert 0 < rate < 1` in program code,
    whose callers may pass the wrong value."""
    if not dossier.assertion or not dossier.frames:
        return set()
    crash = dossier.frames[0]
    if not (crash.called_functions or dossier.replays or is_test_file(crash.file)):
        return set()
    first, last = function_span("\n".join(source_lines(crash.file)), crash.line) or (crash.line, crash.line)
    return {(crash.file, n) for n in range(first, last + 1)} | {(frame.file, frame.line) for frame in dossier.frames[1:]}


def junk(text: str, *, code: bool) -> bool:
    """Whether TEXT holds a run of junk tokens: one token again and again (`(null) (null) (null)
    (null)`; code may repeat more, `[0, 0, 0, 0, 0]`), or a long run of mixed symbols (`'}`}"]}`}'`)."""
    again = 7 if code else 3
    if re.search(rf"(\S+)(?:\s+\1){{{again},}}", text):
        return True
    return any(len(set(run)) >= 4 for run in re.findall(r"[^\w\s]{10,}", text))


FILLER = frozenset("a an the is are was were it this that there because of to in on at error".split())


def unreadable(diagnosis: Diagnosis, dossier: Dossier) -> str | None:
    """Why DIAGNOSIS is not an answer a person can use, or None: runs of junk tokens in its root
    cause or fix, or a root cause that only repeats the error message."""
    texts = [("root cause", diagnosis.root_cause)]
    if diagnosis.fix is not None:
        texts.append(("fix", diagnosis.fix.edit.replacement))
    for name, text in texts:
        if junk(text, code=name == "fix"):
            return f"its {name} is not words or code but a run of junk"
    return echo(diagnosis.root_cause, dossier)


def echo(root_cause: str, dossier: Dossier) -> str | None:
    """Why ROOT_CAUSE says nothing the error message did not, or None."""
    said = set(_words(root_cause)) - FILLER
    if not said or said <= set(_words(f"{dossier.exception.type} {dossier.exception.message}")):
        return "the root cause only repeats the error message: say what is wrong in the code and why"
    return None


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())
