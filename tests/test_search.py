"""The search for a fix without a model (autodbg.investigate.search): small changes of the lines
that made the failing values, each run on the real crashed program in a probe; then the model's
choice among those that passed (loop logic with the scripted stand-in, named as such)."""

from __future__ import annotations

import json
import runpy
import time

import pytest

from autodbg.investigate.loop import investigate
from autodbg.investigate.plan import Budget
from autodbg.investigate.search import CANDIDATE_SECONDS, RUN_KINDS, Place, proof, search, search_places
from autodbg.crash import CrashSession
from autodbg.records import Candidate, Edit, FixTrial, Search
from conftest import clean_env, run_py
from crashkit import BELOW_ZERO, ScriptedStandInModel

# A test of count_down(): its `return` doubles the count. Changes of its other lines loop for ever
# (`n += 1`) or write a file (`steps < 100`): a probe must contain both.
COUNT_DOWN = '''\
def count_down(n, log):
    steps = 0
    while n > 0:
        n -= 1
        steps += 1
    if steps > 100:
        open(log, "w").write("written by a changed program")
    return steps * 2


def check(count_down):
    assert count_down(3, "LEAK") == 3


check(count_down)
'''

SCRIPT = "def mean(values):\n    return sum(values) / len(values)\n\n\nprint(mean([]))\n"


def crashed(directory, monkeypatch, source: str, name: str = "prog.py"):
    """Run SOURCE as DIRECTORY/NAME here; the session and dossier of its crash, whose traceback
    starts at the program's own frames as sys.excepthook gets it."""
    monkeypatch.chdir(directory)
    (directory / name).write_text(source)
    with pytest.raises(Exception) as raised:
        runpy.run_path(str(directory / name), run_name="__main__")
    session = CrashSession.of_crash(raised.value.with_traceback(raised.value.__traceback__.tb_next))
    return session, session.dossier()


@pytest.mark.slow
def test_the_search_finds_the_one_token_fix_of_a_failing_test(tmp_path, monkeypatch):
    session, dossier = crashed(tmp_path, monkeypatch, BELOW_ZERO)
    assert proof(dossier) == "test"
    places = search_places(dossier)
    # the lines the replayed call ran, the last to run first; never the test (lines 10-16)
    assert [p.line for p in places][:5] == [6, 5, 4, 3, 2] and all(p.line < 10 for p in places)
    found = search(session, dossier, time.monotonic() + 10)
    assert found.passing, found
    best = found.passing[0]
    assert (best.display_file, best.edit.first, best.edit.last, best.edit.origin) == ("prog.py", 5, 5, "comparison")
    assert (best.code, best.edit.replacement) == ("        if balance == 0:\n", "        if balance < 0:\n")
    assert best.trial == FixTrial("passes", "with this fix the failing assertion holds, and the code that holds it "
                                            "runs to its end")
    assert found.tried >= 1 and found.lines == len(places) and (tmp_path / "prog.py").read_text() == BELOW_ZERO


def test_changes_that_write_are_refused_in_their_probe_and_the_search_goes_on(tmp_path, monkeypatch):
    session, dossier = crashed(tmp_path, monkeypatch, COUNT_DOWN)
    writing_first = [Place(str(tmp_path / "prog.py"), n) for n in (6, 8)]  # `if steps < 100:` writes LEAK
    found = search(session, dossier, time.monotonic() + 30, writing_first)
    assert not (tmp_path / "LEAK").exists()
    assert found.outcomes["not run"] >= 2  # the sandbox refused the write: not counted as passing
    assert [c.edit.replacement for c in found.passing] == ["    return steps\n"]
    assert found.tried == sum(found.outcomes.values())


@pytest.mark.slow
def test_changes_that_loop_are_stopped_and_the_search_keeps_its_deadline(tmp_path, monkeypatch):
    session, dossier = crashed(tmp_path, monkeypatch, COUNT_DOWN)
    started = time.monotonic()
    found = search(session, dossier, started + 3, [Place(str(tmp_path / "prog.py"), 4)])  # `n += 1` never ends
    assert found.outcomes["hangs"] >= 2
    assert time.monotonic() - started < 3 + CANDIDATE_SECONDS


