"""autodbg.redact and autodbg.textsafe: each name rule, token shape and value rule, both ways
(redacted / kept), pieces and reversal, idempotence, type and length, the user's additions."""

from __future__ import annotations

import base64
import codecs
import collections
import dataclasses
import random
import string
import urllib.parse

import pytest

from autodbg.errors import AutodbgError
from autodbg.investigate.prompt import SYSTEM_PROMPT
from autodbg.redact import MIN_PIECE, REDACTED, Redactor, is_secret_name, parse_additions, redacted
from autodbg.settings import load_settings
from autodbg.textsafe import terminal_safe, terminal_safe_tree


def token(n: int = 24, seed: int = 0) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


# --- names -------------------------------------------------------------------------------------

SECRET_NAMES = """
    password passwd passphrase passcode pwd pw pass pass_ PASS db_pass DB_PASSWORD dbPassword userpass
    passwords password2 PASSWORD_2 pw1 secret secrets client_secret clientSecret SECRET_KEY token api_token
    apiToken authtoken csrftoken apitoken API_TOKEN auth_tokens access_token refresh_token id_token
    auth auth_header Authorization bearer cookie cookies session_id sessionid credential credentials
    cred creds apikey api_key APIKey api_keys x_api_key ssh_key privkey priv_key private_key
    secret_access_key aws_secret_access_key dsn database_url DATABASE_URL db_url redis_url webhook_url
    conn_str connection_string connstring jwt jwt_token signature hmac hmac_key otp otp_code totp pin
    pin_code salt license_key licence_key signing_key encryption_key master_key cvv
""".split()

VISIBLE_NAMES = """
    key keys dict_key cache_key tokens token_count num_tokens max_tokens input_tokens author authority
    passed compass bypass passenger passport pinned pins spin monkey keyboard hotkey tokenizer
    password_file password_length token_type secret_name url uri path string salty signed
    test_x[authorization=abc]
""".split() + ["password with spaces", "a.b.password.c" + "x" * 64]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", VISIBLE_NAMES)
def test_names_kept_visible(name):
    assert not is_secret_name(name)


def test_user_words_extend_the_names():
    words, patterns = parse_additions(["tenant", "re:ACME-[0-9]{6}"])
    assert is_secret_name("tenant_id", words) and is_secret_name("TENANT", words)
    assert not is_secret_name("tenant_id") and not is_secret_name("tenants_count", words)
    assert [p.pattern for p in patterns] == ["ACME-[0-9]{6}"]


@pytest.mark.parametrize("entry, message", [
    ("re:(", "redact pattern 're:(' is not a valid regular expression: missing ), unterminated subpattern at position 0"),
    ("two words", "redact name 'two words' is not a name (write `re:PATTERN` for a pattern)"),
])
def test_bad_user_additions_are_one_line_errors(entry, message):
    with pytest.raises(AutodbgError) as caught:
        Redactor([entry])
    assert str(caught.value) == message


def test_autodbg_redact_setting():
    assert load_settings({}).redact == ()
    assert load_settings({"AUTODBG_REDACT": " tenant , re:ACME-\\d{3,5},re:a\\x2cb"}).redact == (
        "tenant", "re:ACME-\\d{3,5}", "re:a\\x2cb")
    bad = load_settings({"AUTODBG_REDACT": "tenant,re:["})  # left out, the rest kept
    assert bad.redact == ("tenant",)
    assert bad.warnings[0].startswith("AUTODBG_REDACT (the environment): redact pattern 're:[' is not")


# --- type and length ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, shown", [
    ("x" * 40, "<redacted str, 40 chars>"), ("", "<redacted str, 0 chars>"), (b"abc", "<redacted bytes, 3 bytes>"),
    (bytearray(5), "<redacted bytearray, 5 bytes>"), (("a", "b"), "<redacted tuple of 2>"),
    ({"k": 1}, "<redacted dict of 1>"), (1234, "<redacted int>"), (None, "None"), (False, "False"),
    (collections.OrderedDict(), "<redacted OrderedDict>"),
])
def test_redacted_keeps_type_and_size(value, shown):
    assert redacted(value) == shown


