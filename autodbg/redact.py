"""Redaction: nothing that looks like a secret leaves autodbg, whether found by name, by shape or by value.

`Redactor.scrub(text)` is applied where text leaves autodbg (terminal, JSON report, prompt), after
any cutting. It removes, in this order:
- well-known token shapes: private keys (also a block cut before its END line), URL credentials,
  Authorization/Bearer/Basic credentials, JWTs, AWS, GitHub, GitLab, Slack, Stripe, OpenAI-style,
  npm, PyPI, SendGrid, Google, Square, Telegram and Azure tokens; the patterns
  follow detect-secrets' plugins (Yelp/detect-secrets, Apache-2.0), adapted to find the
  secret inside reprs and cut text;
- the user's own patterns (`re:...` entries of AUTODBG_REDACT or `[tool.autodbg] redact`);
- `name=value`, `"name": "value"`, `name: value` where the name looks secret (`is_secret_name`);
- every value the redactor learned (bound to a secret-looking name in a crashed frame, inside
  containers and objects; shaped like a token anywhere; secret-named environment variables;
  secret-looking argv options), also a piece of MIN_PIECE characters of one, reversed, in
  another case, spelled out with separators (`['h', 'u', ...]`) or hex-encoded.

A value shown by name keeps its type and size (`<redacted str, 40 chars>`); a piece of free text
becomes `<redacted>`. Stdlib only and cheap: it runs at every crash (bench/redaction.py).

Not detect-secrets itself: importing it takes ~130 ms and scanning a 5 KB dossier ~40 ms (here,
2 cores), it needs requests and PyYAML, and its entropy and keyword plugins flag most of a
dossier; its token patterns are what is worth having, and they are below.
"""

from __future__ import annotations

import base64
import bisect
import codecs
import functools
import os
import re
import subprocess
import sys
import types
import urllib.parse
from collections.abc import Iterable, Sequence
from itertools import accumulate, islice

from autodbg.errors import AutodbgError

REDACTED = "<redacted>"
MIN_PIECE = 6  # characters: a piece of a known secret this long is redacted wherever it shows
PROBE, PROBE_STEP = 4, 3  # a text is probed every 3 characters for 4-character pieces (4 + 3 - 1 = MIN_PIECE)
MIN_SHAPED = 16  # characters of a string worth checking for a token shape when learning
MAX_VALUE = 8192  # characters of one learned value (a 4096-bit RSA key in PEM is ~3.2k)
MAX_VALUES = 500  # values learned per crash
MAX_DEPTH = 4  # levels walked into containers and objects
MAX_ITEMS = 200  # items read from one container or instance dict
MAX_NODES = 2000  # values looked at per learn() call (one variable)
MAX_NODES_PER_CRASH = 20_000  # and in all (about 10 ms)
MAX_PASSES = 4  # scrubbing repeats until nothing changes (idempotence); one pass when nothing is found
MAX_REMEMBERED = 4096  # scrubbed texts remembered (forgotten all at once past that)
MAX_NAMES = 5000  # names of the program's code remembered per crash

# --- names -----------------------------------------------------------------------------------

_NAME_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# Words that name a secret on their own, also numbered (`password2`).
_SECRET_WORDS = frozenset(
    "password passwd passphrase passcode pwd pw pass secret token auth authorization bearer cookie "
    "credential cred creds apikey privkey sessionid dsn jwt otp totp hotp pin pincode hmac salt signature "
    "cvv cvc".split())
# Of those, the ones whose plural is a secret too: `tokens` is a lexer's list, `pins` a board's.
_PLURAL_SECRETS = frozenset(
    "password passwd passphrase passcode secret credential cookie apikey privkey jwt otp hmac salt "
    "signature".split())
# A word ending in one of these is a secret whatever comes first (`dbpassword`, `clientsecret`).
_SECRET_SUFFIXES = ("password", "passwd", "passphrase", "passcode", "secret", "credential", "apikey")
_KEY_OWNERS = frozenset(
    "api private priv secret access signing encryption session master ssh gpg pgp rsa license licence "
    "product auth hmac jwt client app deploy webhook".split())
_TOKEN_OWNERS = _KEY_OWNERS | frozenset(
    "csrf xsrf refresh bearer oauth id github gitlab slack bot personal".split())
_PASS_OWNERS = frozenset("db user admin root sudo login mysql pg postgres smtp ftp ldap redis app sys".split())
_URL_OWNERS = frozenset(
    "database db webhook redis broker amqp mongo mongodb postgres postgresql mysql celery sentry".split())