# A plain crash (no test): `parse_date` swapped strptime's arguments; `total` sums a generator
# that `count` already consumed; `describe` hides the crash if its division is made `*`.
SWAPPED = """\
from datetime import datetime

FORMAT = "%Y-%m-%d"


def parse_date(text):
    return datetime.strptime(FORMAT, text).date()


def describe(days):
    return f"{len(days)} days, {100 / len(days):.0f}% each"


print(describe([parse_date("2024-05-01")]))
"""


def test_where_no_test_says_when_a_change_works_only_few_kinds_of_change_are_tried(tmp_path, monkeypatch):
    """"No longer raises" rewards changes that hide a crash: a plain crash gets the kinds of change
    that were right whenever they ran to the end on the dev corpus (arguments swapped, a list for an
    iterator, a missing `return`), starting at the line that crashed."""
    session, dossier = crashed(tmp_path, monkeypatch, SWAPPED)
    assert proof(dossier) == "run"
    assert search_places(dossier)[0] == Place(str(tmp_path / "prog.py"), 7)  # the line that crashed
    found = search(session, dossier, time.monotonic() + 10)
    assert found.proof == "run"
    assert [(c.edit.first, c.edit.replacement, c.edit.origin) for c in found.passing] == [
        (7, "    return datetime.strptime(text, FORMAT).date()\n", "arguments")]
    assert found.passing[0].trial.result == "passes"
    # 20 kinds of change would have been tried in a failing test; here only these ran
    assert found.tried <= 3 and set(RUN_KINDS) == {"arguments", "list", "return", "call", "typo", "dedent"}


# A plain crash whose cause is the filter's `<` (it should be `>=`): swapping an item's price and
# stock would let the program run to its end too, by changing its data.
FILTERED = """\
from collections import namedtuple

Item = namedtuple("Item", "sku price stock")


def load_items():
    return [Item("A-1", 12.0, 3), Item("B-2", 8.5, 0), Item("C-3", 13.0, 5)]


def in_stock_prices(items, min_price):
    return [item.price for item in items if item.stock > 0 and item.price < min_price]


prices = in_stock_prices(load_items(), 10.0)
print(sum(prices) / len(prices))
"""


def test_a_plain_crash_is_not_fixed_by_swapping_constants_of_its_data(tmp_path, monkeypatch):
    session, dossier = crashed(tmp_path, monkeypatch, FILTERED)
    assert proof(dossier) == "run"
    found = search(session, dossier, time.monotonic() + 10)
    assert found.tried >= 1 and found.passing == []


def test_a_bare_assert_in_program_code_is_no_test(tmp_path, monkeypatch):
    _, dossier = crashed(tmp_path, monkeypatch, "def apply(rate):\n    assert 0 < rate < 1\n    return rate\n\n\n"
                                                "apply(1.5)\n", "sale.py")
    assert proof(dossier) == "run"  # it checks its caller's value


def test_an_empty_range_or_the_same_program_twice_is_not_tried(tmp_path, monkeypatch):
    """`range(4, 1)` (constants swapped) runs no loop, so any program "runs to its end"; a `return`
    added after a loop's last line is the same program as one added after the loop."""
    source = ("def podium(ranked):\n    return [ranked[place] for place in range(1, 4)]\n\n\n"
              "def merge(a, b):\n    merged = dict(a)\n    for key in b:\n        merged[key] = b[key]\n\n\n"
              "print(podium(['a', 'b', 'c']), merge({}, {'x': 1}).keys())\n")
    session, dossier = crashed(tmp_path, monkeypatch, source)
    found = search(session, dossier, time.monotonic() + 10, [Place(str(tmp_path / "prog.py"), n) for n in (2, 7, 8)])
    assert "range(4, 1)" not in "".join(c.edit.replacement for c in found.passing)
    # `list(b)`, `return key`, `return merged`: each `return` once, not after line 7 and after line 8
    assert found.tried == sum(found.outcomes.values()) == 3


