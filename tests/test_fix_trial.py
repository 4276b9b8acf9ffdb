"""A checked fix is tried on the crashed program itself, in a probe: the fixed code is loaded into
the probe's copy of its module and the crash's outermost program frame runs again. Real crashes
in subprocesses; the fix trial runs from their excepthook, as the crash hook's does."""

from __future__ import annotations

import textwrap

import pytest

from crashkit import BELOW_ZERO, try_fix_in_crash

CALENDAR = '''\
from datetime import date, timedelta

BOOKINGS = [("Okafor", date(2024, 7, 1), 3), ("Moreau", date(2024, 7, 6), 2)]


def nights_in_range(first, last):
    return [first + timedelta(days=offset) for offset in range((last - first).days)]


def occupancy(bookings, first, last):
    nights = nights_in_range(first, last)
    guests = [None] * len(nights)
    for name, arrival, length in bookings:
        for offset in range(length):
            guests[(arrival - first).days + offset] = name
    return list(zip(nights, guests))


def unused():
    return 1


print(occupancy(BOOKINGS, date(2024, 7, 1), date(2024, 7, 7)))
'''


def trial(tmp_path, files: dict[str, str], fix: dict, main: str = "prog.py", probes: bool = True) -> dict:
    program = tmp_path / "program"
    program.mkdir(exist_ok=True)
    for name, text in files.items():
        (program / name).write_text(textwrap.dedent(text))
    return try_fix_in_crash(tmp_path / "hook", program, [main], {**fix, "file": str(program / fix.get("file", main))},
                            probes=probes)


def calendar_fix(new: str) -> dict:
    return {"first": 7, "last": 7, "new": new}


RIGHT = "    return [first + timedelta(days=offset) for offset in range((last - first).days + 1)]\n"


def test_a_fix_in_a_function_that_already_returned_passes_when_the_script_runs_again(tmp_path):
    ran = trial(tmp_path, {"prog.py": CALENDAR}, calendar_fix(RIGHT))
    assert ran == {"result": "passes", "detail": "with this fix the crashed program now runs to the end without an exception",
                   "moved_on": False, "stopped_by_fix": False, "refused": None}


def test_a_wrong_fix_still_fails_and_says_where(tmp_path):
    wrong = "    return [first + timedelta(days=offset) for offset in range((last - first).days - 1)]\n"
    ran = trial(tmp_path, {"prog.py": CALENDAR}, calendar_fix(wrong))
    assert ran["result"] == "still fails" and not ran["moved_on"]  # where it crashed before, as before
    assert ran["detail"].startswith("IndexError: list assignment index out of range (prog.py:15); with the fix, "
                                    "nights_in_range(first=datetime.date(2024, 7, 1), last=datetime.date(2024, 7, 7)) "
                                    "returned [datetime.date(2024, 7, 1), ")


def test_a_fix_that_raises_something_else_fails_differently(tmp_path):
    ran = trial(tmp_path, {"prog.py": CALENDAR}, calendar_fix("    return len(first)\n"))
    assert ran["result"] == "fails differently" and not ran["moved_on"]  # the fixed line itself raised
    assert ran["detail"] == ("TypeError: object of type 'datetime.date' has no len() (prog.py:7); with the fix, "
                             "nights_in_range(first=datetime.date(2024, 7, 1), last=datetime.date(2024, 7, 7)) "
                             "raised TypeError")


@pytest.mark.slow
def test_a_fix_that_loops_forever_hangs_and_is_stopped(tmp_path):
    ran = trial(tmp_path, {"prog.py": CALENDAR}, calendar_fix("    while True:\n        pass\n"))
    assert ran == {"result": "hangs", "detail": "still running after 5 s", "moved_on": False, "stopped_by_fix": False, "refused": None}


def test_a_fix_that_writes_a_file_is_refused_by_the_sandbox(tmp_path):
    payload = f"    open({str(tmp_path / 'pwned')!r}, 'w').write('x')\n" + RIGHT
    ran = trial(tmp_path, {"prog.py": CALENDAR}, calendar_fix(payload))
    assert ran["result"] == "not run"
    assert ran["detail"].startswith("refused by the sandbox: open(")
    assert not (tmp_path / "pwned").exists()


def test_a_run_that_swallows_a_refusal_is_not_counted_as_passing(tmp_path):
    payload = (f"    try:\n        open({str(tmp_path / 'log')!r}, 'a').write('x')\n    except OSError:\n        pass\n"
               + RIGHT)
    ran = trial(tmp_path, {"prog.py": CALENDAR}, calendar_fix(payload))
    assert ran["result"] == "not run"
    assert ran["detail"].startswith("it ran on past something the sandbox refused: refused by the sandbox: open(")
    assert not (tmp_path / "log").exists()