# Words that need an owner before them to name a secret: `ssh_key`, `authtoken`, `database_url`.
_QUALIFIED = (("key", _KEY_OWNERS), ("keys", _KEY_OWNERS), ("token", _TOKEN_OWNERS),
              ("tokens", _TOKEN_OWNERS), ("pass", _PASS_OWNERS), ("pw", _PASS_OWNERS),
              ("pwd", _PASS_OWNERS), ("url", _URL_OWNERS), ("uri", _URL_OWNERS),
              ("str", frozenset({"conn", "connection"})), ("string", frozenset({"conn", "connection"})))
# A name ending in one of these is about a secret, not one: `token_count`, `password_file`.
_ABOUT_A_SECRET = frozenset(
    "count counts len length type kind size index idx name names file path dir hint prompt field "
    "label policy ttl expiry expires expired required enabled valid changed min max limit format".split())


def is_secret_name(name: str, extra_words: frozenset[str] = frozenset()) -> bool:
    """Whether a variable, attribute, key or option name looks like it holds a secret, judged by
    its words (`api_token`, `dbPassword`, `pw`, `password2`, `csrftoken`, `ssh_key`, `DATABASE_URL`),
    so `tokens`, `author`, `passed`, `compass` or `token_count` are not. EXTRA_WORDS are the
    user's own secret words (lower case).

    A bare `key` is not secret: dict keys are the core evidence of a KeyError.
    """
    return issubclass(type(name), str) and _NAME_SHAPE.fullmatch(name) is not None and _is_secret_name(name, extra_words)


# What is judged as a name: a dict key like a test id (`test_x[authorization=abc]`) is text, not a name.
_NAME_SHAPE = re.compile(r"-*[A-Za-z_][\w.-]{0,63}")


@functools.lru_cache(maxsize=8192)  # the same names come back in every frame and dict
def _is_secret_name(name: str, extra_words: frozenset[str]) -> bool:
    parts = [p.lower() for p in _NAME_PART.findall(name)]
    if not parts or (len(parts) > 1 and parts[-1] in _ABOUT_A_SECRET):
        return False
    # Each word, and each run of two or three words written together (`api_key` is `apikey`).
    candidates = [w.rstrip("0123456789") or w for n in (1, 2, 3) for i in range(len(parts) - n + 1)
                  for w in ["".join(parts[i:i + n])]]
    return any(_is_secret_word(w, extra_words) for w in candidates)


def _is_secret_word(word: str, extra_words: frozenset[str]) -> bool:
    if word in _SECRET_WORDS or word in extra_words:
        return True
    if word.endswith("s") and word[:-1] in _PLURAL_SECRETS:
        return True
    singular = word.removesuffix("s")
    if any(singular.endswith(s) and len(singular) > len(s) for s in _SECRET_SUFFIXES):
        return True
    return any(word.endswith(s) and word[:-len(s)] in owners for s, owners in _QUALIFIED)


def redacted(value: object) -> str:
    """What a secret value shows: its type and size, never its content (`<redacted str, 40 chars>`)."""
    if value is None or issubclass(type(value), bool):
        return repr(value)  # a missing password is evidence, and not a secret
    kind = type(value).__name__
    if issubclass(type(value), str):
        return f"<redacted {kind}, {len(value)} chars>"
    if issubclass(type(value), (bytes, bytearray)):
        return f"<redacted {kind}, {len(value)} bytes>"
    if type(value) in (list, tuple, set, frozenset, dict):
        return f"<redacted {kind} of {len(value)}>"
    return f"<redacted {kind}>"


# --- shapes ----------------------------------------------------------------------------------

