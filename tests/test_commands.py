"""The command language on real crashes: every command of COMMANDS, the parser's errors, output
bounds and stack folding. Each test crashes real code in a program written to a temporary file
and opens the post-mortem debugger on the real traceback."""

from __future__ import annotations

import json
import re
import sys

import pytest

from autodbg.debugger.commands import COMMANDS, COMMANDS_BY_NAME, parse
from autodbg.debugger.output import CommandError, MAX_CHARS, MAX_LINES, bound_output
from autodbg.debugger.session import Session
from autodbg.crash import CrashSession
from autodbg.frames.core import PostMortem, exception_chain, is_user_file
from crashkit import line_of, load_program, run

MANY = 500  # locals of `many`
LONG = 100  # lines of `long_function`

PROGRAM = '''
import json


class Account:
    def __init__(self, owner, balance):
        self.owner = owner
        self.balance = balance

    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError(f"{self.owner} cannot withdraw {amount}")
        self.balance -= amount


def average(values):
    total = sum(values)
    count = len(values)
    return total / count


def report(groups):
    out = {}
    for name, values in groups.items():
        out[name] = average(values)
    return out


def nested():
    groups = {"a": [1, 2], "b": []}
    return report(groups)


def method():
    acct = Account("ann", 10)
    acct.withdraw(25)


def make_scaler(factor):
    def scale(x):
        return x / factor
    return scale


def closure():
    return make_scaler(0)(4)


def parse_rows(rows):
    for row in rows:
        yield int(row)


def generator():
    return [v * 2 for v in parse_rows(["1", "x"])]


def comprehension():
    values = [2, 1, 0]
    return [10 / v for v in values]


def read_port(config):
    try:
        return int(config["port"])
    except KeyError as exc:
        raise RuntimeError("no port configured") from exc


def implicit(config):
    try:
        return config["port"]
    except KeyError:
        return int("eighty")


def suppressed(config):
    try:
        return config["port"]
    except KeyError:
        raise LookupError("port missing") from None


def validate(item):
    if item < 0:
        raise ValueError(f"negative: {item}")
    return item


def validate_all(items):
    errors = []
    for item in items:
        try:
            validate(item)
        except ValueError as exc:
            errors.append(exc)
    if errors:
        raise ExceptionGroup("invalid items", errors)


def unraised_group():
    raise ExceptionGroup("built, not raised", [ValueError("never raised")])


def depth(n):
    return depth(n + 1)


def decode(text):
    data = json.loads(text)
    return data


def big_values():
    big = list(range(100_000))
    text = "y" * 10_000
    wide = [str(i) * 50 for i in range(100)]
    raise RuntimeError("big values")


def wide_locals():
''' + "".join(f'    w{i:02d} = "{i:02d}" * 100\n' for i in range(30)) + '''    raise RuntimeError("wide")


def many():
''' + "".join(f"    v{i} = {i}\n" for i in range(MANY)) + '''    raise RuntimeError("many")


def long_function():
''' + "".join(f"    x{i} = {i}\n" for i in range(LONG - 2)) + '''    return x0


def long_crash():
''' + "".join(f"    y{i} = {i}\n" for i in range(LONG - 2)) + '''    return y0 / y0


def run(fn, *args):
    try:
        fn(*args)
    except BaseException as exc:
        return exc
    raise AssertionError("did not crash")
'''


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    return load_program(tmp_path_factory.mktemp("commands"), PROGRAM)


@pytest.fixture(autouse=True)
def in_program_dir(prog, monkeypatch):
    """Paths are shown relative to the working directory: make them `prog.py`."""
    monkeypatch.chdir(prog.__file__.rsplit("/", 1)[0])


def session(prog, name, *args) -> Session:
    return Session(PostMortem(prog.run(getattr(prog, name), *args)))


def L(prog, text, nth=0) -> int:
    return line_of(prog, text, nth)


def frame_row(prog, index, text, function, current=False):
    """The two `where` lines of a user frame."""
    mark = ">" if current else " "
    return f"{mark} {index} prog.py:{L(prog, text)} in {function}\n      {text.strip()}"


def assert_one_line_error(result, *, starts="error:"):
    assert not result.ok
    assert result.output.startswith(starts), result.output
    assert "\n" not in result.output, result.output
    assert not result.ends_session


# --- where / up / down / frame on nested calls ------------------------------------------------


