"""`autodbg run`: the program runs as under plain python, then autodbg reports on the crash."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from autodbg.run import HISTORY_LINES
from conftest import clean_env, run_py

CRASH = '''\
import sys

def parse(text):
    return int(text)

def main():
    values = [parse(x) for x in sys.argv[1:]]
    return sum(values) / len(values)

print(main())
'''


def write(tmp_path, name="prog.py", text=CRASH):
    (tmp_path / name).write_text(text)
    return name


def test_crash_prints_the_plain_traceback_then_evidence(tmp_path):
    script = write(tmp_path)
    plain = run_py([script], cwd=tmp_path, env=clean_env(AUTODBG="0"))
    ours = run_py(["-m", "autodbg", "run", script], cwd=tmp_path, env=clean_env(AUTODBG_MODEL="none"))
    assert plain.returncode == ours.returncode == 1
    assert ours.stderr.startswith(plain.stderr)  # same traceback, no runpy or autodbg frames
    assert "runpy" not in ours.stderr and "autodbg/run.py" not in ours.stderr
    rest = ours.stderr[len(plain.stderr):]
    assert "autodbg · " in rest and "values = []" in rest
    assert "autodbg: evidence only (AUTODBG_MODEL=none)" in rest


def test_with_the_start_up_hook_on_too_the_crash_is_reported_once(tmp_path, hooked):
    """`autodbg run` in a venv whose hook is on: it prints the traceback with the hook that hook
    wraps, not with the hook itself, which would report the crash a second time."""
    script = write(tmp_path)
    plain = run_py([script], cwd=tmp_path, env=clean_env(AUTODBG="0"))
    ours = run_py(["-m", "autodbg", "run", script], cwd=tmp_path, env=hooked(AUTODBG="1", AUTODBG_MODEL="none"))
    assert ours.returncode == 1 and ours.stderr.startswith(plain.stderr)
    assert ours.stderr.count("autodbg · ") == 1 and ours.stderr.count("Traceback") == 1


def test_arguments_exit_status_and_stdout(tmp_path):
    script = write(tmp_path)
    ok = run_py(["-m", "autodbg", "run", script, "4", "6"], cwd=tmp_path)
    assert ok.returncode == 0 and ok.stdout == "5.0\n" and ok.stderr == ""
    exits = write(tmp_path, "exits.py", "import sys\nprint(sys.argv)\nsys.exit(3)\n")
    run = run_py(["-m", "autodbg", "run", exits, "a"], cwd=tmp_path)
    assert run.returncode == 3 and run.stdout == "['exits.py', 'a']\n"


def test_module_mode(tmp_path):
    (tmp_path / "pkgmod.py").write_text("def f(d):\n    return d['missing']\n\nf({})\n")
    run = run_py(["-m", "autodbg", "run", "-m", "pkgmod"], cwd=tmp_path, env=clean_env(AUTODBG_MODEL="none"))
    assert run.returncode == 1
    assert "KeyError: 'missing'" in run.stderr and "autodbg · " in run.stderr


def test_interactive_session_from_a_pipe(tmp_path):
    script = write(tmp_path)
    run = run_py(["-m", "autodbg", "run", "--interactive", script], cwd=tmp_path,
                 env=clean_env(AUTODBG_MODEL="none"), input="where\nprint values\nup\nbogus\nquit\n")
    assert run.returncode == 1
    out = run.stdout
    assert "(autodbg) where\n" in out and "> 1 prog.py:8 in main" in out
    assert "(autodbg) print values\nvalues = []\n(autodbg) up\nframe 0: prog.py:10 in <module>" in out
    assert "error: unknown command 'bogus'; try `help`" in out


def test_interactive_why_without_a_model_says_so(tmp_path):
    script = write(tmp_path)
    run = run_py(["-m", "autodbg", "run", "-i", script], cwd=tmp_path, env=clean_env(AUTODBG_MODEL="none"),
                 input="why\n")
    assert "(autodbg) why\nno model (AUTODBG_MODEL=none)" in run.stdout


def test_autodbg_0_turns_the_report_off(tmp_path):
    script = write(tmp_path)
    plain = run_py([script], cwd=tmp_path, env=clean_env(AUTODBG="0"))
    ours = run_py(["-m", "autodbg", "run", script], cwd=tmp_path, env=clean_env(AUTODBG="0"))
    assert ours.returncode == 1 and ours.stderr == plain.stderr


def test_program_reading_stdin(tmp_path):
    script = write(tmp_path, "echo.py", "import sys\nprint(sys.stdin.read().upper())\n")
    run = run_py(["-m", "autodbg", "run", script], cwd=tmp_path, input="hello")
    assert run.returncode == 0 and run.stdout == "HELLO\n"


def test_bad_input_is_one_line(tmp_path):
    missing = run_py(["-m", "autodbg", "run", "nope.py"], cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr == "autodbg: no such script: nope.py\n"
    no_module = run_py(["-m", "autodbg", "run", "-m", "no_such_module_here"], cwd=tmp_path)
    assert no_module.returncode == 2 and no_module.stderr == "autodbg: no module named no_such_module_here\n"
    package = run_py(["-m", "autodbg", "run", "-m", "json"], cwd=tmp_path)
    assert package.returncode == 2 and package.stderr == \
        "autodbg: no module named json.__main__; 'json' is a package and cannot be directly executed\n"
    nothing = run_py(["-m", "autodbg", "run"], cwd=tmp_path)
    assert nothing.returncode == 2 and nothing.stderr.count("\n") == 1
    bad_setting = run_py(["-m", "autodbg", "run", write(tmp_path)], cwd=tmp_path,
                         env=clean_env(AUTODBG_TIMEOUT="soon"))
    assert bad_setting.returncode == 1
    ours = bad_setting.stderr.split("ZeroDivisionError: division by zero\n", 1)[1]
    assert ours.startswith("autodbg: AUTODBG_TIMEOUT='soon' in the environment is not a number: using the default (60)\n")
    assert "Traceback" not in ours and "autodbg · " in ours


def test_interactive_why_with_an_unavailable_model_is_one_line(tmp_path):
    script = write(tmp_path)
    run = run_py(["-m", "autodbg", "run", "-i", script], cwd=tmp_path, input="why\nwhere\n",
                 env=clean_env(AUTODBG_MODEL=str(tmp_path / "missing.gguf")))
    assert "(autodbg) why\nno diagnosis: AUTODBG_MODEL=" in run.stdout and "no such file" in run.stdout
    assert "(autodbg) where" in run.stdout  # the session goes on


# --- the prompt on a terminal: readline's line editing and history --------------------------------

PROMPT = "(autodbg) "
UP, LEFT = "\x1b[A", "\x1b[D"  # what a terminal sends for the arrow keys


class Terminal:
    """A program on a pseudo-terminal (stdin, stdout and stderr), typed into as a person does:
    wait for its prompt, then type."""

    def __init__(self, args: list[str], *, cwd, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave)
        os.close(slave)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def read_until(self, *texts: str, timeout: float = 60) -> str:
        """What the terminal shows until TEXTS have appeared, in that order (CR LF made LF)."""
        shown, deadline = "", time.monotonic() + timeout
        while not self._has(shown, texts):
            if time.monotonic() > deadline:
                pytest.fail(f"the terminal never showed {texts}; it showed: {shown[-2000:]!r}")
            if select.select([self.master], [], [], 1)[0]:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # EIO: the program has closed the terminal
                    pytest.fail(f"the program ended before showing {texts}; it showed: {shown[-2000:]!r}")
                shown += data.decode(errors="replace").replace("\r\n", "\n")
        return shown

    @staticmethod
    def _has(shown: str, texts: tuple[str, ...]) -> bool:
        at = 0
        for text in texts:
            at = shown.find(text, at)
            if at < 0:
                return False
            at += len(text)
        return True

    def close(self) -> int:
        """The program's exit status; killed if it has not ended (a test that failed at its prompt)."""
        try:
            return self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
        finally:
            os.close(self.master)


