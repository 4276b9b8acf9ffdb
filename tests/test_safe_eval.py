"""Safe evaluation in a crashed frame: escape attempts are refused with no side effect, the
allowed subset gives exact results, reprs are guarded, and secrets never leave the debugger."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
import time

import pytest

from autodbg.debugger.session import Session
from autodbg.frames.core import PostMortem
from autodbg.frames.safe_eval import Evaluator, Refused, TimeLimit, safe_repr, time_limit
from autodbg.redact import REDACTED, Redactor, is_secret_name
from autodbg.evidence import build_dossier
from crashkit import crash, load_program, run
from conftest import REPO

VICTIM = '''
import os
import time
from collections import defaultdict

calls = []


def record(value=None):
    calls.append(value)
    return value


class Widget:
    def __init__(self):
        self.size = 3
        self.name = "knob"

    def poke(self):
        calls.append("poke")
        return "poked"

    @property
    def label(self):
        return f"{self.name}:{self.size}"

    def __iter__(self):
        calls.append("__iter__")
        return iter([1, 2])


def numbers():
    calls.append("numbers started")
    yield 1
    yield 2


def crash(target):
    widget = Widget()
    items = [1, 2, 3]
    data = {"a": 1, "b": 2}
    tags = {"x", "y"}
    name = "knob"
    count = 0
    gen = numbers()
    mapped = map(record, items)
    keys = iter(data)
    defaults = defaultdict(list)
    return items[0] / count
'''


@pytest.fixture(scope="module")
def victim(tmp_path_factory):
    return load_program(tmp_path_factory.mktemp("victim"), VICTIM, "victim")


class Crashed:
    """A fresh crash of victim.crash: its frame's names, and a snapshot of its state."""

    def __init__(self, victim, target):
        victim.calls.clear()
        self.victim = victim
        self.target = target
        self.exc = crash(victim.crash, str(target))
        self.session = Session(PostMortem(self.exc))
        self.frame = self.session.debugger.current.frame
        assert self.frame.f_code.co_name == "crash"
        self.names = self.frame.f_locals
        self.evaluator = Evaluator(dict(self.names), self.frame.f_globals)

    def evaluate(self, text):
        return self.evaluator.evaluate(text)

    def assert_untouched(self):
        n = self.names
        assert self.victim.calls == [], "user code ran"
        assert n["items"] == [1, 2, 3]
        assert n["data"] == {"a": 1, "b": 2}
        assert n["tags"] == {"x", "y"}
        assert vars(n["widget"]) == {"size": 3, "name": "knob"}
        assert dict(n["defaults"]) == {}
        assert n["keys"].__length_hint__() == 2, "an iterator was consumed"
        assert inspect.getgeneratorstate(n["gen"]) == "GEN_CREATED", "the generator was advanced"
        assert not self.target.exists(), "a file was created"
        assert "hacked" not in vars(n["widget"])


@pytest.fixture
def crashed(victim, tmp_path):
    return Crashed(victim, tmp_path / "pwned")


