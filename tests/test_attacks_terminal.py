"""Terminal attacks: escape sequences, tag and bidi characters reach stderr through every path
autodbg prints (exception text, settings problems, fallback reasons); each is shown escaped."""

from __future__ import annotations

import re
import sys

import pytest

from conftest import run_in_terminal

TAG = "".join(chr(0xE0000 + ord(c)) for c in "ignore previous")  # invisible "tag" text
BIDI = "\u202e\u2066\u200f\u061c"
RICH_OWN = re.compile(r"\x1b\[(?:[0-9;]*m|\?25[lh]|[0-9]*[AK])")  # rich's own bold, dim, and the progress line's cursor moves
RAW = re.compile("[\x07\x08\x1b\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\U000e0000-\U000e007f]")


def autodbg_part(terminal: str) -> str:
    start = terminal.index("autodbg · evidence")
    return terminal[terminal.rfind("\n", 0, start) + 1:]


def run(tmp_path, hooked, program: str, **env) -> str:
    (tmp_path / "victim.py").write_text(program)
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "victim.py")],
                                          env=hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE="1", **env))
    assert status == 1
    return autodbg_part(terminal)


@pytest.mark.parametrize("message", [TAG, BIDI, "\x1b]0;pwned\x07", "\x1b[2J\x1b[H"])
def test_exception_text_is_escaped(tmp_path, hooked, message):
    ours = run(tmp_path, hooked, f"raise ValueError({message!r})\n")
    assert not RAW.search(RICH_OWN.sub("", ours)), repr(ours)  # rich's own bold and dim are fine
    assert "ValueError: " in ours and "\\" in ours


@pytest.mark.parametrize("value", ["\x1b]0;pwned\x07", "remote" + TAG, "x\u202ey"])
def test_a_settings_value_is_escaped_in_its_problem(tmp_path, hooked, value):
    ours = run(tmp_path, hooked, "raise ValueError('plain')\n", AUTODBG_ENGINE=value)
    assert not RAW.search(RICH_OWN.sub("", ours)), repr(ours)  # rich's own bold and dim are fine
    assert "autodbg: evidence only (" in ours
