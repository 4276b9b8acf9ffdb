"""Live-state grammars: every string the real tiny model produces under them is a valid command."""

from __future__ import annotations

import json
import time


from autodbg.debugger.commands import COMMANDS, parse
from autodbg.frames.core import PostMortem
from autodbg.debugger.grammar import (
    CODE_LINES, CODE_SLACK, Known, answer_grammar, answer_max_chars, code_grammar, code_max_chars, fenced_code,
    frame_names, live_state, number_range, step_grammar,
)
from autodbg.debugger.session import Session
from autodbg.investigate.plan import STEP_TOKENS
from autodbg.llm.engine import Engine, free_cores


class Order:
    def __init__(self, items):
        self.items = items
        self.discount = None


def total_price(order, prices):
    subtotal = sum(prices[item] for item in order.items)
    return subtotal * (1 - order.discount)


def checkout(names):
    prices = {"apple": 3, "pear": 4}
    return total_price(Order(names), prices)


def recurse(n):
    return recurse(n + 1)


def crashed_sessions() -> list[Session]:
    sessions = []
    for call in (lambda: checkout(["apple"]), lambda: recurse(0), lambda: {}["missing"]):
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - real crashes are the fixture
            sessions.append(Session(PostMortem(exc)))
    outer = Session(PostMortem(sessions[0].debugger.exception))
    outer.execute("up")  # a different state: the caller's frame
    return sessions + [outer]


def command_of(text: str) -> str:
    thought, sep, command = text.partition("\nCommand: ")
    assert sep and thought.startswith("Thought: ") and "\n" not in thought
    return command


