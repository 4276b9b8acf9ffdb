"""The evidence dossier, built on real crashes of a program written to a temporary file."""

from __future__ import annotations

import ast
import inspect
import json
import sys

import pytest

from autodbg.debugger.session import Session
from autodbg.frames.core import PostMortem
from autodbg.analysis import source
from autodbg.evidence import (
    CALLER_CONTEXT, CRASH_CONTEXT, MAX_FRAMES, build_dossier, expressions_on, failing_statement,
)
from conftest import clean_env, run_py
from crashkit import line_of, load_program

PROGRAM = '''
import json


def parse(s):
    return int(s) + 1


def mean(values):
    total = sum(values)
    count = len(values)
    return total / count


def summary(groups):
    means = {}
    for name in groups:
        means[name] = mean(groups[name])
    return means


def get_port(config):
    host = config["host"]
    return config["port"]


def check(s):
    assert parse(s) == 3


def multi(a, b, c):
    result = max(
        a,
        b / c,
    )
    return result


class Box:
    def __init__(self, size):
        self.size = size


def loop(items):
    total = 0
    for x in items:
        total += x
    return total


def header(a, limit):
    if a.b > limit:
        print(a.c, limit)
    return 0


def scaled(values, t):
    return [v / t for v in values]


def depth(n):
    return depth(n + 1)


def decode(text):
    data = json.loads(text)
    return data


def chained(config):
    try:
        return config["port"]
    except KeyError as exc:
        raise RuntimeError("no port") from exc


def run(fn, *args):
    try:
        fn(*args)
    except BaseException as exc:
        return exc
    raise AssertionError("did not crash")
'''


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    return load_program(tmp_path_factory.mktemp("evidence"), PROGRAM)


def dossier(prog, name, *args) -> dict:
    return build_dossier(Session(PostMortem(prog.run(getattr(prog, name), *args)))).to_json()


def file_lines(prog) -> list[str]:
    return open(prog.__file__, encoding="utf-8").read().splitlines()


def values_of(frame) -> list[tuple[str, str]]:
    return [(v["expr"], v["value"]) for v in frame["line_values"]]


def test_division_by_zero_shows_operands_in_source_order(prog):
    d = dossier(prog, "mean", [])
    crash = d["frames"][0]
    assert crash["function"] == "mean" and crash["is_crash_frame"]
    assert crash["line"] == line_of(prog, "return total / count")
    assert crash["code"] == "return total / count"
    assert values_of(crash) == [("total", "0"), ("count", "0")]
    assert crash["locals"] == {"values": "[]"}
    assert crash["locals_cut"] == 0
    assert d["exception"] == {"type": "ZeroDivisionError", "message": "division by zero",
                              "title": "ZeroDivisionError: division by zero"}
    assert d["crash_site"] == {"file": prog.__file__, "line": crash["line"], "function": "mean"}
    assert d["assertion"] is False


def test_key_error_shows_the_subscript_with_the_error_and_the_container(prog):
    d = dossier(prog, "get_port", {"host": "h"})
    crash = d["frames"][0]
    assert values_of(crash) == [("config", "{'host': 'h'}"), ("config['port']", "!KeyError: 'port'")]
    assert crash["locals"] == {"host": "'h'"}


def test_failed_assert_shows_the_source_of_the_function_it_called(prog):
    d = dossier(prog, "check", "1")
    assert d["assertion"] is True
    crash = d["frames"][0]
    assert crash["function"] == "check"
    assert values_of(crash) == [("s", "'1'")]
    assert crash["called_functions"] == [{
        "name": "parse",
        "file": prog.__file__,
        "display_file": crash["display_file"],
        "line": line_of(prog, "def parse(s):"),
        "lines": ["def parse(s):", "    return int(s) + 1"],
        "lines_cut": 0,
    }]


def test_called_functions_skip_functions_still_on_the_stack(prog):
    d = dossier(prog, "summary", {"a": [1], "b": []})
    assert [f["function"] for f in d["frames"]] == ["mean", "summary", "run"]
    assert all(f["called_functions"] == [] for f in d["frames"])


def test_multi_line_statement_shows_names_of_the_whole_statement(prog):
    d = dossier(prog, "multi", 1, 2, 0)
    crash = d["frames"][0]
    assert crash["line"] == line_of(prog, "b / c,")
    assert values_of(crash) == [("a", "1"), ("b", "2"), ("c", "0")]
    assert crash["locals"] == {}