def test_where_nested_calls_marks_innermost_user_frame(prog):
    s = session(prog, "nested")
    assert s.debugger.curindex == 3
    assert run(s, "where") == "\n".join([
        frame_row(prog, 0, "fn(*args)", "run"),
        frame_row(prog, 1, "return report(groups)", "nested"),
        frame_row(prog, 2, "out[name] = average(values)", "report"),
        frame_row(prog, 3, "return total / count", "average", current=True),
    ])


def test_up_down_frame_move_and_describe(prog):
    s = session(prog, "nested")
    assert run(s, "up") == f"frame 2: prog.py:{L(prog, 'out[name] = average')} in report\n" \
                           f"  {L(prog, 'out[name] = average')} -> out[name] = average(values)"
    assert run(s, "up 2") == f"frame 0: prog.py:{L(prog, 'fn(*args)')} in run\n" \
                             f"  {L(prog, 'fn(*args)')} -> fn(*args)"
    assert run(s, "down 3").startswith("frame 3: prog.py:")
    assert s.debugger.curindex == 3
    assert run(s, "frame 1") == f"frame 1: prog.py:{L(prog, 'return report(groups)')} in nested\n" \
                                f"  {L(prog, 'return report(groups)')} -> return report(groups)"
    assert s.debugger.curindex == 1
    # `where` follows the selection.
    assert f"> 1 prog.py:{L(prog, 'return report(groups)')} in nested" in run(s, "where")


@pytest.mark.parametrize("start, line, message", [
    (0, "up", "error: already at the outermost frame"),
    (3, "down", "error: already at the innermost frame"),
    (3, "up 50", "error: cannot move 50 frames: frames are 0..3"),
    (0, "down 4", "error: cannot move 4 frames: frames are 0..3"),
    (2, "up 3", "error: cannot move 3 frames: frames are 0..3"),
    (2, "frame 4", "error: no frame 4: frames are 0..3"),
    (2, "frame 99999", "error: no frame 99999: frames are 0..3"),
    (2, "frame -1", "error: N must be at least 0"),
    (2, "up 0", "error: N must be at least 1"),
    (2, "down -2", "error: N must be at least 1"),
])
def test_frame_moves_out_of_bounds_are_one_line_errors(prog, start, line, message):
    s = session(prog, "nested")
    s.debugger.select_frame(start)
    result = s.execute(line)
    assert_one_line_error(result)
    assert result.output == message
    assert s.debugger.curindex == start  # a failed move does not move


# --- locals / args / print / type / dir on methods, closures, generators ----------------------


def test_locals_and_args_in_a_plain_function(prog):
    s = session(prog, "nested")
    assert run(s, "locals") == "values = []\ntotal = 0\ncount = 0"
    assert run(s, "args") == "values = []"
    run(s, "up")
    assert run(s, "locals") == "groups = {'a': [1, 2], 'b': []}\nout = {'a': 1.5}\nname = 'b'\nvalues = []"
    assert run(s, "args") == "groups = {'a': [1, 2], 'b': []}"
    run(s, "frame 1")
    assert run(s, "args") == "(no arguments)"


def test_method_frame_shows_self_and_its_attributes(prog):
    s = session(prog, "method")
    assert s.debugger.current.function == "withdraw"
    assert run(s, "args") == "self = Account(owner='ann', balance=10)\namount = 25"
    assert run(s, "print self.balance") == "self.balance = 10"
    assert run(s, "print amount > self.balance") == "amount > self.balance = True"
    assert run(s, "type self") == f"type(self) = {prog.__name__}.Account"
    assert run(s, "type self.owner") == "type(self.owner) = str"
    assert run(s, "dir self") == "dir(self): balance, owner, withdraw"
    assert run(s, "print self.__class__.__name__") == "self.__class__.__name__ = 'Account'"


def test_closure_free_variables_are_locals_but_not_args(prog):
    s = session(prog, "closure")
    assert s.debugger.current.function == "scale"
    assert run(s, "locals") == "x = 4\nfactor = 0"
    assert run(s, "args") == "x = 4"
    assert run(s, "print factor") == "factor = 0"
    assert run(s, "print x / (factor + 2)") == "x / (factor + 2) = 2.0"