INTERACTIVE_CRASH = """\
def main():
    x = 41
    total = 0
    return x / total

main()
"""


def test_the_prompt_on_a_terminal_edits_lines_and_recalls_them(tmp_path):
    script = write(tmp_path, text=INTERACTIVE_CRASH)
    terminal = Terminal([sys.executable, "-m", "autodbg", "run", "-i", script], cwd=tmp_path,
                        env=clean_env(AUTODBG_MODEL="none", TERM="xterm"))
    try:
        terminal.read_until(PROMPT)
        terminal.type("print x + 1\r")
        assert "x + 1 = 42\n" in terminal.read_until("x + 1 = 42", PROMPT)
        terminal.type(UP + "\r")  # the line before, from readline's history
        again = terminal.read_until("x + 1 = 42", PROMPT)
        assert "x + 1 = 42\n" in again and "unknown command" not in again
        terminal.type("prnt x" + LEFT * 4 + "i\r")  # back to after "pr", insert the missing "i"
        edited = terminal.read_until("x = 41", PROMPT)
        assert "x = 41\n" in edited and "unknown command" not in edited
        terminal.type("quit\r")
    finally:
        status = terminal.close()
    assert status == 1  # the program's own exit status: ZeroDivisionError


PDB_CRASH = """\
def summarize(orders):
    totals = {}
    for order in orders:
        totals[order["customer"]] = totals.get(order["customer"], 0) + order["amount"]
    report = {"customers": sorted(totals), "totals": totals, "orders": orders}
    count = len([o for o in orders if o["amount"] > 100])
    return sum(totals.values()) / count


def main():
    orders = [{"customer": "ann", "amount": 12}, {"customer": "bob", "amount": 30}]
    print(summarize(orders))


main()
"""
PDB_LINES = PDB_CRASH.splitlines()