def two_fixes(session, dossier) -> Search:
    """The search's own fix, and a second one that also passed (as `<= -1` would)."""
    found = search(session, dossier, time.monotonic() + 10)
    right = found.passing[0]
    other = Candidate(edit=Edit(file=right.edit.file, first=2, last=2, replacement="    balance = 1\n", origin="constant"),
                      display_file=right.display_file, code="    balance = 0\n",
                      trial=FixTrial("passes", "with this fix the failing assertion holds"))
    return Search(proof=found.proof, lines=found.lines, tried=found.tried, outcomes=found.outcomes, seconds=found.seconds, passing=[other, right])


def choice(root_cause: str, fix: str) -> str:
    return json.dumps({"root_cause": root_cause, "fix": fix})


@pytest.mark.slow
def test_scripted_the_model_chooses_among_the_fixes_that_passed_and_says_why(tmp_path, monkeypatch):
    session, dossier = crashed(tmp_path, monkeypatch, BELOW_ZERO)
    passing = two_fixes(session, dossier)
    model = ScriptedStandInModel([choice("It returns True when the balance is exactly zero, not below it.", "B")])
    found = investigate(session, dossier, model, Budget(time.monotonic() + 60), search=passing)
    assert found.stopped_by == "search" and not found.transcript and len(model.calls) == 1
    asked = model.calls[0]["messages"][1]["content"]
    assert "A) prog.py line 2:\n- balance = 0\n+ balance = 1\nB) prog.py line 5:\n- if balance == 0:\n+ if balance < 0:" in asked
    assert 'choice ::= "\\"A\\"" | "\\"B\\""\n' in model.calls[0]["grammar"]  # a change the test passed stands
    d = found.diagnosis
    assert (d.line, d.line_end, d.root_cause) == (5, 5, "It returns True when the balance is exactly zero, not below it.")
    assert d.fix.problem is None and "+        if balance < 0:" in d.fix.diff and d.fix.trial.passes
    assert [c.purpose for c in found.calls] == ["choice"]


@pytest.mark.slow
def test_scripted_a_change_the_test_passed_with_stands_even_when_the_answer_is_cut_short(tmp_path, monkeypatch):
    session, dossier = crashed(tmp_path, monkeypatch, BELOW_ZERO)
    model = ScriptedStandInModel(['{"root_cause": "it ret', '{"root_cause": "it ret'])
    found = investigate(session, dossier, model, Budget(time.monotonic() + 60), search=two_fixes(session, dossier))
    assert found.stopped_by == "search" and (found.diagnosis.line, found.diagnosis.fix.trial.passes) == (2, True)
    assert found.diagnosis.root_cause == ("prog.py:2: `balance = 0` is wrong: with `balance = 1` instead, "
                                          "the failing assertion holds.")


@pytest.mark.slow
def test_scripted_a_junk_reason_for_a_fix_that_passed_is_said_plainly_instead(tmp_path, monkeypatch):
    session, dossier = crashed(tmp_path, monkeypatch, BELOW_ZERO)
    junk = choice("(null) (null) (null) (null) (null)", "B")
    model = ScriptedStandInModel([junk, junk])
    found = investigate(session, dossier, model, Budget(time.monotonic() + 60), search=two_fixes(session, dossier))
    assert "not usable" in model.calls[1]["messages"][-1]["content"]
    assert found.diagnosis.root_cause == ("prog.py:5: `if balance == 0:` is wrong: with `if balance < 0:` instead, "
                                          "the failing assertion holds, and the code that holds it runs to its end.")


@pytest.mark.slow
def test_the_crash_hook_shows_what_the_search_found_as_the_answer(tmp_path):
    (tmp_path / "prog.py").write_text(COUNT_DOWN)
    report = tmp_path / "report.json"
    run = run_py(["prog.py"], cwd=tmp_path, env=clean_env(AUTODBG="1", AUTODBG_MODEL="none",
                                                          AUTODBG_REPORT=str(report), AUTODBG_TIMEOUT="20"))
    plain = run_py(["prog.py"], cwd=tmp_path, env=clean_env(AUTODBG="0"))
    assert run.returncode == plain.returncode == 1
    assert run.stderr.startswith(plain.stderr)  # the user's traceback first, unchanged
    ours = run.stderr[len(plain.stderr):].splitlines()
    assert ours[1:4] == ["Found by trying small changes in a sandbox, no model:", "prog.py:8", "--- a/prog.py"]
    assert "-    return steps * 2" in ours and "+    return steps" in ours  # the change, as a diff
    assert any(line.startswith("Suggested fix · stops the crash") for line in ours)  # nothing but its test judged it
    result = json.loads(report.read_text())
    assert result["search"]["passing"][0]["edit"]["replacement"] == "    return steps\n"
    assert result["timings"]["search"] <= 0.15 * 20 + 2 * CANDIDATE_SECONDS
    assert not (tmp_path / "LEAK").exists()


