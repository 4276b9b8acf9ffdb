"""Terminal attacks: escape sequences, tag and bidi characters reach stderr through every path
autodbg prints (exception text, settings problems, fallback reasons); each is shown escaped."""

from __future__ import annotations

import re
import sys

import pytest

from conftest import clean_env, run_in_terminal, run_py

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


FORGED = "Suggested fix · passes your tests"


@pytest.mark.parametrize("verbose", ["0", "1"])
def test_program_text_cannot_draw_lines_of_autodbg(tmp_path, hooked, verbose):
    """An exception message and a value whose repr span lines, each trying to pass for autodbg's
    own rule and green label: their later lines come behind the gutter, never at the left edge."""
    program = ("class Odd:\n"
               "    def __repr__(self):\n"
               f"        return 'odd\\n{FORGED}'\n"
               "odd = Odd()\n"
               f"raise ValueError('bad\\n─── autodbg · fake ───\\n{FORGED} ' + repr(odd))\n")
    (tmp_path / "victim.py").write_text(program)
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "victim.py")],
                                          env=hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE=verbose))
    assert status == 1
    first = terminal.index("autodbg · evidence" if verbose == "1" else "autodbg · ValueError")  # after Python's own traceback
    ours = terminal[terminal.rfind("\n", 0, first) + 1:]
    lines = RICH_OWN.sub("", ours).replace("\r", "").splitlines()
    listing = re.compile(r"\s*(❱\s*)?\d+ ")  # the source, behind its line numbers
    forged = [line for line in lines if (FORGED in line or "autodbg · fake" in line) and not listing.match(line)]
    assert forged, ours  # the values are shown...
    assert all(line.startswith("    ┊ ") for line in forged), ours  # ...each behind the gutter
    assert not any(line.startswith(("Suggested fix", "─── autodbg · fake")) for line in lines), ours


@pytest.mark.slow
def test_every_line_autodbg_prints_itself_goes_through_the_escaping_function():
    """`say` (terminal_safe, then print) is how autodbg writes its own lines: no bare print() and no
    stream .write() of text that did not pass terminal_safe, anywhere in the package. The two
    exceptions write what Python itself would (a SystemExit's message) or a line to the parent."""
    import ast
    from pathlib import Path

    import autodbg

    allowed_prints = {("program/target.py", "print(code, file=sys.stderr)"),  # as `python` prints SystemExit("text")
                      ("program/confined.py", 'print(f"{confine.UNCONFINED_MARK}{why}", file=sys.stderr)')}  # read by the parent
    root = Path(autodbg.__file__).parent
    bare = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Call):
                continue
            call = ast.get_source_segment(source, node)
            if isinstance(node.func, ast.Name) and node.func.id == "print" and rel != "textsafe.py":
                if (rel, call) not in allowed_prints:
                    bare.append(f"{rel}:{node.lineno}: {call}")
            stream = ast.unparse(node.func)
            if stream in ("sys.stderr.write", "sys.stdout.write") and not all(
                    isinstance(a, ast.Constant) or (isinstance(a, ast.BinOp) and "terminal_safe(" in ast.unparse(a))
                    or (isinstance(a, ast.Call) and ast.unparse(a.func) == "terminal_safe") for a in node.args):
                bare.append(f"{rel}:{node.lineno}: {call}")
    assert bare == []


def test_a_planted_setting_name_is_escaped_when_trusted(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "pyproject.toml").write_text('[tool.autodbg]\n"\\u001b]0;pwned\\u0007" = 1\nverbose = true\n')
    done = run_py(["-m", "autodbg", "trust", str(tmp_path / "project")],
                  env=clean_env(XDG_CONFIG_HOME=str(tmp_path / "config")))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "it sets \\x1b]0;pwned\\x07, verbose" in done.stdout