def test_crash_in_a_for_header_shows_only_the_header(prog):
    d = dossier(prog, "loop", None)
    crash = d["frames"][0]
    assert crash["line"] == line_of(prog, "for x in items:")
    assert values_of(crash) == [("items", "None")]
    assert crash["locals"] == {"total": "0"}


def test_crash_in_an_if_header_shows_only_the_header(prog):
    d = dossier(prog, "header", prog.Box(1), 0)
    crash = d["frames"][0]
    assert crash["line"] == line_of(prog, "if a.b > limit:")
    assert values_of(crash) == [("a", "Box(size=1)"),
                                ("a.b", "!AttributeError: 'Box' object has no attribute 'b'"),
                                ("limit", "0")]
    assert "a.c" not in json.dumps(crash["line_values"])


def test_source_windows_crash_six_lines_callers_two_within_their_function(prog):
    d = dossier(prog, "summary", {"a": [1], "b": []})
    lines = file_lines(prog)
    crash, caller, outer = d["frames"]
    assert CRASH_CONTEXT == 6 and CALLER_CONTEXT == 2
    for frame, context in ((crash, CRASH_CONTEXT), (caller, CALLER_CONTEXT)):
        start, end = source.function_span("\n".join(lines), frame["line"]) or (1, len(lines))
        first, last = max(start, frame["line"] - context), min(end, frame["line"] + context)
        assert frame["source"] == {"first": first, "lines": lines[first - 1:last]}
    assert crash["source"]["lines"][0].startswith("def mean(")  # not the tail of the function above it
    # The window is clipped at the end of the file.
    assert outer["source"]["first"] == outer["line"] - CALLER_CONTEXT
    assert outer["source"]["lines"] == lines[outer["line"] - CALLER_CONTEXT - 1:outer["line"] + CALLER_CONTEXT]
    assert values_of(caller) == [("means", "{'a': 1.0}"), ("name", "'b'"), ("groups", "{'a': [1], 'b': []}"),
                                 ("groups[name]", "[]")]


def test_frames_are_innermost_first(prog):
    d = dossier(prog, "summary", {"a": [1], "b": []})
    assert [f["function"] for f in d["frames"]] == ["mean", "summary", "run"]
    assert [f["is_crash_frame"] for f in d["frames"]] == [True, False, False]
    indexes = [f["index"] for f in d["frames"]]
    assert indexes == sorted(indexes, reverse=True) == [2, 1, 0]
    assert d["folded_user_frames"] == 0 and d["library_frames"] == 0


def test_library_frames_are_counted_not_listed(prog):
    exc = prog.run(prog.decode, "{oops")
    session = Session(PostMortem(exc))
    d = build_dossier(session).to_json()
    assert [f["function"] for f in d["frames"]] == ["decode", "run"]
    assert d["library_frames"] == len(session.debugger.stack) - 2 >= 1
    assert d["crash_site"]["function"] == "decode"
    assert d["exception"]["type"] == "JSONDecodeError"
    assert values_of(d["frames"][0]) == [("text", "'{oops'")]  # a module is not evidence
    assert "json" not in json.dumps([f["file"] for f in d["frames"]])


def test_recursion_error_is_folded_and_small(prog):
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 1010)
    try:
        exc = prog.run(prog.depth, 0)
    finally:
        sys.setrecursionlimit(limit)
    assert isinstance(exc, RecursionError)
    session = Session(PostMortem(exc))
    users = len(session.debugger.user_indexes())
    assert users >= 1000
    d = build_dossier(session).to_json()
    # The repeating call once, with how often it repeats, then where the recursion began.
    assert d["frames"][0]["function"] == "depth" and d["frames"][0]["repeated"] >= 998
    assert d["frames"][1]["function"] != "depth"
    assert sum(1 + f["repeated"] for f in d["frames"]) + d["folded_user_frames"] <= users
    assert len(d["frames"]) <= MAX_FRAMES and len(json.dumps(d)) < 20_000


def test_chain_is_listed(prog):
    d = dossier(prog, "chained", {})
    assert d["chain"] == [
        {"index": 0, "title": "KeyError: 'port'", "relation": "cause of #1"},
        {"index": 1, "title": "RuntimeError: no port", "relation": "raised"},
    ]
    assert d["exception"]["title"] == "RuntimeError: no port"


