"""Replacing lines FIRST..LAST of a source text, counting lines the way Python does.

Python ends a line at \n, \r\n or \r only; `str.splitlines` also splits at form feeds, vertical
tabs and other separators, which would shift every line number after one of them.
"""

from __future__ import annotations

import io


def python_lines(text: str) -> list[str]:
    """TEXT's lines with their endings, split where Python's tokenizer ends a line."""
    return io.StringIO(text, newline="").readlines()


def replace_lines(text: str, first: int, last: int, replacement: str) -> str:
    """TEXT with lines FIRST..LAST (1-based, inclusive) replaced by REPLACEMENT; ValueError when
    they are not lines of TEXT."""
    lines = python_lines(text)
    if not 1 <= first <= last <= len(lines):
        raise ValueError(f"lines {first}-{last} are not within its {len(lines)} lines")
    if replacement and not replacement.endswith(("\n", "\r")):
        replacement += "\n"
    return "".join(lines[:first - 1]) + replacement + "".join(lines[last:])