# Each shape names the secret part `s`; what is around it stays (`postgres://app:<redacted>@db`).
# A shape is only tried on text holding one of its anchors (a plain substring test, far cheaper
# than a regex scan). After detect-secrets' plugins (private_key, basic_auth,
# keyword, jwt, aws, github_token, gitlab_token, slack, stripe, openai, npm, pypi_token, sendgrid,
# square_oauth, telegram_token, azure_storage_key), loosened where a repr or a cut shows less.
_SHAPES: list[tuple[tuple[str, ...], str]] = [
    # A private key block, also one cut before its END line (then its base64 lines).
    (("PRIVATE KEY",), (r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
     r"(?P<s>[\s\S]{0,16384}?(?=-----END[A-Z0-9 ]{0,30}PRIVATE KEY)|[A-Za-z0-9+/=\s\\:,-]{1,16384})")),
    (("PuTTY-User-Key-File",), r"PuTTY-User-Key-File-\d: *(?P<s>[\s\S]{1,8192}?)(?=Private-MAC|$)"),
    (("://",), r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@'\"<>]*:(?P<s>[^\s/@'\"<>]+)@"),  # scheme://user:PASS@host
    (("authorization",), (r"(?i:\b(?:proxy-)?authorization\b['\"]?\s*[:=]\s*['\"]?"
     r"(?:(?:bearer|basic|token|digest|negotiate)\s+)?)(?P<s>(?!(?i:bearer|basic|token|digest|negotiate)\b)[^\s'\",;]{4,})")),
    (("bearer ", "basic ", "token "), r"(?i:\b(?:bearer|basic|token)\s+)(?P<s>(?=[^\s'\",;]*\d)[A-Za-z0-9._~+/=-]{12,})"),
    (("eyJ",), r"\b(?P<s>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"),  # JWT
    (("eyJ",), r"\b(?P<s>eyJ[A-Za-z0-9_-]{16,})"),  # one part of a JWT: base64 of a JSON object
    (("A3T", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA", "ASCA"),
     r"\b(?P<s>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16})\b"),
    # An AWS secret access key: 40 characters of mixed-case base64 (not a hex digest), near a mention of AWS.
    (("aws", "akia", "asia", "secret"), (r"(?<![A-Za-z0-9/+=])(?P<s>(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9/+])"
     r"[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")),
    (("gh", "github_pat_"), r"(?P<s>gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    (("gl",), r"(?P<s>gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_-]{20,})"),
    (("xox",), r"\b(?P<s>xox[abposr]-[A-Za-z0-9-]{10,})"),
    (("hooks.slack.com",), r"hooks\.slack\.com/services/(?P<s>[A-Za-z0-9_/]{10,})"),
    (("k_live_", "k_test_", "whsec_"), r"\b(?P<s>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{10,})"),
    (("sk-",), r"\b(?P<s>sk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,})"),
    (("npm_",), r"\b(?P<s>npm_[A-Za-z0-9]{36})"),
    (("pypi-",), r"\b(?P<s>pypi-AgE[A-Za-z0-9_-]{50,})"),
    (("SG.",), r"\b(?P<s>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})"),
    (("AIza",), r"\b(?P<s>AIza[0-9A-Za-z_-]{35})"),
    (("sq0csp-",), r"\b(?P<s>sq0csp-[0-9A-Za-z_-]{43})"),
    ((":AA",), r"\b(?P<s>\d{8,10}:AA[0-9A-Za-z_-]{33})"),
    (("AccountKey=",), r"AccountKey=(?P<s>[A-Za-z0-9+/=]{20,})"),
]
# Anchors are looked for in the lower-cased text: one test for case-sensitive and -insensitive
# shapes (and a case-insensitive alternation of them all is ten times slower).
_SHAPE_REGEXES = [(tuple(a.lower() for a in anchors), re.compile(pattern)) for anchors, pattern in _SHAPES]
_ANY_ANCHOR = re.compile("|".join(re.escape(a) for anchors, _ in _SHAPE_REGEXES for a in anchors))


def _shapes_in(text: str):
    """The shapes that may match TEXT (its lower-cased form holds one of their anchors). A short
    text, the common case when learning, is first checked against all anchors at once."""
    lowered = text.lower()
    if len(text) < 256 and not _ANY_ANCHOR.search(lowered):
        return []
    return [regex for anchors, regex in _SHAPE_REGEXES if any(a in lowered for a in anchors)]


# What follows a secret name in `api_token='abc'`, `token: str = "abc"`, `"password": "abc"`,
# `Password=abc;` in a repr, source, config or connection string; quoted values may hold escaped quotes.
_ASSIGNED = re.compile(
    r"""['"]?[ \t]*(?::[ \t]*[A-Za-z_][\w.\[\], |]{0,60}?[ \t]*(?==))?[=:][ \t]*"""
    r"""(?P<value>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[^\s,;&)}\]'"=][^\s,;&)}\]]*)""")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _stems(words: Iterable[str]) -> tuple[str, ...]:
    """The fewest substrings one of which every secret name holds (`pass` for `passwd` too)."""
    words = set(words)
    return tuple(w for w in words if not any(o != w and o in w for o in words))


# Every secret name holds one of these; for `conn_str` the owner (`str` is everywhere).
_BASE_STEMS = _stems(_SECRET_WORDS | set(_SECRET_SUFFIXES) | {"key", "token", "pass", "pw", "url", "uri", "conn"})
# Unquoted values that are code or a type, not a secret: `password = get_password()`, `pw: str`.
_NOT_A_VALUE = re.compile(r"[A-Za-z_][\w.]*[(\[].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|"
                          r"None|True|False|str|bytes|int|Optional|Any|Bearer|Basic|Token|Digest", re.I)
_MARKER = re.compile(r"(<redacted(?:[ :][^<>\n]{0,60})?>)")
_PIECE_CHARS = re.compile(r"[^\W_]+")  # letters and digits: what a secret's pieces are matched on
_NOT_PIECE_CHARS = re.compile(r"[\W_]+")
_WORD = re.compile(r"\w+")  # a name as code spells it
_PLAIN_WORD = re.compile(r"[A-Za-z_ ]+")  # a key that names a field or a place, no secret


# --- user additions --------------------------------------------------------------------------

def parse_additions(entries: Iterable[str]) -> tuple[frozenset[str], tuple[re.Pattern, ...]]:
    """The user's secret words and patterns: `tenant` (a word of a name, as in `tenant_id`) or
    `re:PATTERN` (a regular expression; text it matches is redacted). AutodbgError on a bad one."""
    words, patterns = set(), []
    for entry in entries:
        entry = entry.strip()
        if entry.startswith("re:"):
            try:
                patterns.append(re.compile(entry[3:]))
            except re.error as exc:
                raise AutodbgError(f"redact pattern {entry!r} is not a valid regular expression: {exc}") from None
        elif entry:
            if not entry.replace("-", "_").isidentifier():
                raise AutodbgError(f"redact name {entry!r} is not a name (write `re:PATTERN` for a pattern)")
            words.add(entry.lower().replace("_", "").replace("-", ""))
    return frozenset(words), tuple(patterns)


PATTERN_SECONDS = 1.0  # for a user's pattern to run over the trial texts, Python's start included

# Run in a child process, which a pattern that backtracks catastrophically cannot hang: the
# pattern (on stdin) over long runs of each character it names and of common ones, and of them all
# in turn, each run ended by a character no such pattern expects -- the texts that make nested
# quantifiers (`(a+)+$`, `(\w+\s?)*$`) try every way to split the run. Redaction reads texts of this length.
_PATTERN_TRIAL = r"""
import re, sys
pattern = re.compile(sys.stdin.read())
chars = sorted({c for c in pattern.pattern if c.isalnum()} | set("aA0 _-.:/=@"))
for text in [c * 2000 + "\x00" for c in chars] + ["".join(chars) * 60 + "\x00"]:
    for _ in pattern.finditer(text):
        pass
"""


@functools.cache
def pattern_problem(pattern: str) -> str | None:
    """Why the user's regular expression PATTERN cannot redact, or None: it must compile, and run
    over the trial texts within PATTERN_SECONDS (a heuristic: no test finds every slow pattern)."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"is not a valid regular expression: {exc}"
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", _PATTERN_TRIAL], input=pattern, text=True,
                              capture_output=True, timeout=PATTERN_SECONDS)
    except subprocess.TimeoutExpired:
        return f"took more than {PATTERN_SECONDS:g} s over a trial text (it backtracks catastrophically)"
    except OSError as exc:
        return f"could not be tried ({exc.strerror})"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"could not be tried ({last})"
    return None


# --- the redactor ----------------------------------------------------------------------------

class Redactor:
    """Learns the secret values of a crashed program and scrubs them, and anything shaped or
    named like a secret, from any text."""

    def __init__(self, additions: Sequence[str] = ()) -> None:
        """ADDITIONS: the user's entries (see parse_additions), from AUTODBG_REDACT or the config."""
        self.extra_words, self.extra_patterns = parse_additions(additions)
        user_parts = [_NAME_PART.findall(w) for w in additions if not w.strip().startswith("re:")]
        stems = _stems([*_BASE_STEMS, *(parts[0].lower() for parts in user_parts if parts)])
        self._stem_regex = re.compile("|".join(re.escape(s) for s in sorted(stems, key=len, reverse=True)))
        self.values: set[str] = set()  # learned secrets, as matched: letters and digits, lower case
        self.learned: list[str] = []  # the same as they were found, for another Redactor (absorb)
        self._pieces: set[str] = set()  # every MIN_PIECE-long piece of each, and of its reverse and hex
        self._probes: set[str] = set()  # every PROBE-long piece of the same
        self._modules_seen: set[int] = set()  # ids of the module namespaces learned
        self._verdicts: dict[str, bool] = {}  # name -> is_secret(name): the same names come back everywhere
        self._nodes_left = MAX_NODES_PER_CRASH
        self._scrubbed: dict[str, str] = {}  # text -> scrubbed: a report repeats its keys and texts
        self.names: set[str] = set()  # words the program's code is named by, lower case (learn_names)
        self.files: set[str] = set()  # the program's files whose code was seen
        self._path_words: set[str] = set()  # the words of their paths, lower case

    def is_secret(self, name: str) -> bool:
        verdict = self._verdicts.get(name)
        if verdict is None:
            verdict = self._verdicts[name] = is_secret_name(name, self.extra_words)
        return verdict

    # --- learning ------------------------------------------------------------------------------

    def learn(self, name: str, value: object) -> None:
        """Remember the secrets in VALUE: all its strings if NAME looks secret, else those bound to
        secret names inside it and those shaped like tokens. Bounded; runs no program code."""
        todo = [(value, self.is_secret(name), MAX_DEPTH)]
        for _ in range(max(1, min(MAX_NODES, self._nodes_left))):  # the value itself, always
            if not todo:
                return
            self._nodes_left -= 1
            value, secret, depth = todo.pop()
            if issubclass(type(value), (str, bytes, bytearray)):
                self.learn_text(value, secret)
                continue
            if depth == 0 or type(value) in _LEAF_TYPES or issubclass(type(value), type):
                continue
            # Everything in `passwords = [...]` is secret; an object under a secret name is not
            # all secret (a plugin registry's `pytest_assertion_pass` entry), only its secret-named attributes.
            inherited = secret and issubclass(type(value), _CONTAINERS)
            if issubclass(type(value), dict):
                self._learn_keys(value, inherited)
            for child_name, child in _children(value):
                kind = type(child)
                if kind in _LEAF_TYPES:
                    continue
                child_secret = inherited or (child_name != "" and self.is_secret(child_name))
                if kind in _TEXT_TYPES and not child_secret and len(child) < MIN_SHAPED:
                    continue  # a short string of no secret name: nothing to learn
                todo.append((child, child_secret, depth - 1))

    def _learn_keys(self, mapping: dict, secret: bool) -> None:
        """The keys of MAPPING that may be secrets: in a secret-named mapping (`sessions_by_token`,
        `api_keys = {"sk-live-...": "ci"}`) every key that is not a plain word (`prod`,
        `username`); anywhere, those shaped like a token."""
        for key in islice(dict.__iter__(mapping), MAX_ITEMS):
            if issubclass(type(key), str) and (len(key) >= MIN_SHAPED or secret):
                self.learn_text(key, secret and not _PLAIN_WORD.fullmatch(key))

    def learn_text(self, value: str | bytes | bytearray, secret: bool) -> None:
        """Remember VALUE if SECRET, else only the token-shaped parts of it."""
        text = _as_text(value)[:MAX_VALUE]
        shaped = [m.group("s") for r in _shapes_in(text) for m in r.finditer(text)] if len(text) >= MIN_SHAPED else []
        shaped += [m.group() for p in self.extra_patterns for m in p.finditer(text)]
        if secret:
            shaped += [text[a:b] for a, b in self._assigned_values(text)]
            # A DSN bound to `dsn` is its password, a connection string its `Password=...`; only
            # a value without such parts is a secret as a whole.
            shaped = shaped or [text]
        for part in shaped:
            self._add(part)
        if issubclass(type(value), (bytes, bytearray)) and (secret or shaped):
            self._add(repr(bytes(value[:MAX_VALUE]))[2:-1])  # as a bytes repr shows it: `\x9f\x01...`

    def learn_names(self, code: types.CodeType) -> None:
        """The names CODE uses and the words of its file's path. A piece of a secret inside such a
        word is the program's vocabulary, which its source shows anyway (`def print_results` when
        the password is `print_results99`; `secret_crash.py`), not a leak: it is left as it is. A
        path's words are kept even where one is a learned secret as a whole (a folder named like a
        lexer's `token`): Python's traceback above shows them as they are."""
        self.absorb_names((code.co_name, *code.co_varnames, *code.co_names, *code.co_freevars, *code.co_cellvars),
                          (code.co_filename,))

    def absorb_names(self, names: Iterable[str], files: Iterable[str] = ()) -> None:
        """Remember NAMES and FILES, what another Redactor learned (a probe's)."""
        known = len(self.names)
        new_files = [f for f in islice(files, max(0, MAX_NAMES - len(self.files))) if type(f) is str and f not in self.files]
        self.files.update(new_files)
        words = [w.lower() for f in new_files for w in _WORD.findall(f)]
        self._path_words.update(words)
        for name in islice((*names, *words), max(0, MAX_NAMES - len(self.names))):
            if type(name) is str:
                self.names.add(name.lower())
        if len(self.names) != known:
            self._scrubbed.clear()  # what was scrubbed before may now keep a name

    def learn_frame(self, frame: types.FrameType) -> None:
        """The locals of FRAME, and its module's globals (once per module), and its code's names."""
        self.learn_names(frame.f_code)
        namespaces = [_frame_locals(frame)] if frame.f_locals is not frame.f_globals else []
        if id(frame.f_globals) not in self._modules_seen:
            self._modules_seen.add(id(frame.f_globals))
            namespaces.append(dict(islice(frame.f_globals.items(), 500)))
        for namespace in namespaces:
            for name, value in namespace.items():
                if type(value) not in _LEAF_TYPES and not (name.startswith("__") and name.endswith("__")):
                    self.learn(name, value)  # not `__loader__`, `__builtins__`: the interpreter's, not the program's

    def learn_process(self, environ=os.environ, argv: Sequence[str] | None = None) -> None:
        """The values of secret-named environment variables and argv options (`--password hunter2`,
        `--token=abc`), and anything in them shaped like a token. Short options (`-p`) are not
        judged: their meaning differs between programs."""
        for name, value in list(environ.items()):
            secret = self.is_secret(name) and not (os.path.isabs(value) and os.path.exists(value))
            self.learn_text(value, secret)  # SSH_AUTH_SOCK is a path, not a secret
        for args in ([argv] if argv is not None else [sys.argv, getattr(sys, "orig_argv", [])]):
            self._learn_argv(list(args))

    def _learn_argv(self, args: list[str]) -> None:
        for i, arg in enumerate(args):
            option, eq, value = arg.partition("=")
            is_option = option.startswith("--") and self.is_secret(option.lstrip("-"))
            if is_option and eq:
                self.learn_text(value, True)
            elif is_option and i + 1 < len(args):
                self.learn_text(args[i + 1], True)
            else:
                self.learn_text(arg, False)

    def _add(self, secret: str) -> None:
        secret = _MARKER.sub(" ", secret)  # text scrubbed before (a report the program holds) is no secret
        key = _key(secret)
        if len(key) < MIN_PIECE or key in self.values or len(self.values) >= MAX_VALUES:
            return
        self.values.add(key)
        self.learned.append(secret)
        self._scrubbed.clear()  # what was scrubbed before this secret was known may hold it
        forms = [key, key[::-1]] + (_encoded_forms(secret) if len(secret) <= 256 else [])
        for form in forms:
            self._pieces.update(form[i:i + MIN_PIECE] for i in range(len(form) - MIN_PIECE + 1))
            self._probes.update(form[i:i + PROBE] for i in range(len(form) - PROBE + 1))

    def absorb(self, secrets: Sequence[str]) -> None:
        """Remember SECRETS, what another Redactor learned (a probe's, where the objects are)."""
        for secret in secrets:
            self._add(secret)

    # --- scrubbing -----------------------------------------------------------------------------

    def scrub(self, text: str) -> str:
        """TEXT without secrets. Idempotent, and never raises: if checking fails, nothing of TEXT
        is returned."""
        try:
            text = text if issubclass(type(text), str) else str(text)
            if text not in self._scrubbed:
                if len(self._scrubbed) > MAX_REMEMBERED:
                    self._scrubbed.clear()
                self._scrubbed[text] = self._scrub_until_stable(text)
            return self._scrubbed[text]
        except Exception as exc:  # the boundary must hold whatever the text is
            return f"<redacted: text could not be checked ({type(exc).__name__})>"

    def scrub_record(self, record):
        """RECORD (a dataclass of report data) with every text value scrubbed; its field names,
        dict keys (names) and vocabulary values are not text a secret can be in, and scrubbing them
        would change its shape (a password holding `function` must not cost the report)."""
        from autodbg.textsafe import map_values
        return map_values(record, self.scrub)

    def _scrub_until_stable(self, text: str) -> str:
        for _ in range(MAX_PASSES):
            scrubbed = self._scrub_once(text)
            if scrubbed == text:
                return text
            text = scrubbed
        return text

    def _scrub_once(self, text: str) -> str:
        text = _outside_markers(text, _scrub_shapes)
        for pattern in self.extra_patterns:
            text = _outside_markers(text, lambda t, p=pattern: p.sub(REDACTED, t))
        text = _outside_markers(text, self._scrub_assignments)
        if self._pieces:
            text = _outside_markers(text, self._scrub_pieces)
        return text

    def _scrub_assignments(self, text: str) -> str:
        out, done = [], 0
        for first, end in sorted(self._assigned_values(text)):
            if first >= done:  # `password=token=abc`: the outer value holds the inner one
                out += [text[done:first], REDACTED]
                done = end
        out.append(text[done:])
        return "".join(out)

    def _assigned_values(self, text: str) -> list[tuple[int, int]]:
        """Where the value of each `name=value` (and the like) whose name looks secret is. Names
        are found from the stems they hold (one literal alternation over the lower-cased text):
        far cheaper than a regex trying every identifier of the text."""
        lowered = text.lower()
        if len(lowered) != len(text):
            lowered = text  # 'İ'.lower() is longer: positions would shift
        judged, cuts = set(), []
        for m in self._stem_regex.finditer(lowered):
            start, end = m.span()
            while start > 0 and text[start - 1] in _NAME_CHARS:
                start -= 1
            while end < len(text) and text[end] in _NAME_CHARS:
                end += 1
            if start not in judged:
                judged.add(start)
                cut = self._value_assigned_to(text, start, end)
                if cut:
                    cuts.append(cut)
        return cuts

    def _value_assigned_to(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """Where the value assigned to the name TEXT[START:END] is, if it is a secret's."""
        if not self.is_secret(text[start:end]):
            return None
        m = _ASSIGNED.match(text, end)
        if m is None:
            return None
        value = m.group("value")
        if value in ("''", '""'):
            return None
        if value[0] not in "'\"" and (_NOT_A_VALUE.fullmatch(value) or _is_variable(value)):
            return None  # code (`password = get_password()`, `pw=pw`) or a type, not a value
        return m.start("value"), m.end("value")

    def _scrub_pieces(self, text: str) -> str:
        """Replace every stretch of TEXT whose letters and digits (separators skipped, case
        ignored) hold a MIN_PIECE-long piece of a learned secret."""
        flat = _NOT_PIECE_CHARS.sub("", text)
        lowered = flat.lower()
        flat = lowered if len(lowered) == len(flat) else flat  # 'İ'.lower() is longer: keep the case then
        hits = self._piece_starts(flat)
        if not hits:
            return text
        spans: list[list[int]] = []  # [first, end) in FLAT, overlapping hits joined
        for i in hits:
            if spans and i < spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], i + MIN_PIECE)
            else:
                spans.append([i, i + MIN_PIECE])
        runs = list(_PIECE_CHARS.finditer(text))
        starts = list(accumulate((m.end() - m.start() for m in runs), initial=0))[:-1]

        def original(position: int) -> int:  # a position in FLAT -> its position in TEXT
            r = bisect.bisect_right(starts, position) - 1
            return runs[r].start() + position - starts[r]

        out, done = [], 0
        for first, end in spans:
            first, end = original(first), original(end - 1) + 1
            if not self._in_names(text, first, end):
                out += [text[done:first], REDACTED]
                done = end
        out.append(text[done:])
        return "".join(out)

    def _in_names(self, text: str, first: int, end: int) -> bool:
        """Whether every word TEXT[FIRST:END] touches is a name of the program's code, and none of
        them is a learned secret as a whole, unless it is a word of a program file's path."""
        if not self.names:
            return False
        while first > 0 and _WORD.match(text, first - 1):
            first -= 1
        words = _WORD.findall(text, first, _WORD.match(text, end - 1).end())
        return all(w.lower() in self.names and (w.lower() in self._path_words
                                                 or _key(w) not in self.values)
                   for w in words)

    def _piece_starts(self, flat: str) -> list[int]:
        """Where a learned piece starts in FLAT, in order. Only every PROBE_STEP-th position is
        probed, with a PROBE-long window: any MIN_PIECE-long piece holds one such window whole;
        around a probe that is a secret's, every position is checked."""
        probes, pieces, k = self._probes, self._pieces, MIN_PIECE
        found: set[int] = set()
        for i in range(0, len(flat) - PROBE + 1, PROBE_STEP):
            if flat[i:i + PROBE] in probes:
                found.update(j for j in range(max(0, i - k + PROBE), i + 1) if flat[j:j + k] in pieces)
        return sorted(found)