def test_the_call_that_ran_the_failing_test_is_not_offered_to_trace(tmp_path, monkeypatch):
    """`trace check(below_zero)` would replay the whole test; its calls of the program, the
    evidence replayed already."""
    from autodbg.investigate.seen import Seen, place

    session, dossier = crashed(tmp_path, monkeypatch, BELOW_ZERO)
    state = session.state()
    assert "check(below_zero)" in state.calls  # replayable: the call that made the crash frame
    known = Seen(state, dossier).known(state, place(session, state))
    assert {"check(below_zero)", "below_zero([1, 2, -3, 1, 2, -3])"} <= known.traced


# KeyError: a constant names a column the rows call otherwise; a caller reads the wrong field.
KEYS = """\
PRICE = "price"
RATES = {"EUR": 1.0, "GBP": 1.2}


def revenue(row):
    return float(row[PRICE]) * row["qty"]


def to_euros(amount, currency):
    return amount * RATES[currency]


def total(order):
    return to_euros(revenue(order), order["country"])


print(total({"unit_price": "2.5", "qty": 2, "country": "FR", "currency": "EUR"}))
"""


def test_a_missing_key_is_replaced_by_the_keys_the_programs_mapping_has(tmp_path, monkeypatch):
    """The literal that made the missing key, and the field a caller read it from, each changed to
    what the program's live mapping has (read in a probe); the most alike key first."""
    session, dossier = crashed(tmp_path, monkeypatch, KEYS.replace('row[PRICE]', 'row["unit_price"]'))
    prog = str(tmp_path / "prog.py")
    changes = session.key_changes([(prog, 14), (prog, 10)])
    assert [(c.first, c.replacement) for c in changes] == [
        (14, '    return to_euros(revenue(order), order["currency"])\n')]  # 'FR' is no key of RATES; 'EUR' is
    session, dossier = crashed(tmp_path, monkeypatch, KEYS.replace('order["country"]', 'order["currency"]'))
    changes = session.key_changes([(prog, 1)])
    assert [(c.first, c.replacement) for c in changes][0] == (1, 'PRICE = "unit_price"\n')
    found = search(session, dossier, time.monotonic() + 10)
    assert (found.passing[0].edit.first, found.passing[0].edit.origin) == (1, "key")
    assert found.passing[0].edit.replacement == 'PRICE = "unit_price"\n'


def test_no_key_changes_for_other_errors_or_without_probes(tmp_path, monkeypatch):
    session, _ = crashed(tmp_path, monkeypatch, SWAPPED)
    assert session.key_changes([(str(tmp_path / "prog.py"), 7)]) == []  # a ValueError
    session, _ = crashed(tmp_path, monkeypatch, KEYS)
    session.probes = False  # reading the mappings may run program code: only in a probe
    assert session.key_changes([(str(tmp_path / "prog.py"), 1)]) == []


def test_text_where_a_number_was_meant_is_converted_where_it_was_made(tmp_path, monkeypatch):
    """TypeError: unsupported operand type(s) for -: 'str' and 'int': the count read from the sheet
    is made a number where it is stored, before any operand of the line that crashed is."""
    source = ("def parse(text):\n    counts = {}\n    for line in text.splitlines():\n"
              "        sku, counted = line.split()\n        counts[sku] = counted\n    return counts\n\n\n"
              "def differences(system, counted):\n"
              "    return {sku: counted.get(sku, 0) - expected for sku, expected in system.items()}\n\n\n"
              "print(differences({'A': 3}, parse('A 5')))\n")
    session, dossier = crashed(tmp_path, monkeypatch, source)
    found = search(session, dossier, time.monotonic() + 10)
    assert [(c.edit.first, c.edit.replacement, c.edit.origin) for c in found.passing][0] == (
        5, "        counts[sku] = int(counted)\n", "convert")