def test_crash_inside_a_generator_being_consumed(prog):
    s = session(prog, "generator")
    current = s.debugger.current
    assert current.function == "parse_rows"
    assert current.lineno == L(prog, "yield int(row)")
    assert run(s, "locals") == "rows = ['1', 'x']\nrow = 'x'"
    assert run(s, "print row") == "row = 'x'"
    where = run(s, "where")
    assert where.splitlines()[-2:] == frame_row(prog, s.debugger.curindex, "yield int(row)", "parse_rows",
                                                current=True).splitlines()
    assert f"prog.py:{L(prog, 'return [v * 2 for v')} in generator" in where
    # The generator was not advanced by the inspection: it is still suspended at the crash.
    functions = [e.function for e in s.debugger.stack]
    assert functions[:2] == ["run", "generator"] and functions[-1] == "parse_rows"


def test_crash_inside_a_comprehension(prog):
    """3.11 runs the comprehension in its own `<listcomp>` frame, 3.12 inlines it: either way
    the crash line is current, `v` (where visible) is 0 and `values` is reachable."""
    s = session(prog, "comprehension")
    crash_line = L(prog, "return [10 / v for v in values]")
    assert s.debugger.current.lineno == crash_line
    assert s.debugger.current.function in ("<listcomp>", "comprehension")
    if sys.version_info < (3, 12):
        assert s.debugger.current.function == "<listcomp>"
        assert run(s, "print v") == "v = 0"
        run(s, "up")
    assert s.debugger.current.function == "comprehension"
    assert run(s, "print values") == "values = [2, 1, 0]"
    assert run(s, "print values[-1] == 0") == "values[-1] == 0 = True"


# --- list ----------------------------------------------------------------------------------------


def numbered(prog, first, last, current):
    lines = open(prog.__file__, encoding="utf-8").read().splitlines()
    width = len(str(last))
    return "\n".join(f"{str(n).rjust(width)} {'->' if n == current else '  '} {lines[n - 1]}"
                     for n in range(first, last + 1))


def test_list_default_window_marks_current_line(prog):
    s = session(prog, "nested")
    crash_line = L(prog, "return total / count")
    out = run(s, "list")
    assert out == numbered(prog, crash_line - 5, crash_line + 5, crash_line)
    assert [l for l in out.splitlines() if " -> " in l] == [f"{crash_line} ->     return total / count"]
    # After `up`, the window follows the selected frame.
    run(s, "up")
    caller = L(prog, "out[name] = average(values)")
    assert run(s, "list") == numbered(prog, caller - 5, caller + 5, caller)


def test_list_first_and_first_last_and_count(prog):
    s = session(prog, "nested")
    crash_line = L(prog, "return total / count")
    assert run(s, "list 3") == numbered(prog, 3, 13, crash_line)
    assert run(s, f"list {crash_line - 1} {crash_line}") == numbered(prog, crash_line - 1, crash_line, crash_line)
    # LAST smaller than FIRST is a count, as in pdb: `list 20 3` shows 20, 21, 22.
    assert run(s, "list 20 3") == numbered(prog, 20, 22, crash_line)
    assert run(s, "list 20 1") == numbered(prog, 20, 20, crash_line)


def test_list_is_bounded_and_checks_the_file_length(prog):
    s = session(prog, "nested")
    out = run(s, "list 1 500")
    assert len(out.splitlines()) == MAX_LINES
    assert out.splitlines()[0].startswith(" 1 ") and out.splitlines()[-1].startswith(f"{MAX_LINES} ")
    total = len(open(prog.__file__, encoding="utf-8").read().splitlines())
    result = s.execute("list 99999")
    assert_one_line_error(result)
    assert result.output == f"error: prog.py has only {total} lines"
    assert_one_line_error(s.execute("list 0"))


# --- source ----------------------------------------------------------------------------------------


def source_of(prog, first_text, last_text):
    first, last = L(prog, first_text), L(prog, last_text)
    return f"prog.py:{first}\n" + numbered(prog, first, last, None)


def test_source_of_function_method_and_class(prog):
    s = session(prog, "method")
    assert run(s, "source Account.withdraw") == source_of(prog, "def withdraw", "self.balance -= amount")
    assert run(s, "source self.withdraw") == source_of(prog, "def withdraw", "self.balance -= amount")
    assert run(s, "source Account") == source_of(prog, "class Account:", "self.balance -= amount")
    run(s, "up")
    assert run(s, "source acct.withdraw") == source_of(prog, "def withdraw", "self.balance -= amount")
    assert run(s, "source average") == source_of(prog, "def average", "return total / count")


