"""Crashes without a frame of the program: a script that does not compile (under the hook, and
under `autodbg run`), an exception handed to the hook unraised. A short, correct section; never
"autodbg: internal error"; the exit status is Python's."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conftest import run_in_terminal

BAD = "def f(:\n    pass\n"


def plain(terminal: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", terminal)  # rich's own bold and dim


def test_a_script_with_a_syntax_error(tmp_path, hooked):
    (tmp_path / "bad.py").write_text(BAD)
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "bad.py")],
                                          env=hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE="1"))
    assert status == 1 and "internal error" not in terminal
    ours = plain(terminal)[plain(terminal).index("autodbg · evidence"):]
    assert "SyntaxError: invalid syntax" in ours and "bad.py:1 in <module>" in ours and "def f(:" in ours
    assert "bad.py, line 1 does not compile: nothing ran)" in " ".join(ours.split())


def test_autodbg_run_of_a_script_with_a_syntax_error(tmp_path, hooked):
    (tmp_path / "bad.py").write_text(BAD)
    autodbg = Path(sys.executable).with_name("autodbg")
    status, _, terminal = run_in_terminal([str(autodbg), "run", str(tmp_path / "bad.py")],
                                          env=hooked(AUTODBG_MODEL="none", AUTODBG_VERBOSE="1"))
    assert status == 1 and "internal error" not in terminal
    ours = plain(terminal)[plain(terminal).index("autodbg · evidence"):]
    assert "bad.py:1 in <module>" in ours and "bad.py, line 1 does not compile: nothing ran" in " ".join(ours.split())


def test_the_short_screen_of_a_syntax_error_names_the_line_and_python_s_message_stays_python_s(tmp_path, hooked):
    (tmp_path / "bad.py").write_text(BAD)
    plain_python = run_in_terminal([sys.executable, str(tmp_path / "bad.py")], env=hooked(AUTODBG="0"))[2]
    autodbg = Path(sys.executable).with_name("autodbg")
    status, _, terminal = run_in_terminal([str(autodbg), "run", str(tmp_path / "bad.py")],
                                          env=hooked(AUTODBG_MODEL="none", TERM="dumb"))
    shown = plain(terminal)
    assert status == 1 and shown.startswith(plain_python)  # no frame of autodbg's, as `python bad.py` prints it
    ours = shown[len(plain_python):].strip().splitlines()
    assert ours[0].startswith("autodbg · SyntaxError: invalid syntax (bad.py, line 1)")
    rest = " ".join(" ".join(ours[1:]).split())
    assert rest.startswith("AUTODBG_VERBOSE=1 shows all the evidence autodbg: evidence only (")
    assert rest.endswith("bad.py, line 1 does not compile: nothing ran)") and len(ours) <= 5  # the long tmp path wraps
    assert "No fix found" not in shown  # nothing was sought


def test_an_exception_handed_to_the_hook_unraised(tmp_path, hooked):
    (tmp_path / "hand.py").write_text("import sys\nsys.excepthook(ValueError, ValueError('raised nowhere'), None)\n")
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "hand.py")],
                                          env=hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE="1"))
    assert status == 0 and "internal error" not in terminal
    assert "ValueError: raised nowhere" in terminal[terminal.index("autodbg · evidence"):]


def test_an_indentation_error_in_an_imported_module(tmp_path, hooked):
    (tmp_path / "badmod.py").write_text("def f():\n    x = 1\n      y = 2\n")
    (tmp_path / "main.py").write_text("import badmod\n")
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "main.py")],
                                          env=hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE="1"))
    assert status == 1 and "internal error" not in terminal
    assert "IndentationError: unexpected indent" in terminal[terminal.index("autodbg · evidence"):]