ESCAPES = [
    # calls to user code
    "record(1)",
    "widget.poke()",
    "Widget()",
    "Widget.poke(widget)",
    "type(widget).poke(widget)",
    "getattr(widget, 'poke')()",
    "(widget.poke)()",
    # imports, introspection escapes
    "__import__('os')",
    "().__class__.__bases__[0].__subclasses__()",
    "(1).__class__.__subclasses__()",
    "record.__globals__['calls']",
    "record.__code__",
    "widget.__class__.__init__",
    "__builtins__",
    "__builtins__['open']",
    "os.system('touch ' + target)",
    "os.remove(target)",
    "import os",
    # files, code execution, namespaces
    "open(target, 'w')",
    "exec('calls.append(1)')",
    "eval('calls.append(1)')",
    "compile('calls.append(1)', 'x', 'exec')",
    "globals()",
    "locals()",
    "vars()",
    "vars(widget).update(hacked=1)",
    "dir()",
    # attribute writes and dunders
    "setattr(widget, 'hacked', 1)",
    "delattr(widget, 'size')",
    "getattr(widget, '__init__')",
    "getattr(widget, '__setattr__')",
    "getattr(widget, '_' + '_init__')",
    "getattr(record, '__globals__')",
    "hasattr(widget, '__reduce__')",
    "widget.__dict__.__setitem__('size', 0)",
    "widget.__reduce__()",
    "widget.__getattribute__('size')",
    "'{0.__class__}'.format(widget)",
    "str.format('{0.__class__}', widget)",
    # statements
    "widget.size = 4",
    "hacked = 1",
    "widget.size += 1",
    "del widget.size",
    "del items",
    "(hacked := 5)",
    # functions and generators
    "lambda: record(1)",
    "(lambda: record(1))()",
    "f'{record(1)}'",
    "f'{widget.poke()}'",
    "[items.append(1) for _ in range(3)]",
    "(yield)",
    "await widget",
    "[x async for x in gen]",
    "next(gen)",
    "iter(items)",
    "list(gen)",
    "sum(gen)",
    "sorted(gen)",
    "[x for x in gen]",
    "[x for x in widget]",
    # mutating methods of built-in containers
    "items.append(1)",
    "items.copy().append(1)",
    "items.pop()",
    "items.sort()",
    "items.clear()",
    "data.update(hacked=1)",
    "data.pop('a')",
    "data.setdefault('z', 1)",
    "tags.add(1)",
    "tags.discard('x')",
    # console and interpreter
    "print(1)",
    "input()",
    "breakpoint()",
    "help()",
    "exit()",
    "type('X', (), {})",
    "memoryview(b'x')",
    # huge allocations
    "'a' * 10**9",
    "[0] * 10**9",
    "10 ** 10**8",
    "list(range(10**9))",
    "1 << 10**7",
    "(1,) * 10**7",
    "'ab' * 10**6 * 10**6",
    "'a'.ljust(10**12)",
    "'%*d' % (10**12, 1)",
    # unpacking
    "max(*items)",
    "dict(**data)",
    "{**data}",
    "[*items]",
    # reaching user code through a built-in that calls back
    "sorted(items, key=record)",
    "max(items, key=record)",
    "min(items, key=record)",
    "sorted(items, key=items.append)",
    "list(mapped)",
    "tuple(mapped)",
    "','.join(mapped)",
    "list(keys)",
    "list(widget)",
    # a read that writes: defaultdict inserts missing keys
    "defaults['port']",
]


@pytest.mark.parametrize("text", ESCAPES)
def test_escape_attempt_is_refused_without_side_effect(crashed, text):
    with pytest.raises(Refused):
        crashed.evaluate(text)
    crashed.assert_untouched()


def test_there_are_enough_escape_attempts():
    assert len(ESCAPES) >= 50
    assert len(set(ESCAPES)) == len(ESCAPES)


@pytest.mark.parametrize("text, reason", [
    ("record(1)", "calling record() is not allowed"),
    ("__import__('os')", "calling __import__() is not allowed"),
    ("open(target, 'w')", "calling open() is not allowed"),
    ("items.append(1)", "calling .append() on list is not allowed"),
    ("widget.size = 4", "only expressions are allowed"),
    ("lambda: 1", "lambda is not allowed"),
    ("next(gen)", "calling next() is not allowed"),
    ("list(gen)", "consuming an iterator or generator is not allowed"),
    ("'a' * 10**9", "result too large"),
    ("10 ** 10**8", "exponent too large"),
    ("widget.__reduce__()", "attribute '__reduce__' is not allowed"),
    ("__builtins__", "name '__builtins__' is not allowed"),
    ("max(*items)", "* unpacking is not allowed"),
    ("dict(**data)", "** unpacking is not allowed"),
])
def test_refusal_through_the_session_is_one_line(crashed, text, reason):
    for command in ("print", "type", "dir"):
        result = crashed.session.execute(f"{command} {text}")
        assert not result.ok
        assert result.output.startswith("error: refused: ") and "\n" not in result.output, result.output
        assert reason in result.output
    crashed.assert_untouched()


def test_huge_allocations_are_refused_before_allocating(crashed):
    for text in ["'a' * 10**9", "[0] * 10**9", "10 ** 10**8", "list(range(10**9))", "'ab' * 10**6 * 10**6"]:
        started = time.monotonic()
        with pytest.raises(Refused):
            crashed.evaluate(text)
        assert time.monotonic() - started < 0.5, text