def test_source_of_a_long_function_says_how_much_was_cut(prog):
    out = run(session(prog, "nested"), "source long_function")
    lines = out.splitlines()
    assert lines[0] == f"prog.py:{L(prog, 'def long_function')}"
    shown = [l for l in lines[1:] if not l.startswith("...[cut")]
    assert len(lines) <= MAX_LINES + 1 and shown[0].endswith(" def long_function():")
    m = re.search(r"\[cut: (\d+) more lines\]", out)
    assert m, out[-200:]
    assert len(shown) + int(m.group(1)) == LONG, f"{len(shown)} shown + {m.group(1)} said cut != {LONG} lines"


@pytest.mark.parametrize("line, message", [
    ("source nosuch", "error: NameError: name 'nosuch' is not defined"),
    ("source len", "error: no source for len: "),
    ("source 3x", "error: NAME must be a name like `parse` or `Config.load`, not '3x'"),
    ("source a[0]", "error: NAME must be a name like `parse` or `Config.load`, not 'a[0]'"),
])
def test_source_errors(prog, line, message):
    result = session(prog, "method").execute(line)
    assert_one_line_error(result)
    assert result.output.startswith(message), result.output


# --- exceptions / exception N -------------------------------------------------------------------


def test_explicit_cause_chain_and_switching(prog):
    s = session(prog, "read_port", {})
    assert run(s, "exceptions") == ("  0 KeyError: 'port'  (cause of #1)\n"
                                    "> 1 RuntimeError: no port configured  (raised)")
    assert run(s, "where").endswith(frame_row(prog, 1, 'raise RuntimeError("no port configured") from exc',
                                              "read_port", current=True))
    line = L(prog, 'return int(config["port"])')
    assert run(s, "exception 0") == (f"exception 0: KeyError: 'port'\n"
                                     f"frame 0: prog.py:{line} in read_port\n"
                                     f"  {line} -> return int(config[\"port\"])")
    # The KeyError's own stack: only the frame it travelled through.
    assert run(s, "where") == frame_row(prog, 0, 'return int(config["port"])', "read_port", current=True)
    assert run(s, "exceptions") == ("> 0 KeyError: 'port'  (cause of #1)\n"
                                    "  1 RuntimeError: no port configured  (raised)")
    assert run(s, "print config") == "config = {}"
    # And back.
    assert run(s, "exception 1").startswith("exception 1: RuntimeError: no port configured\nframe 1: ")
    assert s.debugger.curindex == 1
    result = s.execute("exception 2")
    assert_one_line_error(result)
    assert result.output == "error: no exception 2: they are 0..1"


def test_implicit_context_chain(prog):
    s = session(prog, "implicit", {})
    assert run(s, "exceptions") == (
        "  0 KeyError: 'port'  (context of #1)\n"
        "> 1 ValueError: invalid literal for int() with base 10: 'eighty'  (raised)")
    run(s, "exception 0")
    assert s.debugger.current.lineno == L(prog, 'return config["port"]')
    assert run(s, "locals") == "config = {}"


def test_suppressed_context_is_not_in_the_chain(prog):
    exc = prog.run(prog.suppressed, {})
    assert exc.__context__ is not None and exc.__suppress_context__
    s = Session(PostMortem(exc))
    assert run(s, "exceptions") == "> 0 LookupError: port missing  (raised)"
    result = s.execute("exception 1")
    assert_one_line_error(result)
    assert result.output == "error: no exception 1: they are 0..0"


def test_exception_group_members_have_their_own_stacks(prog):
    s = session(prog, "validate_all", [1, -2, 3, -4])
    assert run(s, "exceptions") == (
        "> 0 ExceptionGroup: invalid items (2 sub-exceptions)  (raised)\n"
        "  1 ValueError: negative: -2  (member 0 of group #0)\n"
        "  2 ValueError: negative: -4  (member 1 of group #0)")
    assert run(s, "where").endswith(frame_row(prog, 1, 'raise ExceptionGroup("invalid items", errors)',
                                              "validate_all", current=True))
    raise_line = L(prog, 'raise ValueError(f"negative: {item}")')
    assert run(s, "exception 1") == (f"exception 1: ValueError: negative: -2\n"
                                     f"frame 1: prog.py:{raise_line} in validate\n"
                                     f"  {raise_line} -> raise ValueError(f\"negative: {{item}}\")")
    assert run(s, "where") == "\n".join([
        frame_row(prog, 0, "            validate(item)", "validate_all"),
        frame_row(prog, 1, 'raise ValueError(f"negative: {item}")', "validate", current=True),
    ])
    assert run(s, "print item") == "item = -2"
    run(s, "exception 2")
    assert run(s, "print item") == "item = -4"
    run(s, "up")
    assert run(s, "print errors") == "errors = [ValueError('negative: -2'), ValueError('negative: -4')]"