def _key(text: str) -> str:
    """TEXT as learned secrets are matched: its letters and digits, lower case."""
    return "".join(_PIECE_CHARS.findall(text.lower()))


def _encoded_forms(secret: str) -> list[str]:
    """SECRET as a program may encode it, matched like the secret (letters and digits, any case):
    hex (`pw.encode().hex()`), rot13, URL-quoted, and base64 from each of the three byte offsets
    it may start at inside a longer text (`b64encode(b"user:" + pw)`), without the characters
    that mix its bytes with its neighbours'."""
    raw = secret.encode("utf-8", "replace")
    forms = [raw.hex(), codecs.encode(secret, "rot13"), urllib.parse.quote(secret, safe=""),
             urllib.parse.quote_plus(secret)]
    for shift, mixed in ((0, 0), (1, 2), (2, 3)):
        encoded = base64.b64encode(bytes(shift) + raw).decode().rstrip("=")
        forms.append(encoded[mixed:len(encoded) - (0 if (shift + len(raw)) % 3 == 0 else 1)])
    return [_key(form) for form in forms]


def _is_variable(value: str) -> bool:
    """`password` in `self._password = password`: a variable's name, not a value."""
    return value.isidentifier() and value.islower() and is_secret_name(value)


def _scrub_shapes(text: str) -> str:
    for regex in _shapes_in(text):
        text = regex.sub(_scrub_shape, text)
    return text