def test_time_limit_also_stops_long_running_builtins(tmp_path):
    """Summing lists is quadratic and runs inside one C call, where the SIGALRM-based time limit
    cannot interrupt it; it must still end promptly (refused). Run in a child process so a hang
    cannot stall the suite."""
    script = textwrap.dedent("""
        import time
        from autodbg.frames.safe_eval import Evaluator, Refused
        started = time.monotonic()
        try:
            Evaluator({}, {}).evaluate("sum([[0] * 1000] * 1500, [])")
            print("allowed")
        except Refused as exc:
            print("refused")
        print(round(time.monotonic() - started, 2))
    """)
    out = run_bounded(script, "evaluating sum([[0] * 1000] * 1500, []) (limit is 1 s)")
    verdict, seconds = out.split()
    assert verdict == "refused"
    assert float(seconds) < 3, f"took {seconds} s"


# --- the allowed subset -----------------------------------------------------------------------------


ALLOWED = [
    ("count", 0),
    ("name", "knob"),
    ("widget.size", 3),
    ("widget.label", "knob:3"),
    ("data['a']", 1),
    ("data", {"a": 1, "b": 2}),
    ("items[1:]", [2, 3]),
    ("items[::-1]", [3, 2, 1]),
    ("items[-1]", 3),
    ("name[1:3]", "no"),
    ("(1, 'a', None, 2.5, True, b'x')", (1, "a", None, 2.5, True, b"x")),
    ("[1, [2, {3: 4}]]", [1, [2, {3: 4}]]),
    ("{1, 2} | {3}", {1, 2, 3}),
    ("1 < widget.size <= 3 < 4", True),
    ("1 < 2 > 3", False),
    ("0 <= count < len(items)", True),
    ("2 ** 10 + 7 // 2 - 7 % 4 * 3", 1018),
    ("-widget.size", -3),
    ("~5", -6),
    ("10 / 4", 2.5),
    ("not items or count", 0),
    ("items and name", "knob"),
    ("count or None", None),
    ("'big' if widget.size > 2 else 'small'", "big"),
    ("'no' in name", True),
    ("4 not in items", True),
    ("widget is widget", True),
    ("len(items)", 3),
    ("len(data)", 2),
    ("sorted(tags)", ["x", "y"]),
    ("sorted(items, reverse=True)", [3, 2, 1]),
    ("isinstance(widget, Widget)", True),
    ("isinstance(count, (int, float))", True),
    ("sum(items)", 6),
    ("max(items)", 3),
    ("min(data.values())", 1),
    ("abs(-3)", 3),
    ("round(2.567, 2)", 2.57),
    ("str(12) + 'x'", "12x"),
    ("int('7') * 2", 14),
    ("name.upper()", "KNOB"),
    ("name.startswith('kn')", True),
    ("','.join(['a', 'b'])", "a,b"),
    ("'a-b'.split('-')", ["a", "b"]),
    ("data.get('zz', 5)", 5),
    ("data.get('a')", 1),
    ("list(data.keys())", ["a", "b"]),
    ("list(data.items())", [("a", 1), ("b", 2)]),
    ("items.count(2)", 1),
    ("items.index(3)", 2),
    ("(255).bit_length()", 8),
    ("hasattr(widget, 'size')", True),
    ("getattr(widget, 'size')", 3),
    ("getattr(widget, 'missing', 0)", 0),
    ("[x * 2 for x in items if x > 1]", [4, 6]),
    ("{k: v * 10 for k, v in data.items()}", {"a": 10, "b": 20}),
    ("{x % 2 for x in items}", {0, 1}),
    ("list(enumerate('ab'))", [(0, "a"), (1, "b")]),
    ("list(x + 1 for x in items)", [2, 3, 4]),
    ("[y for x in [[1, 2], [3]] for y in x]", [1, 2, 3]),
    ("list(zip(items, 'abc'))", [(1, "a"), (2, "b"), (3, "c")]),
    ("f'{name}-{count}'", "knob-0"),
    ("f'{name!r}'", "'knob'"),
    ("f'{widget.size + 1}'", "4"),
    ("widget.__class__.__name__", "Widget"),
    ("type(widget).__name__", "Widget"),
    ("type(items)", list),
    ("widget.__dict__", {"size": 3, "name": "knob"}),
    ("vars(widget)", {"size": 3, "name": "knob"}),
    ("'a' * 10", "aaaaaaaaaa"),
    ("len('a' * 10**6)", 10**6),
    ("__name__", None),  # checked below: the frame's module name
]