def test_exception_that_was_never_raised_has_no_frames(prog):
    s = session(prog, "unraised_group")
    assert run(s, "exceptions").splitlines()[1] == "  1 ValueError: never raised  (member 0 of group #0)"
    result = s.execute("exception 1")
    assert_one_line_error(result)
    assert result.output == "error: exception #1 was never raised, so it has no frames"
    assert s.debugger.exception_index == 0  # still on the group


def test_exception_chain_is_cycle_safe():
    def boom():
        try:
            raise KeyError("a")
        except KeyError as first:
            second = ValueError("b")
            first.__context__ = second  # a cycle: second's context is first
            raise second
    try:
        boom()
    except ValueError as exc:
        chain, top = exception_chain(exc)
    assert [c.title for c in chain] == ["KeyError: 'a'", "ValueError: b"]
    assert top == 1


# --- deep recursion: folding --------------------------------------------------------------------


@pytest.fixture(scope="module")
def recursion(prog):
    limit = sys.getrecursionlimit()
    here = len(__import__("inspect").stack(0))
    sys.setrecursionlimit(here + 1010)
    try:
        exc = prog.run(prog.depth, 0)
    finally:
        sys.setrecursionlimit(limit)
    assert isinstance(exc, RecursionError)
    return exc


def test_where_folds_a_deep_recursion_and_keeps_the_current_frame(prog, recursion):
    s = Session(PostMortem(recursion))
    stack = s.debugger.stack
    assert len(stack) >= 1000
    assert s.debugger.curindex == len(stack) - 1
    out = run(s, "where")
    lines = out.splitlines()
    assert len(lines) <= MAX_LINES
    folded = [l for l in lines if "frames folded" in l]
    assert len(folded) == 1 and re.fullmatch(r"  \.\.\. (\d+) frames folded \(depth x\1\) \.\.\.", folded[0]), folded
    current = frame_row(prog, len(stack) - 1, "return depth(n + 1)", "depth", current=True)
    assert out.endswith(current), out[-300:]
    assert "[cut:" not in out  # folding alone keeps `where` within bounds


def test_where_after_selecting_a_middle_frame_shows_it_and_the_crash(prog, recursion):
    s = Session(PostMortem(recursion))
    last = len(s.debugger.stack) - 1
    run(s, "frame 500")
    out = run(s, "where")
    assert frame_row(prog, 500, "return depth(n + 1)", "depth", current=True) in out
    assert f"  {last} prog.py:{L(prog, 'return depth(n + 1)')} in depth" in out  # the crash is still listed
    assert len(out.splitlines()) <= MAX_LINES and "[cut:" not in out


def test_moves_in_a_deep_recursion(prog, recursion):
    s = Session(PostMortem(recursion))
    last = len(s.debugger.stack) - 1
    assert run(s, "up 900").startswith(f"frame {last - 900}: prog.py:")
    assert run(s, "print n") == f"n = {last - 900 - 1}"
    result = s.execute("down 5000")
    assert_one_line_error(result)
    assert result.output == f"error: cannot move 5000 frames: frames are 0..{last}"


# --- library frames ------------------------------------------------------------------------------


def test_library_frames_are_folded_and_current_is_innermost_user_frame(prog):
    s = session(prog, "decode", "{oops")
    assert s.debugger.current.function == "decode"
    assert not s.debugger.stack[-1].is_user  # the crash itself is inside json
    lines = run(s, "where").splitlines()
    assert lines[:4] == (frame_row(prog, 0, "fn(*args)", "run") + "\n"
                         + frame_row(prog, 1, "data = json.loads(text)", "decode", current=True)).splitlines()
    assert len(lines) == 5
    m = re.fullmatch(r"  2-(\d+) \[(\d+) library frame\(s\): __init__\.py, decoder\.py\]", lines[4])
    assert m and int(m.group(1)) == len(s.debugger.stack) - 1 and int(m.group(2)) == len(s.debugger.stack) - 2
    assert run(s, "print text") == "text = '{oops'"
    # Moving into the library is allowed and says so.
    down = run(s, "down")
    assert down.startswith("frame 2: ") and "json" in down and down.splitlines()[0].endswith("in loads  [library]")
    assert "> 2 " in run(s, "where")


