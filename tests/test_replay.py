"""Replay: a call re-run under the line tracer, on functions of real modules written to tmp files."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import time

import pytest

from autodbg.analysis.replay import history_text, replay, replay_call, replayable_calls


@pytest.fixture
def load(tmp_path):
    """Write SOURCE as a module in tmp_path and import it."""
    def load(source: str, name: str = "prog"):
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source).lstrip("\n"))
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return load


SCORES = """
    def load_scores(text):
        parts = text.split(",")
        scores = [int(p) for p in parts]
        best = max(scores)
        return scores[1:]

    def average(text):
        scores = load_scores(text)
        return sum(scores) / len(scores)
"""


def test_values_per_line_and_the_return_value(load):
    prog = load(SCORES)
    history = replay(prog.load_scores, ("42",), {})
    assert [(s.line, s.assigned) for s in history.steps] == [
        (2, {"parts": "['42']"}), (3, {"scores": "[42]"}), (4, {"best": "42"}), (5, {})]
    assert history.steps[-1].returned == "[]"
    assert (history.result, history.exception, history.cut) == ("[]", None, False)
    assert history_text(history) == ("line 2: parts = ['42'] · line 3: scores = [42] · line 4: best = 42 · "
                                     "line 5: return scores[1:] → [] · ⇒ returned []")


def test_an_exception_and_the_called_user_function_one_level_down(load):
    prog = load(SCORES)
    history = replay(prog.average, ("42",), {})
    assert history.exception == "ZeroDivisionError: division by zero"
    assert history.result is None
    inner = [s for s in history.steps if s.function == "load_scores"]
    assert [s.line for s in inner] == [2, 3, 4, 5]
    assert history.steps[-1].line == 9 and history.steps[-1].raised.startswith("ZeroDivisionError")
    assert "load_scores line 5: return scores[1:] → []" in history_text(history)
    assert history_text(history).endswith("⇒ raised ZeroDivisionError: division by zero")


def test_a_hot_loop_is_folded_into_one_step_per_line(load):
    prog = load("""
        def total(n):
            t = 0
            for i in range(n):
                t += i
            return t
    """)
    history = replay(prog.total, (300,), {}, max_lines=1000, max_iterations_per_line=5)
    body = [s for s in history.steps if s.line == 4]
    assert [s.count for s in body] == [1, 1, 1, 1, 1, 300]
    assert body[-1].assigned == {"t": "44850"}
    assert history.result == "44850"
    assert "line 4 ×300, last: t = 44850" in history_text(history, 2000)


def test_an_infinite_retry_loop_that_swallows_errors_is_cut_promptly(load):
    prog = load("""
        import time

        def retry():
            attempt = 1
            while True:
                try:
                    time.sleep(0)
                    attempt + 1
                except Exception:
                    pass
    """)
    started = time.monotonic()
    history = replay(prog.retry, (), {}, max_lines=200)
    assert time.monotonic() - started < 2
    assert history.cut and history.result is None and history.exception is None
    assert sum(min(s.count, 1) for s in history.steps) <= 201
    assert history_text(history).endswith("⇒ stopped at the line limit")


def test_a_huge_value_is_cut_and_the_text_fits_its_limit(load):
    prog = load("""
        def build():
            text = "x" * 100_000
            rows = list(range(100_000))
            return text
    """)
    history = replay(prog.build, (), {}, max_value_chars=120)
    assert all(len(v) < 200 for s in history.steps for v in s.assigned.values())
    assert len(history.result) < 200
    assert len(history_text(history, 150)) <= 180


def test_the_previous_trace_function_is_restored(load):
    prog = load(SCORES)
    seen = []

    def outer_trace(frame, event, arg):
        seen.append(event)
        return None

    previous = sys.gettrace()
    sys.settrace(outer_trace)
    try:
        replay(prog.load_scores, ("1,2",), {})
        restored = sys.gettrace()
    finally:
        sys.settrace(previous)
    assert restored is outer_trace
    assert sys.getprofile() is None


def test_a_generator_call_is_run_for_its_items(load):
    prog = load("""
        def evens(items):
            for item in items:
                if item % 2 == 0:
                    yield item
    """)
    history = replay(prog.evens, ([1, 2, 3, 4],), {})
    assert history.result == "a generator that yielded [2, 4]"
    assert [s.returned for s in history.steps if s.line == 4] == ["2", "4"]


def test_recursion_and_methods_are_traced_one_level_down(load):
    prog = load("""
        class Tree:
            def __init__(self, child=None):
                self.child = child

            def depth(self):
                below = self.child.depth() if self.child else 0
                return below + 1
    """)
    tree = prog.Tree(prog.Tree(prog.Tree()))
    history = replay(tree.depth, (), {})
    assert history.result == "3"
    # steps are in the order lines start: the outer call's line 6 (its below is 2), then the inner's
    assert [s.assigned.get("below") for s in history.steps if s.line == 6] == ["2", "1"]
    made = replay(prog.Tree, (), {"child": None})
    assert made.steps[0].line == 3 and made.result.startswith("Tree(child=None)")


def test_a_builtin_is_not_replayable():
    with pytest.raises(TypeError, match="not a Python function"):
        replay(len, ([],), {})


def test_replayable_calls_are_the_plain_calls_in_evaluation_order():
    assert replayable_calls("assert parse(s) == 3") == ["parse(s)"]
    assert replayable_calls("total = subtotal(cart)") == ["subtotal(cart)"]
    assert replayable_calls("x = f(g(y)) + self.m(a.b[0], key=-1, n={'k': [1, 2]})") == [
        "g(y)", "self.m(a.b[0], key=-1, n={'k': [1, 2]})"]
    assert replayable_calls("for weight, sku in pick_lines(order):") == ["pick_lines(order)"]
    assert replayable_calls("total = sum(price(p) for p in items) + run(*args) + make()(x)") == ["make()"]


def test_replay_call_takes_the_callee_and_arguments_from_a_real_crashed_frame(load):
    prog = load("""
        def parse(text):
            digits = text.strip().split("+")
            return len(digits)

        def check(s):
            assert parse(s) == 3
    """)
    with pytest.raises(AssertionError) as failure:
        prog.check("1+2")
    frame = failure.tb.tb_next.tb_frame  # check()'s frame; parse() has returned
    assert frame.f_code.co_name == "check"
    [call] = replayable_calls("assert parse(s) == 3")
    history = replay_call(call, frame.f_globals, frame.f_locals)
    assert history.result == "2"
    assert history.steps[0].assigned == {"digits": "['1', '2']"}
    with pytest.raises(ValueError, match="not a replayable call"):
        replay_call("parse(s.strip())", frame.f_globals, frame.f_locals)


def test_a_sessions_redactor_judges_the_names_and_learns_the_secrets_it_saw(load):
    from autodbg.redact import Redactor

    prog = load("""
        def unlock(door):
            pin = "4417-9921-0038"
            return door + pin
    """)
    redactor = Redactor(["pin"])  # the user's own secret word
    history = replay(prog.unlock, ("front:",), {}, redactor=redactor)
    assert history.steps[0].assigned == {"pin": "<redacted str, 14 chars>"}
    assert "4417" in history.result  # the return value's text, as the tracer saw it...
    assert "4417" not in redactor.scrub(history_text(history))  # ...and scrubbed by the redactor that learned it
    assert "4417-9921-0038" in redactor.learned