@pytest.mark.parametrize("text, expected", ALLOWED)
def test_allowed_expression_gives_exact_result(crashed, text, expected):
    value = crashed.evaluate(text)
    if text == "__name__":
        expected = crashed.victim.__name__
    assert value == expected and type(value) is type(expected)
    crashed.assert_untouched()


def test_allowed_expressions_through_the_session(crashed):
    s = crashed.session
    assert run(s, "print items[1:]") == "items[1:] = [2, 3]"
    assert run(s, "print data.get('zz', 5)") == "data.get('zz', 5) = 5"
    assert run(s, "print [x * 2 for x in items]") == "[x * 2 for x in items] = [2, 4, 6]"
    assert run(s, "print f'{name}!'") == "f'{name}!' = 'knob!'"
    assert run(s, "type widget.label") == "type(widget.label) = str"
    assert run(s, "dir widget") == "dir(widget): label, name, poke, size"
    assert run(s, "print gen").startswith("gen = <generator object numbers")
    crashed.assert_untouched()


def test_evaluator_errors_are_the_real_exceptions(crashed):
    with pytest.raises(KeyError):
        crashed.evaluate("data['zz']")
    with pytest.raises(NameError):
        crashed.evaluate("nothing_here")
    with pytest.raises(ZeroDivisionError):
        crashed.evaluate("1 / count")
    with pytest.raises(AttributeError):
        crashed.evaluate("widget.missing")
    crashed.assert_untouched()


# --- guarded reprs ------------------------------------------------------------------------------------


REPRS = '''
import time


class BadRepr:
    def __repr__(self):
        raise RuntimeError("repr exploded")


class ExitRepr:
    def __repr__(self):
        raise SystemExit(3)


class SlowRepr:
    def __repr__(self):
        time.sleep(60)
        return "never"


class HugeRepr:
    def __repr__(self):
        return "x" * 100_000_000


class NotAString:
    def __repr__(self):
        return 42


class Looping:
    @property
    def prop(self):
        while True:
            pass


def crash():
    bad = BadRepr()
    leaving = ExitRepr()
    slow = SlowRepr()
    huge = HugeRepr()
    odd = NotAString()
    loop = Looping()
    raise RuntimeError("reprs")
'''


@pytest.fixture(scope="module")
def reprs(tmp_path_factory):
    module = load_program(tmp_path_factory.mktemp("reprs"), REPRS, "reprs")
    return Session(PostMortem(crash(module.crash)))


def timed(fn, *args):
    started = time.monotonic()
    value = fn(*args)
    return value, time.monotonic() - started


def test_repr_that_raises(reprs):
    assert run(reprs, "print bad") == "bad = <repr failed: RuntimeError: repr exploded>"
    assert run(reprs, "print leaving") == "leaving = <repr failed: SystemExit: 3>"
    assert run(reprs, "print odd").startswith("odd = <repr failed: TypeError: __repr__ returned non-string")
    assert safe_repr(reprs.debugger.current.frame.f_locals["bad"]) == "<repr failed: RuntimeError: repr exploded>"


@pytest.mark.slow
def test_repr_that_sleeps_returns_promptly(reprs):
    out, seconds = timed(run, reprs, "print slow")
    assert out == "slow = <repr timed out after 1s>"
    assert seconds < 5
    value, seconds = timed(safe_repr, reprs.debugger.current.frame.f_locals["slow"])
    assert value == "<repr timed out after 1s>" and seconds < 5


@pytest.mark.slow
def test_locals_with_a_sleeping_repr_is_still_complete(reprs):
    out, seconds = timed(run, reprs, "locals")
    assert seconds < 5
    lines = out.splitlines()
    assert "slow = <repr timed out after 1s>" in lines
    assert "bad = <repr failed: RuntimeError: repr exploded>" in lines
    assert len(lines) == 6