# --- shapes ------------------------------------------------------------------------------------

GH = "ghp_" + token(36, 1)
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
PEM_BODY = "\n".join(token(64, i) for i in range(5))

SHAPES = [
    # (text, the secret that must go, what must stay)
    ("postgres://app:Pg5ecretXyz@db.internal:5432/prod", "Pg5ecretXyz", "postgres://app:<redacted>@db.internal:5432/prod"),
    ("redis://:R3disPassw0rd@cache", "R3disPassw0rd", "redis://:<redacted>@cache"),
    ("Authorization: Bearer " + token(30, 2), token(30, 2), "Authorization: Bearer <redacted>"),
    ("{'Authorization': 'Basic YWRtaW46aHVudGVyMg=='}", "YWRtaW46aHVudGVyMg==", "{'Authorization': 'Basic <redacted>'}"),
    ("authorization=tok3nValue9", "tok3nValue9", "authorization=<redacted>"),
    ("headers: Bearer " + token(20, 3) + " sent", token(20, 3), "Bearer <redacted> sent"),
    ("jwt was " + JWT, JWT, "jwt was <redacted>"),
    ("['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'x']", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "['<redacted>', 'x']"),
    ("key id AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE", "key id <redacted> here"),
    ("aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws secret <redacted>"),
    (f"push with {GH}", GH, "push with <redacted>"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "<redacted>"),
    ("glpat-" + token(20, 4), token(20, 4), "<redacted>"),
    ("xoxb-1234567890-" + token(24, 5), token(24, 5), "<redacted>"),
    ("https://hooks.slack.com/services/T00000000/B00000000/" + token(24, 6), token(24, 6),
     "https://hooks.slack.com/services/<redacted>"),
    ("sk_live_" + token(24, 7), token(24, 7), "<redacted>"),
    ("rk_live_" + token(24, 8), token(24, 8), "<redacted>"),
    ("sk_test_" + token(24, 9), token(24, 9), "<redacted>"),
    ("key=sk-" + token(48, 10), token(48, 10), "key=<redacted>"),
    ("sk-proj-" + token(40, 11), token(40, 11), "<redacted>"),
    ("npm_" + token(36, 12), token(36, 12), "<redacted>"),
    ("AIza" + token(35, 13), token(35, 13), "<redacted>"),
    (f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----\nafter",
     PEM_BODY[10:40], "-----BEGIN OPENSSH PRIVATE KEY-----<redacted>-----END OPENSSH PRIVATE KEY-----\nafter"),
    (repr(f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}")[:200] + "...[3000 long]", PEM_BODY[10:40],
     "'-----BEGIN RSA PRIVATE KEY-----<redacted>...[3000 long]"),  # cut before its END line
    ("Server=db;User ID=sa;Password=Sq1Pa55word;Encrypt=yes", "Sq1Pa55word", "Server=db;User ID=sa;Password=<redacted>;Encrypt=yes"),
    ("host=db pwd=MyPwdVal99 port=5432", "MyPwdVal99", "host=db pwd=<redacted> port=5432"),
    ("Config(password='ab\\'-quote\"trick', host='h')", "quote", "Config(password=<redacted>, host='h')"),
    ('Config(password="it\'s \\"quoted\\" 9x", port=1)', "quoted", "Config(password=<redacted>, port=1)"),
    ('{"api_key": "k3yValue", "user": "ann"}', "k3yValue", '{"api_key": <redacted>, "user": "ann"}'),
    ("token: str = 'annotated-lit'", "annotated-lit", "token: str = <redacted>"),
    ("password: hunter2", "hunter2", "password: <redacted>"),
    ("--password=hunter2 --token=abc", "hunter2", "--password=<redacted> --token=<redacted>"),
]


@pytest.mark.parametrize("text, secret, kept", SHAPES)
def test_token_shapes_and_assignments(text, secret, kept):
    scrubbed = Redactor().scrub(text)
    assert secret not in scrubbed
    assert kept in scrubbed, scrubbed


