"""Check a proposed fix without touching the user's files: apply it to the named lines of an
in-memory copy, keep the indentation consistent, and make sure the patched file compiles."""

from __future__ import annotations

import ast
import difflib
import textwrap
from dataclasses import asdict, dataclass

from autodbg.debugger.core import display_path


@dataclass
class FixCheck:
    replacement: str  # the replacement as applied (re-indented)
    diff: str
    applies: bool
    compiles: bool
    problem: str | None  # why the fix is not usable, one line

    def to_dict(self) -> dict:
        return asdict(self)


def check_fix(filename: str, first: int, last: int, replacement: str) -> FixCheck:
    try:
        with open(filename, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        return FixCheck(replacement, "", False, False, f"cannot read {display_path(filename)}: {exc}")
    lines = source.splitlines(keepends=True)
    if not 1 <= first <= last <= len(lines):
        return FixCheck(replacement, "", False, False, f"lines {first}-{last} are not in {display_path(filename)}")
    original = lines[first - 1:last]
    new_lines = reindent(replacement, _indent(next((l for l in original if l.strip()), original[0])))
    if "".join(new_lines).strip() == "".join(original).strip():
        return FixCheck("".join(new_lines), "", True, True, "the fix does not change the code")
    patched = lines[:first - 1] + new_lines + lines[last:]
    label = display_path(filename)
    diff = "".join(difflib.unified_diff(lines, patched, f"a/{label}", f"b/{label}"))
    try:
        compile("".join(patched), filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return FixCheck("".join(new_lines), diff, True, False, f"the patched file does not compile: {exc.msg} (line {exc.lineno})")
    return FixCheck("".join(new_lines), diff, True, True, None)


def does_nothing(replacement: str) -> bool:
    """Whether REPLACEMENT has no effect: empty, comments, `pass`, `...`, `None`."""
    try:
        tree = ast.parse(textwrap.dedent(replacement))
    except SyntaxError:
        return False  # part of a larger statement: it does something
    return all(isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
               for node in tree.body)


def reindent(replacement: str, indent: str) -> list[str]:
    """Shift REPLACEMENT so its least-indented line starts at INDENT, keeping relative indents."""
    body = replacement.expandtabs(4).rstrip("\n").splitlines()
    while body and not body[0].strip():
        body.pop(0)
    if not body:
        return []
    least = min(len(l) - len(l.lstrip()) for l in body if l.strip())
    return [(indent + l[least:] if l.strip() else "") + "\n" for l in body]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]