def test_huge_repr_is_cut_promptly(reprs):
    out, seconds = timed(run, reprs, "print huge")
    assert seconds < 5
    assert out.startswith("huge = xxxx")
    assert len(out) < 400 and "...[cut" in out


def test_property_that_loops_forever_is_stopped(reprs):
    result, seconds = timed(reprs.execute, "print loop.prop")
    assert seconds < 5
    assert not result.ok
    assert result.output == "error: refused: evaluation took longer than 1s"


def test_type_does_not_run_the_repr(reprs):
    out, seconds = timed(run, reprs, "type slow")
    assert out.endswith("SlowRepr") and seconds < 0.5


def test_time_limit_raises_timelimit_and_restores_the_alarm():
    import signal
    before = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(TimeLimit):
        with time_limit(0.2):
            while True:
                pass
    assert time.monotonic() - started < 2
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.slow
def test_repr_with_a_bare_except_retry_loop_is_still_stopped(tmp_path):
    """A sloppy `except:` retry loop swallows the one TimeLimit the alarm raises; the repr must
    still end promptly. Run in a child so a hang cannot stall the suite."""
    script = textwrap.dedent("""
        import time
        from autodbg.frames.safe_eval import safe_repr

        class Stubborn:
            def __repr__(self):
                while True:
                    try:
                        time.sleep(60)
                    except:  # noqa: E722
                        pass

        started = time.monotonic()
        print(safe_repr(Stubborn()))
        print(round(time.monotonic() - started, 2))
    """)
    out = run_bounded(script, "safe_repr of a repr with a bare `except:` retry loop")
    shown, seconds = out.splitlines()
    assert shown.startswith("<repr ") and float(seconds) < 5


# --- redaction -----------------------------------------------------------------------------------------


SECRETS = '''
API_TOKEN = "gl0bal-t0ken-value-9999"


class Client:
    def __init__(self):
        self.token = "attr-token-value-4444"
        self.host = "db.example"


def connect():
    password = "literal-in-source-7777"
    return password


def connect_annotated():
    token: str = "annotated-literal-8888"
    return token


def use(key):
    api_token = "tok-value-1111"
    password = "pw-value-2222"
    db_passwd = "dbpw-value-3333"
    secret_key = "sk-value-5555"
    auth_header = "Bearer hdr-value-6666"
    client = Client()
    config = {"password": "dict-pw-value-0000", "host": "db.example", "port": None}
    settings = {"db": {"password": "nested-pw-value-1212"}}
    return config[key] + api_token
'''

SECRET_VALUES = ["tok-value-1111", "pw-value-2222", "dbpw-value-3333", "sk-value-5555", "hdr-value-6666",
                 "attr-token-value-4444", "dict-pw-value-0000", "nested-pw-value-1212"]


@pytest.fixture(scope="module")
def secrets_module(tmp_path_factory):
    return load_program(tmp_path_factory.mktemp("secrets"), SECRETS, "secrets_prog")


@pytest.fixture
def secret_session(secrets_module):
    return Session(PostMortem(crash(secrets_module.use, "port")))


def assert_no_secret(text, values=SECRET_VALUES):
    for value in values:
        assert value not in text, f"{value!r} leaked in:\n{text}"


SECRET_COMMANDS = [
    "locals", "args", "where", "list", "list 1 40", "exceptions",
    "print api_token", "print password", "print db_passwd", "print secret_key", "print auth_header",
    "print client", "print client.token", "print config", "print config['password']",
    "print config.get('password')", "print settings", "print settings['db']",
    "print [api_token, password]", "print (api_token,)", "print {'t': api_token}",
    "print api_token + ''", "print f'{password}'", "print password.strip()", "print client.__dict__",
    "print vars(client)", "print config.items()", "print list(config.values())", "dir client", "type api_token", "source connect", "source Client", "source use",
    "print key",
]


@pytest.mark.parametrize("line", SECRET_COMMANDS)
def test_secret_values_never_appear_in_command_output(secret_session, line):
    result = secret_session.execute(line)
    assert_no_secret(result.output)