def test_is_user_file():
    assert is_user_file(__file__)
    assert is_user_file("<string>") and is_user_file("<stdin>")
    assert not is_user_file("<frozen importlib._bootstrap>")
    assert not is_user_file(json.__file__)
    assert not is_user_file(__import__("rich").__file__)
    assert not is_user_file(__import__("autodbg.frames.core").frames.core.__file__)


# --- output bounds -------------------------------------------------------------------------------


def test_huge_list_local_is_shown_in_one_short_line(prog):
    s = session(prog, "big_values")
    out = run(s, "print big")
    assert out == "big = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...99988 more]"
    assert run(s, "print len(big)") == "len(big) = 100000"


def test_long_string_local_is_cut_and_says_how_long_it_is(prog):
    s = session(prog, "big_values")
    out = run(s, "print text")
    assert len(out) < 400
    assert out.startswith("text = 'yyyy")
    assert "10000" in out, out  # the evidence should tell the real length of the string


def test_locals_output_is_bounded_in_lines(prog):
    s = session(prog, "many")
    out = run(s, "locals")
    lines = out.splitlines()
    assert len(lines) == MAX_LINES + 1
    assert lines[:MAX_LINES] == [f"v{i} = {i}" for i in range(MAX_LINES)]
    assert lines[-1] == f"...[cut: {MANY - MAX_LINES} more lines]"


def test_output_is_bounded_in_characters(prog):
    s = session(prog, "wide_locals")
    full = "\n".join(f"w{i:02d} = '{f'{i:02d}' * 100}'" for i in range(30))
    assert len(full) > MAX_CHARS
    out = run(s, "locals")
    assert out == full[:MAX_CHARS] + f"\n...[cut: {len(full) - MAX_CHARS} more characters]"
    # A list of long strings printed whole is bounded too.
    s = session(prog, "big_values")
    out = run(s, "print wide")
    assert len(out) <= MAX_CHARS + 40 and len(out.splitlines()) <= MAX_LINES + 1


def test_bound_output_unit():
    assert bound_output("a\nb") == "a\nb"
    text = "\n".join(str(i) for i in range(100))
    assert bound_output(text) == "\n".join(str(i) for i in range(MAX_LINES)) + "\n...[cut: 60 more lines]"
    assert bound_output("x" * (MAX_CHARS + 7)) == "x" * MAX_CHARS + "\n...[cut: 7 more characters]"


# --- help / quit / done / why -------------------------------------------------------------------


def controller(prog, name, **options) -> CrashSession:
    """The session's controller, which runs the commands that drive the session (help, quit, why...)."""
    exc = prog.run(getattr(prog, name))
    return CrashSession.of_crash(exc, **options)


def test_help_lists_every_command_from_the_table(prog):
    out = run(controller(prog, "nested"), "help")
    commands, aliases = out.split("\n\n")
    lines = commands.splitlines()
    assert len(lines) == len(COMMANDS)
    for command, line in zip(COMMANDS, lines):
        assert line.startswith(command.usage + " ") and line.endswith("  " + command.help), line
    # Then pdb's names: each alias once, renames of a command on one row.
    rows = aliases.splitlines()[1:]
    for alias in (a for c in COMMANDS for a in c.aliases):
        assert len([row for row in rows if re.match(rf"(\w+, )*{alias.name}\b", row)]) == 1, alias.name
    assert "bt, w                 where" in rows and "q, exit               quit" in rows
    assert "p EXPR                print: the value alone" in rows
    assert {c.name for c in COMMANDS} >= {"where", "up", "down", "frame", "locals", "args", "print", "type",
                                          "dir", "list", "source", "exceptions", "exception", "help",
                                          "quit", "done", "why"}


@pytest.mark.parametrize("name", ["quit", "done"])
def test_quit_and_done_end_the_session(prog, name):
    result = controller(prog, "nested").execute(name)
    assert result.ok and result.ends_session and result.output == ""
    assert session(prog, "nested").execute(name).output == f"error: `{name}` is not possible here"  # not in a probe


