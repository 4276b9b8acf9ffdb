"""Text that is safe to print on a terminal, whoever wrote it.

A crashed program's exception messages, values and source, and the model's output, may hold
escape sequences (`ESC]0;title BEL` retitles the window, `ESC[8m` hides what follows), carriage
returns or backspaces that overwrite lines, and bidi overrides that reorder what is shown. They
are shown as their escapes (`\\x1b`), so the text reads as what it is. Newlines and tabs stay: a
multi-line value is meant to span lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# C0 controls but tab and newline, DEL, C1 controls, and the bidi marks, embeddings, overrides
# and isolates (the "Trojan Source" characters), line/paragraph separators and the BOM.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")


def terminal_safe(text: str) -> str:
    """TEXT with every control character and escape-sequence introducer made visible."""
    return _UNSAFE.sub(_visible, text)


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


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


def terminal_safe_tree(value):
    """Every string of VALUE made terminal-safe (for renderables built from report data)."""
    return map_strings(value, terminal_safe)