def test_sampled_commands_are_valid_for_their_state(tiny_model, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    sessions = crashed_sessions()
    samples = 0
    with Engine(tiny_model, threads=free_cores(), n_ctx=2048) as engine:
        engine.start()
        for s_index, session in enumerate(sessions):
            grammar = step_grammar(live_state(session))
            names = set(frame_names(session))
            messages = [{"role": "system", "content": "Debug the crash. Reply with a thought and a command."},
                        {"role": "user", "content": f"{session.debugger.exception!r}. Commands: where, up, print EXPR, list."}]
            state = (session.debugger.exception_index, session.debugger.curindex)
            for seed in range(13):
                done = engine.complete(messages, grammar=grammar, max_tokens=STEP_TOKENS, temperature=1.0,
                                       seed=1000 * s_index + seed, deadline=time.monotonic() + 120)
                assert done.finish_reason == "stop", done.text
                command_text = command_of(done.text)
                command, args = parse(command_text)  # raises on anything the parser rejects
                assert command.for_model
                samples += 1
                if command.controls:  # run by the session's controller, not where the frames are
                    assert command_text == "done"
                    continue
                result = session.execute(command_text)
                if command.args and command.args[0].kind == "expr":
                    root = args[0].split("(")[-1].split(".")[0].split("[")[0].split(" ")[0].rstrip(")")
                    assert root in names, command_text
                else:
                    assert result.ok, (command_text, result.output)
                if command.name in ("up", "down", "frame", "exception"):  # back to the state the grammar was built for
                    session.debugger.select_exception(state[0])
                    session.debugger.select_frame(state[1])
    assert samples >= 50


def test_grammar_offers_only_what_exists():
    checkout_session, recursion_session, _, caller_session = crashed_sessions()
    g = step_grammar(live_state(checkout_session))
    rules = dict(line.split(" ::= ", 1) for line in g.splitlines())
    assert rules["name"] == '"order" | "prices" | "subtotal"'
    assert rules["attr"] == '"items" | "discount"'
    assert rules["string"].startswith('"\\"apple\\"" | "\\"pear\\""')
    assert "cmd-exception " not in g  # a chain of one: nothing to switch to
    assert "cmd-help" not in g and "cmd-quit" not in g  # human-only commands
    assert not {"cmd-where", "cmd-up", "cmd-down"} & set(rules)  # the evidence is the stack; `frame N` moves
    current = str(checkout_session.debugger.curindex)
    assert f'"{current}"' not in rules["cmd-frame"] and "cmd-frame" in rules  # selecting it again shows nothing
    stack = len(checkout_session.debugger.stack)
    only_one = Known(frames=frozenset(range(1, stack)))  # the evidence showed all frames but frame 0
    assert dict(line.split(" ::= ", 1) for line in step_grammar(live_state(checkout_session), known=only_one).splitlines())[
        "cmd-frame"] == '"frame" " " (("0"))'
    shown_all = Known(frames=frozenset(range(stack)), sources=frozenset({"recurse"}))
    g = step_grammar(live_state(checkout_session), known=shown_all)
    assert "cmd-frame" not in g and '"recurse"' not in g.split("cmd-source ::= ")[1].split("\n")[0]
    assert len(step_grammar(live_state(recursion_session))) < 20_000  # a 1000-frame stack stays small


def test_number_range_accepts_exactly_the_range():
    import re

    for lo, hi in [(1, 1), (0, 9), (1, 357), (0, 999), (5, 1203), (10, 10)]:
        gbnf = number_range(lo, hi)
        pattern = gbnf.replace('"', "").replace(" ", "")
        regex = re.compile(pattern)
        accepted = {n for n in range(0, hi + 300) if regex.fullmatch(str(n))}
        assert accepted == set(range(lo, hi + 1)), (lo, hi)


def test_answer_quotes_only_shown_lines(tiny_model, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    shown = ['app.py:3| return total / count', 'app.py:2| count = len([x for x in xs if x > "0"])', "app.py:7| s = '\\\\'"]
    with Engine(tiny_model, threads=free_cores(), n_ctx=2048) as engine:
        engine.start()
        for seed in range(3):
            done = engine.complete([{"role": "user", "content": "Answer in JSON."}], grammar=answer_grammar(shown),
                                   max_tokens=answer_max_chars(shown), temperature=1.0, seed=seed,
                                   deadline=time.monotonic() + 120)
            assert done.finish_reason == "stop", done.text  # sized so that no answer is ever cut
            answer = json.loads(done.text)
            assert answer["first_line"] in shown and answer["last_line"] in shown
            assert answer["new_code"] is None or isinstance(answer["new_code"], str)


def chained_session() -> Session:
    try:
        try:
            {}["port"]
        except KeyError:
            raise ValueError("bad config")
    except ValueError as exc:
        return Session(PostMortem(exc))


def test_the_grammars_offer_exactly_the_tables_model_commands():
    offered = set()
    for session in crashed_sessions() + [chained_session()]:
        rules = dict(line.split(" ::= ", 1) for line in step_grammar(live_state(session)).splitlines())
        offered |= {name.removeprefix("cmd-") for name in rules if name.startswith("cmd-")}
        # by its canonical name: pdb's names (`p`, `l`...) are a person's, never the model's
        heads = {body.split(" ")[0] for name, body in rules.items() if name.startswith("cmd-")}
        assert heads == {f'"{name.removeprefix("cmd-")}"' for name in rules if name.startswith("cmd-")}
    # Re-run commands need `autodbg run` (tests/test_rerun.py); everything else the model may use is offered.
    assert offered == {c.name for c in COMMANDS if c.for_model and c.needs == "crash"}


def test_source_offers_the_modules_functions_even_those_the_frame_never_calls():
    session = crashed_sessions()[0]  # in total_price, which never names recurse
    rules = dict(line.split(" ::= ", 1) for line in step_grammar(live_state(session)).splitlines())
    assert '"recurse"' in rules["cmd-source"] and '"Order"' in rules["cmd-source"]
    result = session.execute("source recurse")
    assert result.ok and "return recurse(n + 1)" in result.output


def test_list_starts_only_at_lines_not_shown_yet():
    session = crashed_sessions()[0]
    here = session.debugger.current.filename
    count = len(session.debugger.source_lines())
    all_but_two = Known(lines=frozenset((here, n) for n in range(1, count + 1) if n not in (3, 7)))
    rule = dict(line.split(" ::= ", 1) for line in step_grammar(live_state(session), known=all_but_two).splitlines())["cmd-list"]
    assert rule.startswith('"list" " " (("3") | ("7")) ')  # a FIRST line is required, and must be new
    everything = Known(lines=frozenset((here, n) for n in range(1, count + 1)))
    assert "cmd-list" not in step_grammar(live_state(session), known=everything)


def in_probe_mode(session: Session):
    """SESSION's live state as a probe reads it (program code may run there)."""
    from autodbg.frames import safe_eval

    safe_eval.set_mode("probe")
    try:
        return live_state(session)
    finally:
        safe_eval.set_mode("inline")


def test_print_may_call_the_programs_functions_only_where_a_probe_runs_it():
    session = crashed_sessions()[0]
    inline = step_grammar(live_state(session))
    assert "program-call" not in inline
    rules = dict(line.split(" ::= ", 1) for line in step_grammar(in_probe_mode(session)).splitlines())
    offered = rules["program-call"].split(' "("')[0]
    assert '"checkout"' in offered and '"total_price"' in offered and '"Order"' in offered
    assert '"order.items"' not in offered  # a field, not a method
    assert rules["args"] == 'term (", " term){0,3}'
    assert rules["expr"].startswith("(call | program-call | ref) ")


def test_sampled_program_calls_parse_and_run(tiny_model, tmp_path, monkeypatch):
    from autodbg.frames import safe_eval

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    session = crashed_sessions()[0]
    grammar = step_grammar(in_probe_mode(session), available=frozenset({"print"}))
    messages = [{"role": "system", "content": "Test a hypothesis by calling a function of the program."},
                {"role": "user", "content": "Call total_price or checkout with a value. Reply: Thought, Command."}]
    calls = 0
    with Engine(tiny_model, threads=free_cores(), n_ctx=2048) as engine:
        engine.start()
        for seed in range(12):
            done = engine.complete(messages, grammar=grammar, max_tokens=STEP_TOKENS, temperature=1.0, seed=seed,
                                   deadline=time.monotonic() + 120)
            command_text = command_of(done.text)
            parse(command_text)
            calls += "(" in command_text and not command_text.startswith(("print len(", "print type("))
            safe_eval.set_mode("probe")  # the program's functions here are the test's own, harmless ones
            try:
                result = session.execute(command_text)
            finally:
                safe_eval.set_mode("inline")
            assert "not allowed" not in result.output, (command_text, result.output)
    assert calls >= 3


def test_a_lines_rewrite_is_bounded_by_the_lines_length(tiny_model, tmp_path, monkeypatch):
    """A rewrite of a short line cannot ramble: each of its lines is at most CODE_SLACK characters
    longer than the line it replaces (indentation apart), and the reply always fits its max_tokens."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    replaced = "    return total / count"
    long = "    values = [" + ", ".join(str(i) for i in range(40)) + "]"  # the tiny model copies it whole unbounded
    ask = f"Copy this line exactly in a ```python block:\n```python\n{long}\n```"
    with Engine(tiny_model, threads=free_cores(), n_ctx=2048) as engine:
        engine.start()
        for seed in range(4):
            done = engine.complete([{"role": "user", "content": ask}], grammar=code_grammar(replaced),
                                   max_tokens=code_max_chars(replaced), temperature=1.0, seed=seed,
                                   deadline=time.monotonic() + 120)
            assert done.finish_reason == "stop", done.text
            code = fenced_code(done.text)
            if code is None:
                assert done.text == "null"
                continue
            lines = code.split("\n")
            assert 1 <= len(lines) <= CODE_LINES
            assert all(len(line.strip()) <= len(replaced.strip()) + CODE_SLACK for line in lines), lines
