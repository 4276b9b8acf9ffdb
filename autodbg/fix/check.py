"""Check a proposed fix without touching the user's files: apply it to the named lines of an
in-memory copy, keep the indentation consistent, and make sure the patched file compiles and
changes what the code does."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import os
import textwrap

from autodbg.frames.core import display_path
from autodbg.fix.lines import python_lines
from autodbg.records import Edit, Fix

NO_CHANGE = "the fix does not change the code"


def check_fix(edit: Edit, as_written: bool = False) -> Fix:
    """EDIT, checked; the lines it names shrink to those it really changes. A model's lines are
    re-indented to the lines they replace; AS_WRITTEN (a search's change) they stand as they are,
    so a line moved out of a loop by its indentation alone is a change."""
    filename, first, last = edit.file, edit.first, edit.last

    def fix(replacement: str, diff: str, applies: bool, compiles: bool, problem: str | None, first: int = first,
            last: int = last) -> Fix:
        changed = dataclasses.replace(edit, first=first, last=last, replacement=replacement)
        return Fix(edit=changed, diff=diff, applies=applies, compiles=compiles, problem=problem)

    try:
        with open(filename, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        return fix(edit.replacement, "", False, False, f"cannot read {display_path(filename)}: {exc}")
    lines = python_lines(source)
    if not 1 <= first <= last <= len(lines):
        return fix(edit.replacement, "", False, False, f"lines {first}-{last} are not in {display_path(filename)}")
    original = lines[first - 1:last]
    if as_written:
        new_lines = edit.replacement.splitlines(keepends=True)
        same = "".join(new_lines).rstrip() == "".join(original).rstrip()
    else:
        new_lines = reindent(edit.replacement, _indent(next((l for l in original if l.strip()), original[0])))
        same = "".join(new_lines).strip() == "".join(original).strip()
    if same:
        return fix("".join(new_lines), "", True, True, NO_CHANGE)
    # A model often rewrites a whole function to change one line: name the lines that change.
    head, tail = unchanged_ends(original, new_lines)
    first, last = first + head, last - tail
    new_lines = new_lines[head:len(new_lines) - tail]
    patched = lines[:first - 1] + new_lines + lines[last:]
    label = display_path(filename)
    headers = (label, label) if os.path.isabs(label) else (f"a/{label}", f"b/{label}")  # never `a//abs/path`
    diff = "".join(difflib.unified_diff(lines, patched, *headers))
    applied = "".join(new_lines)
    try:
        compile("".join(patched), filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return fix(applied, diff, True, False, f"the patched file does not compile: {exc.msg} (line {exc.lineno})",
                   first, last)
    if same_program(source, "".join(patched)):
        return fix(applied, diff, True, True, "the fix changes only layout or docstrings, not what the code does",
                   first, last)
    return fix(applied, diff, True, True, None, first, last)


def unchanged_ends(original: list[str], new_lines: list[str]) -> tuple[int, int]:
    """How many leading and trailing lines NEW_LINES keeps from ORIGINAL; (0, 0) when keeping
    them would leave no original line to replace (a pure insertion needs its anchor)."""
    room = min(len(original), len(new_lines))
    head = 0
    while head < room and original[head].rstrip() == new_lines[head].rstrip():
        head += 1
    tail = 0
    while tail < room - head and original[-1 - tail].rstrip() == new_lines[-1 - tail].rstrip():
        tail += 1
    return (head, tail) if head + tail < len(original) else (0, 0)


def same_program(before: str, after: str) -> bool:
    """Whether two sources differ only in layout, comments or docstrings."""
    try:
        trees = [ast.parse(before), ast.parse(after)]
    except SyntaxError:
        return False
    for tree in trees:
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
                body.pop(0)
    return ast.dump(trees[0]) == ast.dump(trees[1])


def does_nothing(replacement: str) -> bool:
    """Whether REPLACEMENT has no effect: empty, comments, `pass`, `...`, `None`."""
    try:
        tree = ast.parse(textwrap.dedent(replacement))
    except SyntaxError:
        return False  # part of a larger statement: it does something
    return all(isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
               for node in tree.body)


def added_guard(old: str, new: str) -> str | None:
    """What NEW, replacing the code OLD, adds that lets the code go on without doing what failed:
    a condition (`x if c else y`, `if`, a comprehension's filter), a short-circuit (`c and x`), a
    default (`.get(k, d)`, `getattr(o, n, d)`), a `try`; None when it adds none of these. On the
    line that crashed, such a fix makes the error go away whether or not the value it failed on
    was right: `customer.name if customer else ""` runs, and the lookup that returned None is
    still wrong."""
    before, after = _nodes(old), _nodes(new)
    if before is None or after is None:
        return None
    for what, count in GUARDS:
        if count(after) > count(before):
            return what
    return None


def _nodes(code: str) -> list[ast.AST] | None:
    """The syntax nodes of CODE, lines of a statement; a compound statement's header alone (`for x
    in y:`) gets a body so it parses."""
    text = textwrap.dedent(code).strip("\n")
    for attempt in (text, text + "\n    pass"):
        try:
            return list(ast.walk(ast.parse(attempt)))
        except SyntaxError:
            continue
    return None


def _calls(nodes: list[ast.AST], name: str, args: int) -> int:
    """Calls of NAME (a function or a method) with ARGS positional arguments among NODES."""
    return sum(1 for n in nodes if isinstance(n, ast.Call) and len(n.args) == args
               and (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)) == name)


GUARDS = (
    ("a condition", lambda ns: sum(isinstance(n, (ast.IfExp, ast.If)) for n in ns)
     + sum(len(n.ifs) for n in ns if isinstance(n, ast.comprehension))),
    ("a short-circuit", lambda ns: sum(isinstance(n, ast.BoolOp) for n in ns)),
    ("a default", lambda ns: _calls(ns, "get", 2) + _calls(ns, "getattr", 3)),
    ("a try", lambda ns: sum(isinstance(n, (ast.Try, getattr(ast, "TryStar", ast.Try))) for n in ns)),
)


def reindent(replacement: str, indent: str) -> list[str]:
    """Shift REPLACEMENT so its first line starts at INDENT, keeping relative indents: a line may
    end a block below the first (`    merged[key] = value` then `return merged`, a `return` added at
    the function's end)."""
    body = replacement.expandtabs(4).rstrip("\n").splitlines()
    while body and not body[0].strip():
        body.pop(0)
    if not body:
        return []
    first = _width(body[0])
    out = []
    for line in body:
        if not line.strip():
            out.append("\n")
        elif _width(line) >= first:
            out.append(indent + line[first:] + "\n")
        else:  # below the first line's block: as far below INDENT
            out.append(" " * max(0, len(indent.expandtabs(4)) - (first - _width(line))) + line.lstrip() + "\n")
    return out


def _width(line: str) -> int:
    return len(line) - len(line.lstrip())


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]