def _scrub_shape(m: re.Match) -> str:
    start, end = m.start("s") - m.start(), m.end("s") - m.start()
    whole = m.group()
    return whole[:start] + REDACTED + whole[end:]


def _outside_markers(text: str, change) -> str:
    """TEXT with CHANGE applied to each stretch between redaction markers, so what is already
    redacted is never matched again (and scrubbing twice changes nothing)."""
    if "<redacted" not in text:
        return change(text)
    parts = _MARKER.split(text)
    for i in range(0, len(parts), 2):  # even parts are the text between markers
        if parts[i]:
            parts[i] = change(parts[i])
    return "".join(parts)


# --- walking values without running their code -----------------------------------------------

# Types with nothing to learn inside (exact types: a set lookup is what makes walking cheap).
_LEAF_TYPES = frozenset({int, float, complex, bool, type(None), type, types.ModuleType, types.FunctionType,
                         types.BuiltinFunctionType, types.MethodType, types.FrameType, types.CodeType, range,
                         types.MethodWrapperType, types.WrapperDescriptorType, property, classmethod, staticmethod})
_TEXT_TYPES = frozenset({str, bytes, bytearray})
_CONTAINERS = (dict, list, tuple, set, frozenset)


def _as_text(value: str | bytes | bytearray) -> str:
    return value if issubclass(type(value), str) else bytes(value[:MAX_VALUE]).decode("utf-8", "replace")