def test_other_commands_do_not_end_the_session(prog):
    s = controller(prog, "nested", probes=False)
    for command in COMMANDS:
        if command.ends_session:
            continue
        arg = {"count": " 1", "frame": " 0", "exception": " 0", "line": " 1", "expr": " 1", "name": " average",
               "breakpoint": " average", "call": " average(values)", "change": " prog.py:1 x = 1"}
        line = command.name + "".join(arg[a.kind] for a in command.args if not a.optional)
        assert not s.execute(line).ends_session, line
    assert {c.name for c in COMMANDS if c.ends_session} == {"quit", "done"}


def test_why_needs_an_explainer(prog):
    result = controller(prog, "nested").execute("why")
    assert_one_line_error(result)
    assert result.output == "error: why is only available under `autodbg run --interactive`"
    seen = []
    s = controller(prog, "nested", explain=lambda sess: seen.append(sess) or "the diagnosis")
    result = s.execute("why")
    assert result.ok and result.output == "the diagnosis" and seen == [s]


# --- the parser -----------------------------------------------------------------------------------


@pytest.mark.parametrize("line, message", [
    ("nosuch", "error: unknown command 'nosuch'; try `help`"),
    ("WHERE", "error: unknown command 'WHERE'; try `help`"),
    ("", "error: empty command; try `help`"),
    ("   ", "error: empty command; try `help`"),
    ("print", "error: usage: print EXPR"),
    ("type   ", "error: usage: type EXPR"),
    ("dir", "error: usage: dir EXPR"),
    ("frame", "error: usage: frame N"),
    ("exception", "error: usage: exception N"),
    ("source", "error: usage: source NAME"),
    ("frame x", "error: N must be a number, not 'x'"),
    ("frame 1.5", "error: N must be a number, not '1.5'"),
    ("up two", "error: N must be a number, not 'two'"),
    ("list a", "error: FIRST must be a number, not 'a'"),
    ("list 1 b", "error: LAST must be a number, not 'b'"),
    ("up 1 2", "error: usage: up [N]"),
    ("where now", "error: usage: where"),
    ("list 1 2 3", "error: usage: list [FIRST] [LAST]"),
    ("locals x", "error: usage: locals"),
    ("done now", "error: usage: done"),
    ("source a b", "error: usage: source NAME"),
    ("trace", "error: usage: trace CALL"),
    ("trace parse(s.strip())", "error: CALL must be a call of the current line whose arguments are names and "
                               "literals, like `parse(s)`, not 'parse(s.strip())'"),
    ("trace s", "error: CALL must be a call of the current line whose arguments are names and literals, "
                "like `parse(s)`, not 's'"),
    ("print x\ny", None),
])
def test_parser_errors_are_one_line(prog, line, message):
    s = session(prog, "nested")
    before = s.debugger.curindex
    result = s.execute(line)
    assert_one_line_error(result)
    if message is not None:
        assert result.output == message
    assert s.debugger.curindex == before


def test_parse_returns_command_and_typed_arguments():
    assert parse("list 3 4") == (COMMANDS_BY_NAME["list"], [3, 4])
    assert parse("  up  ") == (COMMANDS_BY_NAME["up"], [])
    assert parse("print  x + 1 ") == (COMMANDS_BY_NAME["print"], ["x + 1"])
    assert parse("source Config.load") == (COMMANDS_BY_NAME["source"], ["Config.load"])
    assert parse("trace  self.m( a.b[0],key=-1 )") == (COMMANDS_BY_NAME["trace"], ["self.m(a.b[0], key=-1)"])
    with pytest.raises(CommandError):
        parse("frame")


def test_aliases_parse_to_their_command_with_pdbs_forms():
    for alias, name in [("bt", "where"), ("w", "where"), ("q", "quit"), ("exit", "quit"), ("h", "help"),
                        ("c", "continue"), ("n", "next"), ("a", "args"), ("ll", "longlist")]:
        assert parse(alias) == (COMMANDS_BY_NAME[name], []), alias
    command, values = parse("p  x + 1")
    assert command.name == "print" and values == ["x + 1"] and command.run is not COMMANDS_BY_NAME["print"].run
    assert parse("u 3")[0].name == "up" and parse("u 3")[1] == [3]
    assert parse("list 3, 9")[1] == [3, 9] and parse("l 3,9")[1] == [3, 9] and parse("list .")[1] == ["."]
    assert parse("help p") == (COMMANDS_BY_NAME["help"], ["p"])
    for line, message in [("p", "usage: p EXPR"), ("u 1 2", "usage: u [N]"), ("help nosuch", "no command 'nosuch'; `help` lists them"),
                          ("l . 3", "FIRST must be a number, not '.'")]:
        with pytest.raises(CommandError, match=re.escape(message)):
            parse(line)


