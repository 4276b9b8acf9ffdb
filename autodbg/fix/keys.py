"""Changes of a key that a KeyError says is missing, read off the crashed program's live mappings.

`row[PRICE_COLUMN]` raised KeyError: 'price' where `row` has the keys `region`, `unit_price`,
`quantity`: the string `"price"` that made the key is most likely a misnamed key, and
`PRICE_COLUMN = "unit_price"` a fix. `RATES[currency]` raised KeyError: 'FR' where the caller
passed `order["country"]`, and `order["currency"]` is 'EUR', a key of RATES: the caller read the
wrong field. Each change is a splice of one line's text, tried like any other (autodbg.fix.trial).

Runs where the frames are, in a probe: it evaluates the names and subscripts of the failing lines.
"""

from __future__ import annotations

import ast
import difflib

from autodbg.frames.core import Inspector, PostMortem, source_lines
from autodbg.records import Edit

MAX_KEYS = 8  # keys of a mapping tried in place of a missing one, the most alike first


def key_change(file: str, line: int, replacement: str) -> Edit:
    """Line LINE of FILE, whose text becomes REPLACEMENT (ending in a newline)."""
    return Edit(file=file, first=line, last=line, replacement=replacement, origin="key")


def key_changes(debugger: Inspector, places: list[tuple[str, int]]) -> list[Edit]:
    """For a KeyError of a string key: every PLACES line (file, line) holding that string as a
    literal, with each key of the mapping that lacked it instead; and every line of the stack whose
    `D["k"]` gave the missing key, with another key of D whose value the mapping has."""
    exc = debugger.exception if isinstance(debugger, PostMortem) else None  # a live stop has none
    if not isinstance(exc, KeyError) or not exc.args or not isinstance(exc.args[0], str):
        return []
    missing = exc.args[0]
    crash = debugger.stack[max(debugger.user_indexes() or [debugger.crash_index])]
    mapping = _lacking(crash, missing)
    if mapping is None:
        return []
    keys = [k for k in mapping if isinstance(k, str)]
    keys = sorted(keys, key=lambda k: -difflib.SequenceMatcher(None, k, missing).ratio())[:MAX_KEYS]
    changes = [change for file, line in places for change in _literal_changes(file, line, missing, keys)]
    for entry in debugger.stack:
        if entry.is_user:
            changes += _field_changes(entry, missing, set(keys))
    return list(dict.fromkeys(changes))


def _lacking(entry, missing: str) -> dict | None:
    """The dict that a subscript on ENTRY's line read MISSING from, and lacked it."""
    for node in _nodes(entry.filename, entry.lineno):
        if isinstance(node, ast.Subscript):
            mapping, key = _value(node.value, entry.frame), _value(node.slice, entry.frame)
            if isinstance(mapping, dict) and key == missing and missing not in mapping:
                return mapping
    return None


def _literal_changes(file: str, line: int, missing: str, keys: list[str]) -> list[Edit]:
    text = _line(file, line)
    changes = []
    for node in _nodes(file, line):
        if isinstance(node, ast.Constant) and node.value == missing and node.lineno == node.end_lineno == line:
            quote = text.encode()[node.col_offset:node.col_offset + 1].decode()
            if quote in "'\"":
                changes += [key_change(file, line, _splice(text, node, f"{quote}{key}{quote}")) for key in keys
                            if quote not in key and "\\" not in key]
    return changes


def _field_changes(entry, missing: str, keys: set[str]) -> list[Edit]:
    """`order["currency"]` for `order["country"]` on ENTRY's line, where `order["country"]` is the
    missing key and `order["currency"]` one the mapping has."""
    text = _line(entry.filename, entry.lineno)
    changes = []
    for node in _nodes(entry.filename, entry.lineno):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str) and node.lineno == node.end_lineno == entry.lineno):
            continue
        record = _value(node.value, entry.frame)
        if isinstance(record, dict) and record.get(node.slice.value) == missing:
            quote = text.encode()[node.slice.col_offset:node.slice.col_offset + 1].decode()
            changes += [key_change(entry.filename, entry.lineno, _splice(text, node.slice, f"{quote}{field}{quote}"))
                        for field, value in record.items() if isinstance(field, str) and field != node.slice.value
                        and isinstance(value, str) and value in keys and quote in "'\"" and quote not in field]
    return changes


def _value(node: ast.AST, frame):
    """NODE's value in FRAME when it is a name, a constant, an attribute or a constant subscript of
    those; None otherwise (nothing is called)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        for scope in (frame.f_locals, frame.f_globals, frame.f_builtins):
            if node.id in scope:
                return scope[node.id]
        return None
    if isinstance(node, ast.Attribute):
        base = _value(node.value, frame)
        return getattr(base, node.attr, None) if base is not None else None
    if isinstance(node, ast.Subscript):
        base, key = _value(node.value, frame), _value(node.slice, frame)
        if isinstance(base, dict) and isinstance(key, (str, int)):
            return base.get(key)
    return None


def _nodes(file: str, line: int) -> list[ast.AST]:
    """The syntax nodes of the statement that starts at or holds LINE, parsed alone."""
    text = _line(file, line)
    stripped = text.strip().rstrip(":")
    for candidate in (stripped, stripped + ":\n    pass"):
        try:
            tree = ast.parse(candidate)
        except SyntaxError:
            continue
        shift = len(text) - len(text.lstrip())
        for node in ast.walk(tree):  # back to the line's own columns and number
            if hasattr(node, "col_offset"):
                node.lineno = node.end_lineno = line
                node.col_offset += len(text[:shift].encode())
                node.end_col_offset += len(text[:shift].encode())
        return list(ast.walk(tree))
    return []


def _line(file: str, line: int) -> str:
    lines = source_lines(file)
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _splice(text: str, node: ast.AST, new: str) -> str:
    raw = text.encode()
    return (raw[:node.col_offset] + new.encode() + raw[node.end_col_offset:]).decode() + "\n"