def test_crash_inside_a_comprehension_shows_what_the_element_reads(prog):
    """`[v / t for v in values]` with t == 0: the crash frame's line values should show `t`, and
    none of them should be an error caused by looking a name up in the wrong frame."""
    d = dossier(prog, "scaled", [1, 2], 0)
    crash = d["frames"][0]
    assert crash["line"] == line_of(prog, "return [v / t for v in values]")
    shown = dict(values_of(crash))
    assert not [v for v in shown.values() if v.startswith("!NameError")], shown
    assert shown.get("t") == "0", shown


def test_dossier_is_json_serialisable_and_plain(prog):
    d = dossier(prog, "get_port", {"host": "h"})
    assert json.loads(json.dumps(d)) == d


# --- failing_statement / expressions_on -------------------------------------------------------------

SOURCE = """\
def f(a, it):
    x = (a +
         b)
    for i in it:
        y = i
    if a.b > 3:
        pass
    with open(p) as fh:
        pass
""".splitlines()


@pytest.mark.parametrize("lineno, kind, span", [
    (2, ast.Assign, (2, 3)),
    (3, ast.Assign, (2, 3)),
    (4, ast.For, (4, 5)),
    (5, ast.Assign, (5, 5)),
    (6, ast.If, (6, 7)),
    (8, ast.With, (8, 9)),
    (1, ast.FunctionDef, (1, 9)),
])
def test_failing_statement_is_the_smallest_enclosing_statement(lineno, kind, span):
    node = failing_statement(SOURCE, lineno)
    assert type(node) is kind and (node.lineno, node.end_lineno) == span


@pytest.mark.parametrize("lineno, expected", [
    (3, ["a", "b"]),
    (4, ["it"]),
    (5, ["i"]),
    (6, ["a", "a.b"]),
    (8, ["p"]),
    (1, []),
])
def test_expressions_on_the_failing_statement(lineno, expected):
    assert expressions_on(failing_statement(SOURCE, lineno)) == expected


def test_failing_statement_in_a_file_that_does_not_parse():
    lines = ["x = (", "    return a / b", "if c.d:"]
    node = failing_statement(lines, 2)
    assert isinstance(node, ast.Return) and expressions_on(node) == ["a", "b"]
    # A compound header alone (`if c.d:`) is still a statement worth reading.
    node = failing_statement(lines, 3)
    assert node is not None and expressions_on(node) == ["c", "c.d"]
    assert failing_statement(lines, 99) is None


def stmt(text):
    return ast.parse(text).body[0]


@pytest.mark.parametrize("text, expected", [
    ("return total / count", ["total", "count"]),
    ("x = obj.attr.sub[key] + f(y, z=w)", ["obj", "obj.attr", "obj.attr.sub", "obj.attr.sub[key]", "key", "y", "w"]),
    ("obj.method(a)", ["obj", "a"]),
    ("d[k][0]", ["d", "d[k]", "d[k][0]", "k"]),
    ("x[i + 1]", ["x", "i"]),
    ("a.__class__", ["a"]),
    ("x = y", ["y"]),
    ("z = lambda: q", []),
    ("assert parse(s) == 3", ["s"]),
    ('config["port"]', ["config", "config['port']"]),
    ("print(a, sep=b)", ["a", "b"]),
    ("t = (first,\n     second)", ["first", "second"]),
    ("del x", []),
])
def test_expressions_on_unit(text, expected):
    assert expressions_on(stmt(text)) == expected


ORIGINS = '''
def load(text):
    values = [int(x) for x in text.split(",") if x.strip()]
    return values[1:]


def mean(values):
    return sum(values) / len(values)


def report(text):
    scores = load(text)
    return mean(scores)


def run():
    try:
        report("42")
    except ZeroDivisionError as exc:
        return exc
'''


def test_the_dossier_says_where_the_failing_values_came_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    prog = load_program(tmp_path, ORIGINS, "origins_prog")
    session = Session(PostMortem(prog.run()))
    dossier = build_dossier(session)
    found = {(o.via, o.line, o.code) for o in dossier.origins}
    # `values` in mean is the parameter, passed `scores` by report, which came from load's return line.
    assert ("scores", line_of(prog, "scores = load(text)"), "scores = load(text)") in found
    assert any(o.line == line_of(prog, "return values[1:]") and o.code == "return values[1:]" for o in dossier.origins)
    assert all(o.file == prog.__file__ and o.display_file == "origins_prog.py" for o in dossier.origins)
    crash_line = line_of(prog, "return sum(values) / len(values)")
    assert crash_line not in {o.line for o in dossier.origins}  # the frames show their own lines already