def test_a_fix_the_run_never_reaches_is_not_counted_as_passing(tmp_path):
    ran = trial(tmp_path, {"prog.py": CALENDAR}, {"first": 20, "last": 20, "new": "    return 2\n"})
    assert ran == {"result": "still fails", "detail": "IndexError: list assignment index out of range (prog.py:15); "
                                                      "it did not reach the fixed lines", "moved_on": False, "stopped_by_fix": False, "refused": None}
    guarded = CALENDAR.replace("print(occupancy(", "if __name__ == '__main__':\n    print(occupancy(")
    ran = trial(tmp_path, {"prog.py": guarded}, {"first": 20, "last": 20, "new": "    return 2\n"})
    assert ran["result"] == "still fails"


def test_a_fix_in_an_imported_module_and_in_a_method_using_super(tmp_path):
    files = {
        "shapes.py": '''\
            class Base:
                def area(self):
                    return 0


            class Square(Base):
                def __init__(self, side):
                    self.side = side

                def area(self):
                    return super().area() + self.sides ** 2
            ''',
        "prog.py": '''\
            from shapes import Square

            def report(shapes):
                return sum(s.area() for s in shapes)

            print(report([Square(2), Square(3)]))
            ''',
    }
    ran = trial(tmp_path, files, {"file": "shapes.py", "first": 11, "last": 11,
                                  "new": "        return super().area() + self.side ** 2\n"})
    assert ran["result"] == "passes", ran


def test_a_thread_target_is_called_again_with_its_arguments(tmp_path):
    program = '''\
        import threading

        def mean(values):
            return sum(values) / len(values[1:])

        def work(batch):
            print(mean(batch))

        thread = threading.Thread(target=work, args=([4],))
        thread.start()
        thread.join()
        raise SystemExit(1)
        '''
    files = {"prog.py": program}
    ran = trial(tmp_path, files, {"first": 4, "last": 4, "new": "    return sum(values) / len(values)\n"})
    assert ran["result"] == "passes", ran
    ran = trial(tmp_path, files, {"first": 4, "last": 4, "new": "    return sum(values) / len(values[2:])\n"})
    assert ran["result"] == "still fails" and ran["detail"].startswith("ZeroDivisionError")


def test_a_script_that_exits_non_zero_after_the_fix_fails_differently(tmp_path):
    program = CALENDAR + "raise SystemExit(3)\n"
    ran = trial(tmp_path, {"prog.py": program}, calendar_fix(RIGHT))
    assert ran == {"result": "fails differently", "detail": "the program exits with status 3", "moved_on": True, "stopped_by_fix": False, "refused": None}


@pytest.mark.parametrize("later, result", [('print({}["total"])', "fails differently"),
                                           ("print([][0])", "still fails")])
def test_a_fix_after_which_the_program_fails_further_on_moved_the_failure_on(tmp_path, later, result):
    """The right fix of a line, with a second bug further on: the failure moved past the line that
    crashed, whatever the new one raises."""
    ran = trial(tmp_path, {"prog.py": CALENDAR + later + "\n"}, calendar_fix(RIGHT))
    assert (ran["result"], ran["moved_on"]) == (result, True)
    assert "(prog.py:24)" in ran["detail"]


def test_without_probes_no_fix_runs(tmp_path):
    payload = f"    open({str(tmp_path / 'pwned')!r}, 'w').write('x')\n" + RIGHT
    ran = trial(tmp_path, {"prog.py": CALENDAR}, calendar_fix(payload), probes=False)
    assert ran["result"] == "not run" and "no probe here" in ran["detail"]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("new, why", [("    return [\n", "does not compile"),
                                      (RIGHT, "lines 7-99 are not within")])
def test_a_fix_that_cannot_be_loaded_is_not_run(tmp_path, new, why):
    last = 99 if "not within" in why else 7
    ran = trial(tmp_path, {"prog.py": CALENDAR}, {"first": 7, "last": last, "new": new})
    assert ran["result"] == "not run" and why in ran["detail"], ran


def test_an_assertion_crash_passes_only_when_the_failing_assertion_runs_again_and_holds(tmp_path):
    right = {"first": 5, "last": 5, "new": "        if balance < 0:\n"}
    assert trial(tmp_path, {"prog.py": BELOW_ZERO}, right)["result"] == "passes"
    longer = {"first": 5, "last": 5, "new": "        below = balance < 0\n        if below:\n"}  # the assert moves down
    assert trial(tmp_path, {"prog.py": BELOW_ZERO}, longer)["result"] == "passes"
    unchecked = {"first": 16, "last": 16, "new": "print(below_zero([]))\n"}  # the check no longer runs at all
    ran = trial(tmp_path, {"prog.py": BELOW_ZERO}, unchecked)
    assert ran == {"result": "not run", "detail": "with the fix, the code that holds the failing assertion no longer "
                                                  "runs to its end, so nothing checked the fix", "moved_on": False, "stopped_by_fix": True, "refused": None}