KEPT = [
    "KeyError: 'password'",  # the name of a missing key is evidence
    "password = get_password()", "password = os.environ['DB_PASSWORD']", "def login(user, password: str) -> None:",
    "def connect(token: Optional[str] = None):", "if password is None:", "password = None", "token_count = 42",
    "self._password = password", "auth: Bearer", "Authorization: Bearer",
    "commit 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",  # a hex digest is not an AWS secret key
    "id 123e4567-e89b-12d3-a456-426614174000", "/home/ann/project/app.py:12", "tokens = lex(source)",
    "key = 'port'", "basic operations cost 3 ms", "the token expired",
]


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_is_kept(text):
    assert Redactor().scrub(text) == text


def test_user_patterns_are_scrubbed_and_learned():
    r = Redactor(["tenant", "re:ACME-[0-9]{6}"])
    assert r.scrub("tenant=acme42 order ACME-123456 ok") == "tenant=<redacted> order <redacted> ok"
    r.learn("note", "ticket for ACME-987654")
    assert r.scrub("reversed: 456789-EMCA") == "reversed: <redacted>"


def test_the_system_prompt_is_unchanged():
    assert Redactor().scrub(SYSTEM_PROMPT) == SYSTEM_PROMPT  # its evaluated state is cached on disk


# --- learned values ----------------------------------------------------------------------------

SECRET = token(20, 20)


@pytest.fixture
def learned() -> Redactor:
    r = Redactor()
    r.learn("pw", SECRET)
    return r


@pytest.mark.parametrize("shown", [
    SECRET, SECRET[::-1], SECRET.upper(), SECRET.swapcase(), SECRET[3:3 + MIN_PIECE], SECRET[-MIN_PIECE:],
    str(list(SECRET)), "-".join(SECRET), " ".join(SECRET[::-1]), SECRET.encode().hex(), repr(SECRET.encode()),
    f"prefix{SECRET[2:12]}suffix", base64.b64encode(SECRET.encode()).decode(),
    base64.b64encode(b"admin:" + SECRET.encode()).decode()[8:], base64.urlsafe_b64encode(b"x" + SECRET.encode()).decode(),
    codecs.encode(SECRET, "rot13"), urllib.parse.quote(SECRET[:5] + "!@#" + SECRET[5:], safe=""),
])
def test_a_learned_value_is_scrubbed_in_any_form(learned, shown):
    text = f"before {shown} after"
    scrubbed = learned.scrub(text)
    assert scrubbed.startswith("before ") and scrubbed.endswith(" after") and REDACTED in scrubbed
    assert not any(SECRET[i:i + MIN_PIECE].lower() in scrubbed.lower().replace(" ", "")
                   for i in range(len(SECRET) - MIN_PIECE + 1))


def test_a_shorter_piece_is_kept(learned):
    piece = SECRET[4:4 + MIN_PIECE - 1]
    assert learned.scrub(f"x {piece} y") == f"x {piece} y"


def test_values_of_secret_names_are_learned_inside_containers_and_objects():
    class Config:
        def __init__(self):
            self.db_pass = token(12, 30)
            self.host = "db.internal"
            self.extra = {"nested": {"api_key": token(12, 31)}, "credentials": [("u", token(12, 32))]}

    @dataclasses.dataclass(slots=True)
    class Slotted:
        host: str
        api_key: str

    Pair = collections.namedtuple("Pair", "user password")
    r = Redactor()
    r.learn("cfg", Config())
    r.learn("pair", Pair("ann", token(12, 33)))
    r.learn("slotted", Slotted("db.internal", token(12, 39)))
    r.learn("creds", ("admin", token(12, 34)))
    r.learn("passwords", [token(12, 35), token(12, 36)])
    r.learn("secret_blob", b"\x9f\x01" + token(12, 37).encode())
    r.learn("exc", ValueError("call failed", f"with {GH}"))
    r.learn("count", token(12, 38))  # neither a secret name nor a token shape
    text = " ".join(token(12, s) for s in range(30, 40)) + f" {GH} db.internal ann admin"
    assert r.scrub(text) == " ".join([REDACTED] * 8) + f" {token(12, 38)} {REDACTED} {REDACTED} db.internal ann admin"