def listing(first, last, current=7):
    """Lines FIRST..LAST of PDB_CRASH as `list` numbers them, `->` on CURRENT."""
    width = len(str(last))
    return "\n".join(f"{str(n).rjust(width)} {'->' if n == current else '  '} {PDB_LINES[n - 1]}".rstrip()
                     for n in range(first, last + 1))


def typed(terminal, line: str) -> str:
    """What the program printed for LINE, typed at its prompt: between the line's echo and the
    next prompt, without readline's terminal modes."""
    terminal.type(line + "\r")
    shown = terminal.read_until(line + "\n", PROMPT)
    shown = re.sub(r"\x1b\[\?2004[hl]", "", shown)
    return "\n".join(l.rstrip() for l in shown.split(line + "\n", 1)[1].rsplit(PROMPT, 1)[0].strip("\n").splitlines())


def pdb_terminal(tmp_path) -> Terminal:
    script = write(tmp_path, text=PDB_CRASH)
    terminal = Terminal([sys.executable, "-m", "autodbg", "run", "-i", script], cwd=tmp_path,
                        env=clean_env(AUTODBG_MODEL="none", TERM="xterm", XDG_STATE_HOME=str(tmp_path / "state")))
    terminal.read_until(PROMPT)
    return terminal


def test_pdbs_names_at_the_prompt_on_a_terminal(tmp_path):
    terminal = pdb_terminal(tmp_path)
    try:
        assert typed(terminal, "p totals") == "{'ann': 12, 'bob': 30}"
        assert typed(terminal, "pp report") == (
            "{'customers': ['ann', 'bob'],\n"
            " 'totals': {'ann': 12, 'bob': 30},\n"
            " 'orders': [{'customer': 'ann', 'amount': 12},\n"
            "            {'customer': 'bob', 'amount': 30}]}")
        assert typed(terminal, "whatis summarize") == "Function summarize"
        assert typed(terminal, "whatis totals") == "<class 'dict'>"
        stack = ("  0 prog.py:15 in <module>\n      main()\n  1 prog.py:12 in main\n      print(summarize(orders))\n"
                 "> 2 prog.py:7 in summarize\n      return sum(totals.values()) / count")
        assert typed(terminal, "bt") == typed(terminal, "w") == typed(terminal, "where") == stack
        assert typed(terminal, "u 5") == "frame 0: prog.py:15 in <module>\n  15 -> main()"  # pdb's: to the top
        assert typed(terminal, "d") == "frame 1: prog.py:12 in main\n  12 -> print(summarize(orders))"
        assert typed(terminal, "d 9") == "frame 2: prog.py:7 in summarize\n  7 -> return sum(totals.values()) / count"
        assert typed(terminal, "l") == listing(2, 12)
        assert typed(terminal, "l") == listing(13, 15)  # goes on where the last listing ended
        assert typed(terminal, "") == "[EOF]"  # an empty line repeats the last command, as in pdb
        assert typed(terminal, "l .") == listing(2, 12)
        assert typed(terminal, "l 3, 4") == listing(3, 4)
        assert typed(terminal, "list 3, 4") == listing(3, 4)
        assert typed(terminal, "ll") == listing(1, 7)
        assert typed(terminal, "longlist") == listing(1, 7)
        assert typed(terminal, "a") == "orders = [{'customer': 'ann', 'amount': 12}, {'customer': 'bob', 'amount': 30}]"
        assert typed(terminal, "h pp") == "pp EXPR  print: the value pretty-printed, one item a line when it is wide"
        assert typed(terminal, "h").startswith("where ")
        terminal.type("exit\r")
    finally:
        status = terminal.close()
    assert status == 1


@pytest.mark.parametrize("leave", ["q", "quit", "exit"])
def test_pdbs_ways_to_leave(tmp_path, leave):
    terminal = pdb_terminal(tmp_path)
    try:
        terminal.type(leave + "\r")
        assert terminal.proc.wait(30) == 1
    finally:
        terminal.close()


@pytest.mark.slow
def test_the_prompts_history_is_kept_between_sessions_and_bounded(tmp_path):
    terminal = pdb_terminal(tmp_path)
    try:
        assert typed(terminal, "p count") == "0"
        terminal.type("quit\r")
    finally:
        terminal.close()
    history = tmp_path / "state" / "autodbg" / "history"
    assert history.read_text().splitlines()[-2:] == ["p count", "quit"]
    terminal = pdb_terminal(tmp_path)
    try:
        terminal.type(UP + UP + "\r")  # the line before `quit`, from the last session
        assert "\n0\n" in terminal.read_until("\n0\n", PROMPT)
        terminal.type("quit\r")
    finally:
        terminal.close()
    history.write_text("".join(f"p {i}\n" for i in range(2 * HISTORY_LINES)))
    terminal = pdb_terminal(tmp_path)
    try:
        terminal.type("quit\r")
    finally:
        terminal.close()
    kept = history.read_text().splitlines()
    assert len(kept) == HISTORY_LINES and kept[-1] == "quit" and kept[0] == f"p {HISTORY_LINES + 1}"