def _frame_locals(frame: types.FrameType) -> dict:
    try:
        return dict(frame.f_locals)
    except Exception:  # a frame's locals proxy may fail: nothing to learn then
        return {}


# Types are read with type(), never isinstance(): isinstance falls back to a program object's
# `__class__`, which may be a property (its code, run in the crashed process when no probe learns).
def _children(value: object) -> list[tuple[str, object]]:
    """(name, value) pairs inside VALUE, one level, read with the built-in types' own methods (an
    override of `items` or `__iter__` is not run); '' names an unnamed item."""
    try:
        if issubclass(type(value), dict):
            return [(k if issubclass(type(k), str) else "", v) for k, v in islice(dict.items(value), MAX_ITEMS)]
        if issubclass(type(value), tuple):
            fields = type(value).__dict__.get("_fields")  # a namedtuple's field names
            names = fields if issubclass(type(fields), tuple) else ()
            items = list(islice(tuple.__iter__(value), MAX_ITEMS))
            return [(names[i] if i < len(names) and issubclass(type(names[i]), str) else "", v) for i, v in enumerate(items)]
        if issubclass(type(value), list):
            return [("", v) for v in islice(list.__iter__(value), MAX_ITEMS)]
        if issubclass(type(value), (set, frozenset)):
            iterate = set.__iter__ if issubclass(type(value), set) else frozenset.__iter__
            return [("", v) for v in islice(iterate(value), MAX_ITEMS)]
        children = []
        if issubclass(type(value), BaseException):
            children = [("", a) for a in islice(BaseException.args.__get__(value), MAX_ITEMS)]
        attributes = _instance_dict(value)
        children += [(k if issubclass(type(k), str) else "", v) for k, v in islice(dict.items(attributes), MAX_ITEMS)]
        return children + _slot_values(value)
    except Exception:  # an odd object: nothing to learn from it
        return []


def _slot_values(value: object) -> list[tuple[str, object]]:
    """(name, value) of VALUE's `__slots__` (a `@dataclass(slots=True)`), read through the slots'
    own descriptors, which run no code."""
    found = []
    for name, descriptor in _slots_of(type(value)):
        try:
            found.append((name, descriptor.__get__(value, type(value))))
        except AttributeError:  # a slot never set
            pass
    return found


@functools.lru_cache(maxsize=1024)
def _slots_of(kind: type) -> tuple[tuple[str, types.MemberDescriptorType], ...]:
    return tuple((name, d) for klass in kind.__mro__ for name, d in list(klass.__dict__.items())[:MAX_ITEMS]
                 if issubclass(type(d), types.MemberDescriptorType))[:MAX_ITEMS]


def _instance_dict(value: object) -> dict:
    """VALUE's instance dict, if reading it runs no code (a class may make `__dict__` a property)."""
    for klass in type(value).__mro__:
        descriptor = klass.__dict__.get("__dict__")
        if descriptor is not None:
            if not issubclass(type(descriptor), types.GetSetDescriptorType):
                return {}
            d = object.__getattribute__(value, "__dict__")
            return d if issubclass(type(d), dict) else {}
    return {}
