"""The crashed program is looked at only in probes: program functions may run there, their
effects die with the probe, and the session goes on after a probe that hangs or dies."""

from __future__ import annotations

import json

import pytest

from conftest import clean_env, run_py

VICTIM = '''\
import os
import sys

MARK = sys.argv[1]


def parse(text):
    return [int(x) for x in text.split(",")]


class Touchy:
    def __eq__(self, other):
        open(MARK, "w").write("eq ran in the crashed process")  # an effect the probe must keep in
        return True

    def __hash__(self):
        return 1


class Cart:
    def __init__(self):
        self.items = [3, 4]

    def total(self):
        return sum(self.items)

    def spin(self):
        while True:
            pass

    def leave(self):
        os._exit(0)


def numbers():
    yield 1
    yield 2


def main():
    touchy, cart, gen = Touchy(), Cart(), numbers()
    scores = parse("1,2")
    return scores[5]


main()
'''


def session(tmp_path, commands: str, **env):
    (tmp_path / "victim.py").write_text(VICTIM)
    mark = tmp_path / "mark"
    report = tmp_path / "report.json"
    run = run_py(["-m", "autodbg", "run", "-i", "--no-rerun", "victim.py", str(mark)], cwd=tmp_path,
                 input=commands + "quit\n", env=clean_env(AUTODBG_MODEL="none", AUTODBG_REPORT=str(report), **env),
                 timeout=120)
    assert run.returncode == 1
    assert "IndexError: list index out of range" in run.stderr.split("autodbg · ")[0]
    return run.stdout, mark, json.loads(report.read_text())


def answer(out: str, command: str) -> str:
    return out.split(f"(autodbg) {command}\n", 1)[1].split("\n(autodbg)", 1)[0]


def test_program_functions_run_in_the_probe_and_their_effects_die_there(tmp_path):
    out, mark, report = session(tmp_path, 'print parse("7,8")\nprint cart.total()\nprint touchy == 1\n'
                                          "print next(gen)\nprint next(gen)\nprint 1 + 1\n")
    assert answer(out, 'print parse("7,8")') == 'parse("7,8") = [7, 8]'
    assert answer(out, "print cart.total()") == "cart.total() = 7"
    assert "Refused" in answer(out, "print touchy == 1") and "open(" in answer(out, "print touchy == 1")
    assert not mark.exists()  # the sandbox refused the write, and the crashed process never ran __eq__
    assert answer(out, "print next(gen)") == "next(gen) = 1"  # each command sees the program as it crashed
    assert out.count("next(gen) = 1") == 2
    assert answer(out, "print 1 + 1") == "1 + 1 = 2"
    assert report["probe"] == {"mode": "fork", "evidence": "ok"}


@pytest.mark.slow
def test_a_probe_that_hangs_or_exits_is_reported_and_the_session_goes_on(tmp_path):
    out, mark, report = session(tmp_path, "print cart.spin()\nprint cart.leave()\nprint cart.items\n")
    assert answer(out, "print cart.spin()") == "error: timed out after 3.0 s"
    assert answer(out, "print cart.leave()") == "error: probe died: exit 0"
    assert answer(out, "print cart.items") == "cart.items = [3, 4]"


def test_inline_mode_calls_no_program_code(tmp_path):
    out, mark, report = session(tmp_path, 'print parse("7,8")\nprint touchy == 1\nprint scores\n', AUTODBG_PROBE="0")
    assert answer(out, 'print parse("7,8")').startswith("error: refused: calling parse() is not allowed")
    assert answer(out, "print scores") == "scores = [1, 2]"
    assert not mark.exists()
    assert report["probe"]["mode"] == "inline"


@pytest.mark.parametrize("setting, mode", [("1", "fork"), ("0", "inline")])
def test_status_says_where_programs_are_looked_at(setting, mode):
    run = run_py(["-m", "autodbg", "status"], env=clean_env(AUTODBG_PROBE=setting))
    rows = {line.split()[0]: line for line in run.stdout.splitlines() if line.startswith("  ")}
    assert rows["probe"].split()[1] == mode
    if mode == "fork":
        assert "audit" in rows and "yes" in rows["audit"] and "network" in rows