def test_learning_runs_no_program_code():
    class Trap:
        @property
        def __dict__(self):
            raise AssertionError("ran a property")

    class TrapDict(dict):
        def items(self):
            raise AssertionError("ran items()")

    class TrapList(list):
        def __iter__(self):
            raise AssertionError("ran __iter__")

    r = Redactor()
    r.learn("password", Trap())
    r.learn("secrets", TrapDict(a=token(12, 40)))
    r.learn("secrets", TrapList([token(12, 41)]))
    assert r.scrub(token(12, 40) + " " + token(12, 41)) == f"{REDACTED} {REDACTED}"


def test_learning_is_bounded():
    r = Redactor()
    deep = {"password": [[[[["too-deep-" + token(12, 50)]]]]]}
    r.learn("config", deep)
    r.learn("secrets", [token(12, s) for s in range(1000)])
    assert r.scrub("too-deep-" + token(12, 50)) != REDACTED  # below MAX_DEPTH: not walked
    assert len(r.values) <= 500


def test_environment_and_argv_are_learned():
    r = Redactor()
    env = {"MY_API_TOKEN": token(16, 60), "DATABASE_URL": f"postgres://u:{token(12, 61)}@db/x",
           "HOME": "/root", "SSH_AUTH_SOCK": "/", "EDITOR": token(16, 62)}
    r.learn_process(env, ["prog.py", "--password", token(12, 63), f"--api-token={token(12, 64)}", "-p", token(12, 65),
                          f"--note={GH}"])
    for secret in (token(16, 60), token(12, 61), token(12, 63), token(12, 64), GH):
        assert r.scrub(f"[{secret[::-1]}]") == f"[{REDACTED}]"
    assert r.scrub(f"{token(16, 62)} / -p {token(12, 65)}") == f"{token(16, 62)} / -p {token(12, 65)}"


# --- the boundary: idempotent, never raises ----------------------------------------------------

def test_scrubbing_twice_changes_nothing(learned):
    rng = random.Random(7)
    pieces = [t for t, _, _ in SHAPES] + KEPT + [SECRET, SECRET[::-1], "password=", "<redacted>", "'", "\n", "=", ":"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) + rng.choice(["", " ", "=", ": ", "'"]) for _ in range(rng.randint(1, 6)))
        once = learned.scrub(text)
        assert learned.scrub(once) == once, text


def test_scrub_never_raises():
    class Hostile:
        def __str__(self):
            raise RuntimeError("no")

    assert Redactor().scrub(Hostile()) == "<redacted: text could not be checked (RuntimeError)>"
    assert Redactor().scrub(12) == "12"


def test_scrub_record_scrubs_values_only():
    from autodbg.records import CrashSite, FixTrial, TrialResult
    r = Redactor()
    r.learn("password", "MyFunction2024passes!")  # holds a field name and a vocabulary word
    site = r.scrub_record(CrashSite(file="MyFunction2024passes!.py", line=3, function="function"))
    assert site.line == 3 and REDACTED in site.file and "unction2" not in site.file + site.function
    trial = r.scrub_record(FixTrial(TrialResult.PASSES, "ran MyFunction2024passes!"))
    assert trial.result is TrialResult.PASSES and trial.detail == f"ran {REDACTED}!"


# --- terminal-safe text ------------------------------------------------------------------------

