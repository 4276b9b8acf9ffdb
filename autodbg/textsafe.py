"""Text that is safe to print on a terminal, whoever wrote it.

A crashed program's exception messages, values and source, and the model's output, may hold
escape sequences (`ESC]0;title BEL` retitles the window, `ESC[8m` hides what follows), carriage
returns or backspaces that overwrite lines, and bidi overrides that reorder what is shown. They
are shown as their escapes (`\\x1b`), so the text reads as what it is. Newlines and tabs stay: a
multi-line value is meant to span lines.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import sys
from collections.abc import Callable

# C0 controls but tab and newline, DEL, C1 controls, and the bidi marks, embeddings, overrides
# and isolates (the "Trojan Source" characters), line/paragraph separators and the BOM.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff"
                     "\U000e0000-\U000e007f]")  # and the tag characters, invisible text a reader never sees


def terminal_safe(text: str) -> str:
    """TEXT with every control character and escape-sequence introducer made visible."""
    return _UNSAFE.sub(_visible, text)


def say(text: object, file=None) -> None:
    """Print TEXT (as print would show it) made terminal-safe: the one way autodbg's own lines reach
    a terminal (FILE, else stdout), so a path, a setting or a server's message it quotes cannot send
    escape sequences."""
    print(terminal_safe(str(text)), file=sys.stdout if file is None else file, flush=True)


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def map_strings(value, change: Callable[[str], str]):
    """VALUE (JSON-like data: dicts, lists, tuples, strings) with CHANGE applied to every string,
    keys included; other values as they are."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {map_strings(k, change): map_strings(v, change) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [map_strings(v, change) for v in value]
    return value


def map_values(value, change: Callable[[str], str]):
    """VALUE (a record: dataclasses, lists, dicts, strings) with CHANGE applied to every text value;
    dict keys (names) and vocabulary (enum) values stay as they are, so its shape never changes."""
    if isinstance(value, enum.Enum):
        return value
    if isinstance(value, str):
        return change(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: map_values(getattr(value, f.name), change)
                                             for f in dataclasses.fields(value) if f.init})
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        return type(value)(*(map_values(v, change) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(map_values(v, change) for v in value)
    if isinstance(value, dict):
        return {k: map_values(v, change) for k, v in value.items()}
    return value


def terminal_safe_tree(value):
    """Every string of VALUE made terminal-safe (for renderables built from report data)."""
    return map_strings(value, terminal_safe)