UNBOUND = '''
currency = "EUR"


def summary(sales):
    print(currency)
    for currency, amount in sales:
        print(currency)


def run():
    try:
        summary([("USD", 3)])
    except UnboundLocalError as exc:
        return exc
'''


def test_an_unbound_local_shows_the_binding_that_made_it_local(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    prog = load_program(tmp_path, UNBOUND, "unbound_prog")
    dossier = build_dossier(Session(PostMortem(prog.run())))
    binding = line_of(prog, "for currency, amount in sales:")
    assert ("currency", "binding", binding) in {(o.via, o.kind, o.line) for o in dossier.origins}


# --- code compiled from strings (exec, eval, python -c): all named <string> ----------------------

STRINGS = '''
from __future__ import annotations

SOURCE = """
def ratio(a, b):
    return a / b

ratio(1, 0)
"""
DEFINITIONS = "def halve(n):\\n    return n / 0\\n"
TEMPLATE = "x = 1\\ny = 2\\nz = 3\\n"


def exec_named():
    exec(SOURCE, {})


def call_after_exec():
    namespace = {}
    exec(DEFINITIONS, namespace)
    return namespace["halve"](4)


def eval_literal():
    return eval("1 / n", {"n": 0})


def exec_unnamed():
    exec("".join(["def f():\\n", "    return 1 / 0\\n", "f()\\n"]), {})


def run(fn):
    try:
        fn()
    except ZeroDivisionError as exc:
        return exc
'''


@pytest.mark.parametrize("function, expected", [
    ("exec_named", [("<string>", "return a / b"), ("<string>", "ratio(1, 0)"), ("strings_prog.py", "exec(SOURCE, {})")]),
    ("call_after_exec", [("<string>", "return n / 0"), ("strings_prog.py", 'return namespace["halve"](4)')]),
    ("eval_literal", [("<string>", "1 / n"), ("strings_prog.py", 'return eval("1 / n", {"n": 0})')]),
    # No name holds the string (TEMPLATE is another one): no source, rather than another string's lines.
    ("exec_unnamed", [("<string>", ""), ("<string>", ""), ("strings_prog.py", 'exec("".join([')]),
])
def test_a_string_frame_shows_the_string_it_was_compiled_from(tmp_path, monkeypatch, function, expected):
    monkeypatch.chdir(tmp_path)
    prog = load_program(tmp_path, STRINGS, "strings_prog")
    dossier = build_dossier(Session(PostMortem(prog.run(getattr(prog, function)))))
    assert [(f.display_file, f.code[:len(code)]) for f, (_, code) in zip(dossier.frames, expected)] == expected
    for frame in dossier.frames:
        if frame.code:  # its window holds its line
            assert frame.source.lines[frame.line - frame.source.first].strip() == frame.code
        else:
            assert frame.source.lines == []


def test_python_c_and_the_strings_it_execs(tmp_path):
    """`python -c` code is a string too: its lines are the `-c` argument's, and the lines of a string
    it execs are that string's, never the `-c` argument's."""
    program = ('SOURCE = "def f(y):\\n    return y / 0\\n"\n'
               'namespace = {}\n'
               'exec(SOURCE, namespace)\n'
               'exec("".join(["namespace[", "\'f\'](2)"]), {"namespace": namespace})\n')
    report = tmp_path / "r.json"
    run = run_py(["-c", program], cwd=tmp_path, env=clean_env(AUTODBG="1", AUTODBG_MODEL="none",
                                                              AUTODBG_REPORT=str(report)))
    assert run.returncode == 1 and "ZeroDivisionError" in run.stderr
    frames = [(f["display_file"], f["line"], f["code"], f["source"]["lines"]) for f in
              json.loads(report.read_text())["dossier"]["frames"]]
    assert frames[0][:3] == ("<string>", 2, "return y / 0") and frames[0][3][0] == "def f(y):"
    assert frames[1] == ("<string>", 1, "", [])  # the joined string: known to no name
    assert frames[2][:3] == ("<string>", 4, "exec(\"\".join([\"namespace[\", \"'f'](2)\"]), {\"namespace\": namespace})")