def test_a_crash_passes_only_when_the_line_that_crashed_runs_again(tmp_path):
    """A fix that stops the crashing line from running (the call that led there replaced by a `def`,
    as a small model wrote one) checked nothing; one that moves it down still runs it."""
    call = {"first": 23, "last": 23, "new": "def occupancy(bookings, first, last):\n    return []\n"}
    ran = trial(tmp_path, {"prog.py": CALENDAR}, call)
    assert ran == {"result": "not run", "detail": "with the fix, the line that crashed no longer runs, so nothing "
                                                  "checked the fix", "moved_on": False, "stopped_by_fix": True, "refused": None}
    longer = {"first": 7, "last": 7, "new": "    days = (last - first).days + 1\n"
                                            "    return [first + timedelta(days=offset) for offset in range(days)]\n"}
    assert trial(tmp_path, {"prog.py": CALENDAR}, longer)["result"] == "passes"


def test_a_fix_may_avoid_a_raise_that_crashed(tmp_path):
    source = '''\
        def check(rate):
            if rate > 1:
                raise ValueError(f"rate {rate} is over 1")
            return rate


        print(check(50 / 10))
        '''
    ran = trial(tmp_path, {"prog.py": source}, {"first": 7, "last": 7, "new": "print(check(50 / 100))\n"})
    assert ran["result"] == "passes"


def test_a_fix_that_stops_a_raised_line_from_running_is_not_run(tmp_path):
    """`raised = ...` is no `raise`: a fix that stops it running checked nothing."""
    source = '''\
        def share(n):
            raised = 10 / n
            return raised


        print(share(0))
        '''
    ran = trial(tmp_path, {"prog.py": source}, {"first": 6, "last": 6, "new": "print(0)\n"})
    assert ran == {"result": "not run", "detail": "with the fix, the line that crashed no longer runs, so nothing "
                                                  "checked the fix", "moved_on": False, "stopped_by_fix": True, "refused": None}


@pytest.mark.parametrize("new, what", [
    ("            guests[(arrival - first).days + offset if offset < 1 else -1] = name\n", "a condition"),
    ("            if (arrival - first).days + offset < len(guests):\n"
     "                guests[(arrival - first).days + offset] = name\n", "a condition"),
    ("            try:\n                guests[(arrival - first).days + offset] = name\n"
     "            except IndexError:\n                pass\n", "a try"),
])
def test_a_fix_that_only_guards_the_line_that_crashed_is_said_to_guard_it(tmp_path, new, what):
    """The program then runs to its end whether or not the value that failed was right: not a pass."""
    ran = trial(tmp_path, {"prog.py": CALENDAR}, {"first": 15, "last": 15, "new": new})
    assert ran["result"] == "guards"
    assert ran["detail"] == (f"with this fix the crashed program runs to the end, but only because the fix adds {what} "
                             "to the line that failed: the value it failed on may still be wrong")


def test_a_guard_where_the_failing_value_was_made_is_a_pass(tmp_path):
    """Away from the line that crashed, a condition is a change like any other."""
    guarded = "    return [first + timedelta(days=offset) for offset in range((last - first).days + 1) if True]\n"
    assert trial(tmp_path, {"prog.py": CALENDAR}, calendar_fix(guarded))["result"] == "passes"


def test_a_fix_of_a_module_level_constant_in_an_imported_module_runs(tmp_path):
    """The fixed statement runs when it is loaded into the module, before the test runs again: the
    fixed lines did run (it was "not run": the run never reached them)."""
    files = {"invoice.py": "VAT_RATE = 20\n\n\ndef vat(amount):\n    return round(amount * VAT_RATE, 2)\n",
             "test_invoice.py": "from invoice import vat\n\nassert vat(100) == 20.0, vat(100)\nprint('ok')\n"}
    ran = trial(tmp_path, files, {"file": "invoice.py", "first": 1, "last": 1, "new": "VAT_RATE = 0.20\n"},
                main="test_invoice.py")
    assert ran["result"] == "passes", ran
    still = trial(tmp_path, files, {"file": "invoice.py", "first": 1, "last": 1, "new": "VAT_RATE = 21\n"},
                  main="test_invoice.py")
    assert still["result"] == "still fails", still


ASYNC_MISSING_RETURN = '''\
import asyncio


async def fetch_prices(skus):
    prices = {}
    for sku in skus:
        await asyncio.sleep(0)
        prices[sku] = len(sku) * 10


async def main():
    prices = await fetch_prices(["ab", "cde"])
    print(sum(prices.values()))


asyncio.run(main())
'''


def test_a_fix_of_an_asyncio_program_is_run_although_asyncio_run_sets_a_signal_handler(tmp_path):
    ran = trial(tmp_path, {"prog.py": ASYNC_MISSING_RETURN}, {"first": 8, "last": 8,
                                                                "new": "        prices[sku] = len(sku) * 10\n    return prices\n"})
    assert ran["result"] == "passes", ran
    wrong = trial(tmp_path, {"prog.py": ASYNC_MISSING_RETURN}, {"first": 8, "last": 8, "new": "        prices[sku] = 0\n"})
    assert wrong["result"] == "still fails", wrong