def test_secret_names_are_shown_redacted(secret_session):
    s = secret_session
    for name, size in (("api_token", 14), ("password", 13), ("db_passwd", 15), ("secret_key", 13), ("auth_header", 21)):
        assert run(s, f"print {name}") == f"{name} = <redacted str, {size} chars>"
        assert f"{name} = <redacted str, {size} chars>" in run(s, "locals").splitlines()
    assert run(s, "print client.token") == "client.token = <redacted str, 21 chars>"
    assert run(s, "print client") == "client = Client(token=<redacted str, 21 chars>, host='db.example')"
    assert run(s, "print config['password']") == "config['password'] = <redacted str, 18 chars>"
    assert run(s, "print config") == "config = {'password': <redacted str, 18 chars>, 'host': 'db.example', 'port': None}"
    # Source with a literal secret assignment shows the assignment, not the value.
    assert f"password = {REDACTED}" in run(s, "source connect")


def test_a_plain_key_is_not_redacted(secret_session, secrets_module):
    s = secret_session
    assert not is_secret_name("key") and not is_secret_name("keys")
    assert run(s, "print key") == "key = 'port'"
    assert "key = 'port'" in run(s, "locals").splitlines()
    assert run(s, "print config[key]") == "config[key] = None"
    dossier = build_dossier(s).to_json()
    values = {v["expr"]: v["value"] for v in dossier["frames"][0]["line_values"]}
    assert values["key"] == "'port'"
    assert values["config[key]"] == "None"


def test_secret_values_never_appear_in_the_dossier(secret_session):
    text = json.dumps(build_dossier(secret_session).to_json())
    assert_no_secret(text)
    assert REDACTED in text


def test_secret_in_an_exception_message_is_scrubbed(secrets_module, tmp_path):
    module = load_program(tmp_path, '''
        def login(user):
            password = "msg-pw-value-3131"
            raise PermissionError(f"login failed for {user} with {password}")
    ''', "login_prog")
    s = Session(PostMortem(crash(module.login, "ann")))
    assert_no_secret(run(s, "exceptions"), ["msg-pw-value-3131"])
    assert_no_secret(json.dumps(build_dossier(s).to_json()), ["msg-pw-value-3131"])
    assert "login failed for ann" in run(s, "exceptions")


@pytest.mark.parametrize("name", ["api_token", "password", "db_passwd", "secret_key", "auth_header", "token",
                                  "Authorization", "PASSWORD", "session_id", "private_key", "api_key", "cookie"])
def test_is_secret_name(name):
    assert is_secret_name(name)


def test_redactor_learns_and_scrubs():
    r = Redactor()
    r.learn("password", "hunter22")
    r.learn("count", "plain-value-33")  # not a secret name
    r.learn("token", "abc")  # too short to scrub everywhere
    assert r.scrub("x hunter22 y plain-value-33 abc") == f"x {REDACTED} y plain-value-33 abc"
    assert r.scrub('connect(password="zzz", user="u")') == f'connect(password={REDACTED}, user="u")'


# The cases below go beyond the names listed in the brief: a secret reached through a method
# call, a module-level constant, a two-level container, or an annotated assignment.

def test_secret_module_constant_does_not_leak(secrets_module):
    s = Session(PostMortem(crash(secrets_module.use, "port")))
    assert run(s, "print API_TOKEN") == "API_TOKEN = <redacted str, 23 chars>"
    assert_no_secret(s.execute("print API_TOKEN.strip()").output, ["gl0bal-t0ken-value-9999"])


def test_nested_secret_does_not_leak_through_values(secret_session):
    assert_no_secret(secret_session.execute("print list(settings['db'].values())").output)


def test_secret_does_not_leak_through_a_string_method(secret_session):
    out = secret_session.execute("print password.upper()").output
    assert "PW-VALUE-2222" not in out, out
    out = secret_session.execute("print auth_header.split()[1]").output
    assert "hdr-value-6666" not in out, out


def test_annotated_secret_literal_is_redacted_in_source(secret_session):
    assert_no_secret(run(secret_session, "source connect_annotated"), ["annotated-literal-8888"])


def run_bounded(script: str, what: str) -> str:
    """Run SCRIPT in a child Python (a hang there cannot hang the test run); its stdout."""
    try:
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=6,
                              cwd=REPO).stdout
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} was still running after 6 s")