@pytest.mark.parametrize("text, shown", [
    ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"), ("a\x1b[8mhidden", "a\\x1b[8mhidden"), ("over\rwrite", "over\\x0dwrite"),
    ("back\x08", "back\\x08"), ("\x9b31m", "\\x9b31m"), ("del\x7f", "del\\x7f"), ("nul\x00", "nul\\x00"),
    ("abc\u202edcba", "abc\\u202edcba"), ("\u2066iso\u2069", "\\u2066iso\\u2069"),
    ("two\nlines\tand tab", "two\nlines\tand tab"), ("plain ünïcode ✓", "plain ünïcode ✓"),
])
def test_terminal_safe(text, shown):
    assert terminal_safe(text) == shown
    assert terminal_safe(shown) == shown


def test_terminal_safe_tree():
    assert terminal_safe_tree({"k\x1b": ["\x07", 3, None]}) == {"k\\x1b": ["\\x07", 3, None]}


def test_learning_stops_at_its_budget_per_crash():
    r = Redactor()
    many = {f"k{i}": [f"{i}-" + token(20, i)] for i in range(150)}  # ~300 values per variable
    for n in range(100):
        r.learn(f"big{n}", many)
    r.learn("passwords", [token(12, 98)])  # past the budget: not walked
    r.learn("password", token(12, 99))  # a secret-named string is still learned, budget or not
    assert r.scrub(token(12, 98)) == token(12, 98) and r.scrub(token(12, 99)) == REDACTED


def test_an_object_under_a_secret_name_gives_only_its_secret_attributes():
    class Hook:
        def __init__(self, name):
            self.name = name
            self.token = token(12, 70)

    r = Redactor()
    r.learn("registry", {"pytest_assertion_pass": Hook("pytest_assertion_pass"), "auth": [token(12, 71)]})
    assert r.scrub(f"pytest_assertion_pass {token(12, 70)} {token(12, 71)}") == f"pytest_assertion_pass {REDACTED} {REDACTED}"


def test_redaction_markers_are_never_learned():
    r = Redactor()
    r.learn("password", f"{REDACTED} and <redacted str, 12 chars>")
    r.learn("log", "Authorization: Bearer <redacted>]")
    text = "Redactor in autodbg.redact, <redacted str, 3 chars>"
    assert r.values == set() and r.scrub(text) == text


# --- the program's own names -------------------------------------------------------------------

def print_results(results):  # named like the password below: the program's vocabulary
    return results


def test_a_piece_of_a_secret_inside_the_programs_own_names_is_kept():
    r = Redactor()
    r.learn("password", "print_results99")
    r.learn("api_key", "secret_crash_key")
    r.learn_names(print_results.__code__)
    r.absorb_names(["secret_crash", "py"])  # the words of a file's path, as a probe sends them
    assert r.scrub("def print_results(results):") == "def print_results(results):"
    assert r.scrub("File secret_crash.py, line 3") == "File secret_crash.py, line 3"
    # The secret itself, a word holding it, or a piece inside words the code does not use: redacted.
    assert r.scrub("login(print_results99)") == f"login({REDACTED})"
    assert r.scrub("xprint_resultsx") == f"x{REDACTED}x" and r.scrub("tresul") == REDACTED
    assert r.scrub("key secret_crash_key") == f"key {REDACTED}"


def test_a_name_that_is_a_secret_as_a_whole_is_still_redacted():
    r = Redactor()
    r.learn("password", "print_results")
    r.absorb_names(["print_results"])
    assert r.scrub("def print_results(x):") == f"def {REDACTED}(x):"


def test_the_words_of_a_program_files_path_are_kept_even_where_one_is_a_secret():
    r = Redactor()
    r.learn("token", {"type": "number", "start": 0})  # a lexer's token, learned as a secret
    path = "/tmp/bench/jmespath-number-types/jmespath/functions.py"
    assert r.scrub(path) == f"/tmp/bench/jmespath-{REDACTED}-types/jmespath/functions.py"
    r.absorb_names([], [path])
    assert r.scrub(path) == path and r.scrub("received: number") == "received: number"
    assert r.scrub("numbers") == f"{REDACTED}s"  # a word that is no word of the path holds the secret


def test_secrets_used_as_dict_keys_are_learned():
    r = Redactor()
    r.learn("sessions_by_token", {token(20, 80): "alice", "prod": "x", "user name": "y"})
    r.learn("cache", {"sk_live_" + token(24, 81): 1, "a plain key of a cache": 2})  # shaped like a token
    r.learn("settings", {token(12, 82): 3})  # neither: an ordinary key
    text = f"{token(20, 80)} {token(24, 81)} {token(12, 82)} prod user name a plain key of a cache"
    assert r.scrub(text) == f"{REDACTED} {REDACTED} {token(12, 82)} prod user name a plain key of a cache"