def test_pdbs_print_pretty_print_and_whatis(prog):
    s = session(prog, "method")
    assert run(s, "p amount") == "25" and run(s, "print amount") == "amount = 25"
    assert run(s, "p self") == "Account(owner='ann', balance=10)"
    assert run(s, "whatis amount") == "<class 'int'>"
    assert run(s, "whatis self") == f"<class '{prog.__name__}.Account'>"
    assert run(s, "whatis self.withdraw") == "Method withdraw"
    assert run(s, "whatis average") == "Function average"
    assert run(s, "whatis Account") == f"Class {prog.__name__}.Account"
    assert run(s, "whatis len") == "<class 'builtin_function_or_method'>"
    wide = "{'owner': self.owner, 'words': [self.owner * 9, self.owner * 9, self.owner * 9], 'amount': amount}"
    assert run(s, f"pp {wide}") == (
        "{'owner': 'ann',\n"
        " 'words': ['annannannannannannannannann',\n"
        "           'annannannannannannannannann',\n"
        "           'annannannannannannannannann'],\n"
        " 'amount': 25}")
    assert run(s, "pp [1, 2]") == "[1, 2]"  # what fits stays on one line


def test_pdbs_up_and_down_stop_at_the_last_frame(prog):
    s = session(prog, "nested")
    assert run(s, "u 50").startswith("frame 0: ")
    assert s.execute("u").output == "error: already at the outermost frame"
    assert run(s, "d 50").startswith("frame 3: ")
    assert s.execute("up 50").output == "error: cannot move 50 frames: frames are 0..3"  # ours stays ours


def test_pdbs_list_goes_on_and_centres_on_its_line(prog):
    s = session(prog, "nested")
    crash_line = L(prog, "return total / count")
    assert run(s, "l") == numbered(prog, crash_line - 5, crash_line + 5, crash_line)
    assert run(s, "l") == numbered(prog, crash_line + 6, crash_line + 16, crash_line)  # goes on
    assert run(s, "l .") == numbered(prog, crash_line - 5, crash_line + 5, crash_line)
    assert run(s, "l 20") == numbered(prog, 15, 25, crash_line)  # 20 in the middle
    assert run(s, "l 20, 22") == numbered(prog, 20, 22, crash_line)
    assert run(s, "l 20, 3") == numbered(prog, 20, 23, crash_line)  # pdb: 3 lines after 20
    assert run(s, "list 20, 22") == numbered(prog, 20, 22, crash_line) and run(s, "list .") == run(s, "l .")
    run(s, "up")  # a listing goes on only in the frame it was made in
    caller = L(prog, "out[name] = average(values)")
    assert run(s, "l") == numbered(prog, caller - 5, caller + 5, caller)
    total = len(open(prog.__file__, encoding="utf-8").read().splitlines())
    run(s, f"l {total - 2}, {total}")
    assert run(s, "l") == "[EOF]"


def test_longlist_shows_the_current_function(prog):
    s = session(prog, "nested")
    crash_line = L(prog, "return total / count")
    assert run(s, "ll") == numbered(prog, L(prog, "def average(values):"), crash_line, crash_line)
    s = session(prog, "long_crash")  # longer than a listing: the lines around its current line
    crash_line = L(prog, "return y0 / y0")
    assert run(s, "ll") == numbered(prog, crash_line - MAX_LINES + 1, crash_line, crash_line)


def test_evaluation_errors_are_one_line(prog):
    s = session(prog, "nested")
    for line, message in [
        ("print missing", "error: NameError: name 'missing' is not defined"),
        ("print values[3]", "error: IndexError: list index out of range"),
        ("print 1 +", "error: refused: not a valid expression: invalid syntax"),
        ("print total = 1", "error: refused: only expressions are allowed (no statements, assignments, imports or del)"),
    ]:
        result = s.execute(line)
        assert_one_line_error(result)
        assert result.output == message


def test_readme_lists_the_generated_help():
    from conftest import REPO
    from autodbg.debugger.commands import aliases_text, help_text

    assert help_text() + "\n\n" + aliases_text() in (REPO / "docs" / "manual.md").read_text()
