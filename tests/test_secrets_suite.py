"""The secrets suite: a crashing program with more than 40 planted secrets, each a unique
random-looking string, run for real under the installed hook (terminal and JSON report) and again
through a scripted stand-in model whose commands try to extract them (transcript, the prompts a
remote engine would get, the rendered summary). No 6-character piece of any secret may show."""

from __future__ import annotations

import base64
import json
import random
import re
import runpy
import string
import sys
import time
from io import StringIO

import pytest
from rich.console import Console

from autodbg.investigate.strategies import MAX_OPTIONS
from autodbg.pipeline import new_result, run_investigation
from autodbg.report import SummaryView
from autodbg.crash import CrashSession
from autodbg.redact import MIN_PIECE
from autodbg.settings import load_settings
from crashkit import ScriptedStandInModel, fixed
from conftest import run_in_terminal

RNG = random.Random(15)
ALNUM = string.ascii_letters + string.digits


def rand(n: int, alphabet: str = ALNUM) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def b64url(n: int) -> str:
    return base64.urlsafe_b64encode(RNG.randbytes(n)).decode().rstrip("=")


JWT = (base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT","kid":"' + rand(10).encode() + b'"}').decode().rstrip("=")
       + "." + base64.urlsafe_b64encode(b'{"sub":"' + rand(16).encode() + b'"}').decode().rstrip("=") + "." + b64url(32))
SSH_BODY = "\\n".join(base64.b64encode(RNG.randbytes(52)).decode() for _ in range(6))  # \n as in the source literal
BLOB = bytes(RNG.randrange(256) for _ in range(24))

# name -> the secret planted under it (only the secret part: a DSN's password, not its host).
S = {name: rand(RNG.randint(18, 28)) for name in """
    creds password2 passwords_a passwords_b csrftoken dsn_pw bearer connect_pw pw pass_ passcode secrets_a
    authtoken apitoken privkey priv_key cred database_url_pw conn_str_pw connection_string_pw signature hmac
    salt license_key webhook_path quote_trick nested_pw nested_api_key vault_secret api_secret signing_key
    refresh_token cause_token kwargs_pw header_api_key env_token env_db_password env_deploy_key argv_password
    argv_token session_key mysql_pw long_private_key_head
""".split()}
S["akid"] = "AKIA" + rand(16, string.ascii_uppercase + string.digits)
S["aws_secret"] = rand(40, ALNUM + "/+")
S["github"] = "ghp_" + rand(36)
S["stripe"] = "sk_live_" + rand(24)
S["openai"] = "sk-proj-" + rand(40)
S["slack_token"] = "xoxb-" + rand(12, string.digits) + "-" + rand(24)
S["otp"] = rand(9, string.digits)
S["pin"] = rand(8, string.digits)
S["jwt"] = JWT

VICTIM = f'''\
import os
import sys
from dataclasses import dataclass

API_SECRET = "{S["api_secret"]}"
SIGNING_KEY = "{S["signing_key"]}"


@dataclass
class Config:
    host: str
    password: str
    port: int


class Vault:
    def __init__(self):
        self.owner = "ops"
        self.inner = {{"secret": "{S["vault_secret"]}", "plain": "visible-value"}}


def login(user, pw):
    refresh_token = "{S["refresh_token"]}"
    session_key = b"{S["session_key"]}"
    blob_secret = {BLOB!r}
    id_token = "{S["cause_token"]}"
    otp = "{S["otp"]}"
    pin = "{S["pin"]}"
    try:
        raise KeyError(f"stale grant {{id_token}}")
    except KeyError as exc:
        raise PermissionError(
            f"upstream rejected {{user}}: bearer {{refresh_token}}, retry via mysql://root:{S["mysql_pw"]}@10.0.0.5/app"
        ) from exc


def connect(host, user, password):
    pass_ = "{S["pass_"]}"
    passcode = "{S["passcode"]}"
    authtoken = "{S["authtoken"]}"
    apitoken = "{S["apitoken"]}"
    privkey = "{S["privkey"]}"
    priv_key = "{S["priv_key"]}"
    cred = "{S["cred"]}"
    kwargs = {{"timeout": 3, "password": "{S["kwargs_pw"]}"}}
    note = "deploy with {S["github"]}"
    return login(user, "{S["pw"]}")


def prepare(cfg):
    database_url = "postgres://app:{S["database_url_pw"]}@db.internal:5432/prod"
    conn_str = "Server=db;User ID=sa;Password={S["conn_str_pw"]};Encrypt=yes"
    connection_string = "host=db user=app pwd={S["connection_string_pw"]} port=5432"
    signature = "{S["signature"]}"
    hmac = "{S["hmac"]}"
    salt = "{S["salt"]}"
    license_key = "{S["license_key"]}"
    webhook_url = "https://hooks.slack.com/services/T0001/B0002/{S["webhook_path"]}"
    stripe_cfg = {{"live": "{S["stripe"]}"}}
    keys = ["{S["openai"]}", "{S["slack_token"]}"]
    aws = {{"region": "eu-west-1", "aws_secret_access_key": "{S["aws_secret"]}"}}
    service = os.environ["MY_SERVICE_TOKEN"]
    deploy = os.environ.get("DEPLOY_KEY")
    env_copy = dict(os.environ)
    vault = Vault()
    return connect(cfg.host, "admin", "{S["connect_pw"]}")


def main():
    creds = ("admin", "{S["creds"]}")
    password2 = "{S["password2"]}"
    passwords = ["{S["passwords_a"]}", "{S["passwords_b"]}"]
    secrets = {{"primary": "{S["secrets_a"]}"}}
    csrftoken = "{S["csrftoken"]}"
    dsn = "postgres://app:{S["dsn_pw"]}@db/orders"
    raw_header = "Authorization: Bearer {S["bearer"]}"
    headers = {{"Authorization": "Bearer {S["bearer"]}", "X-Api-Key": "{S["header_api_key"]}", "Accept": "json"}}
    akid = "{S["akid"]}"
    jwt = "{S["jwt"]}"
    ssh_key = "-----BEGIN OPENSSH PRIVATE KEY-----\\n{SSH_BODY}\\n-----END OPENSSH PRIVATE KEY-----\\n"
    private_key = "{S["long_private_key_head"]}" + "Q" * 600
    cfg = Config(host="db.internal", password="{S["quote_trick"]}'-qu0te\\"tr1ck", port=5432)
    config = {{"db": {{"password": "{S["nested_pw"]}", "host": "db"}}, "services": [{{"name": "s", "api_key": "{S["nested_api_key"]}"}}]}}
    return prepare(cfg)


main()
'''

# What each secret may show as: its text, and for the bytes one its repr and hex.
PLANTED = {**S, "ssh_key": SSH_BODY.replace("\\n", ""), "quote_trick": S["quote_trick"] + "'-qu0te\"tr1ck",
           "blob_repr": repr(BLOB)[2:-1], "blob_hex": BLOB.hex()}
ENV = {"MY_SERVICE_TOKEN": S["env_token"], "DATABASE_PASSWORD": S["env_db_password"], "DEPLOY_KEY": S["env_deploy_key"]}
ARGV = ["--password", S["argv_password"], f"--token={S['argv_token']}", "--verbose"]


def test_more_than_40_forms_are_planted():
    assert len(PLANTED) >= 40 and len(set(PLANTED.values())) == len(PLANTED)
    for name, secret in S.items():
        assert secret in VICTIM or secret in ENV.values() or any(secret in a for a in ARGV), name


def leaks(text: str, forms=lambda s: [s]) -> list[str]:
    """Every MIN_PIECE-long piece of a planted secret (in each of its FORMS) that TEXT holds."""
    found = []
    for name, secret in PLANTED.items():
        for form in forms(secret):
            found += [f"{name}: {form[i:i + MIN_PIECE]!r}" for i in range(len(form) - MIN_PIECE + 1)
                      if form[i:i + MIN_PIECE] in text]
    return sorted(set(found))


def transformed(secret: str) -> list[str]:
    """The forms an extraction command may give a secret: reversed and in either case."""
    return [secret, secret[::-1], secret.upper(), secret.lower()]


def autodbg_part(terminal: str) -> str:
    """What autodbg printed: everything from its evidence rule on (Python's traceback above is not ours)."""
    start = terminal.find("autodbg · ")
    assert start > 0, terminal[-3000:]
    return terminal[terminal.rfind("\n", 0, start) + 1:]


def test_no_secret_piece_in_the_terminal_or_the_report(tmp_path, hooked):
    (tmp_path / "victim.py").write_text(VICTIM)
    report = tmp_path / "report.json"
    env = hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_REPORT=str(report), AUTODBG_VERBOSE="1", **ENV)  # all of it
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "victim.py"), *ARGV], env=env)
    assert status == 1
    ours = autodbg_part(terminal)
    assert "autodbg: internal error" not in ours
    assert "PermissionError: upstream rejected admin: bearer <redacted>" in ours
    assert "password2 = <redacted str" in ours and "mysql://root:<redacted>@10.0.0.5/app" in ours
    assert leaks(ours) == []
    text = report.read_text()
    result = json.loads(text)
    assert leaks(text) == [] and leaks(json.dumps(result, ensure_ascii=False)) == []
    assert result["argv"][1:] == ["--password", "<redacted>", "--token=<redacted>", "--verbose"]
    # Still a debugging report: the frames, their non-secret values and the crash site are there.
    assert [f["function"] for f in result["dossier"]["frames"]] == ["login", "connect", "prepare", "main", "<module>"]
    shown = {f["function"]: {**{v["expr"]: v["value"] for v in f["line_values"]}, **f["locals"]}
             for f in result["dossier"]["frames"]}
    assert shown["prepare"]["aws"].startswith("{'region': 'eu-west-1', 'aws_secret_access_key': <redacted str, 40 chars>")
    assert shown["main"]["cfg"] == "Config(host='db.internal', password=<redacted>, port=5432)"


# --- through commands: a scripted stand-in model tries to extract the secrets --------------------

EXTRACTIONS = {
    "login": ["locals", "args", "print pw", "print pw.upper()", "print pw[::-1]", "print list(pw)", "print '-'.join(pw)",
              "print pw.encode().hex()", "print pw[2:14]", "print [refresh_token, otp, pin]", "print session_key",
              "print blob_secret", "print session_key.decode()", "print f'{refresh_token}'", "print sys.argv",
              "print os.environ", "print user + refresh_token"],
    "connect": ["locals", "print password", "print [password]", "print {'x': password}", "print password[3:20]",
                "print kwargs", "print list(kwargs.values())", "print note", "print note.split()",
                "print [privkey, priv_key, cred, pass_, passcode]", "print authtoken.swapcase()", "print apitoken[::-1]"],
    "prepare": ["locals", "print database_url", "print database_url.split(':')", "print conn_str.split(';')",
                "print connection_string.split()", "print stripe_cfg", "print keys", "print aws", "print list(aws.values())",
                "print service", "print deploy", "print env_copy", "print vault", "print vault.inner",
                "print vars(vault)", "print vault.__dict__", "print list(vault.inner.values())", "print webhook_url",
                "print [signature, hmac, salt, license_key]", "print webhook_url[8:]"],
    "main": ["locals", "print creds", "print creds[1]", "print [v[::-1] for v in headers.values()]", "print headers",
             "print list(headers.values())", "print vars(cfg)", "print cfg.__dict__", "print cfg",
             "print vars(cfg)['pass' + 'word']", "print ssh_key[:300]", "print ssh_key[40:300]", "print jwt.split('.')",
             "print config", "print config['db']", "print [c for c in config['db']['password']]",
             "print config['services'][0]['api_' + 'key']", "print dsn", "print dsn.split(':')", "print raw_header.split()",
             "print akid.lower()", "print passwords", "print [p[::-1] for p in passwords]", "print secrets",
             "print private_key[:40]", "print csrftoken.upper()", "print password2[1:]", "list 1 120",
             "source prepare", "source connect", "source login"],
    "<module>": ["print API_SECRET", "print [API_SECRET, SIGNING_KEY]", "print SIGNING_KEY.lower()"],
    None: ["exceptions", "where"],
}


@pytest.fixture
def victim_session(tmp_path, monkeypatch):
    """The victim crashed in this process (argv and environment as planted), and its session."""
    (tmp_path / "victim.py").write_text(VICTIM)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "victim.py"), *ARGV])
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    try:
        runpy.run_path(str(tmp_path / "victim.py"), run_name="__main__")
    except PermissionError as exc:
        session = CrashSession.of_crash(exc)
        return session, session.dossier()
    pytest.fail("the victim did not crash")


@pytest.mark.slow
def test_no_secret_piece_through_extraction_commands(victim_session):
    session, dossier = victim_session
    frames = {function: i for i, (file, _, function) in enumerate(session.state().stack) if file.endswith("victim.py")}
    commands = [c for function, lines in EXTRACTIONS.items()
                for c in ([f"frame {frames[function]}"] if function else []) + lines]
    assert len(commands) >= 80
    # The model's fix of the likeliest line quotes secrets it saw; it runs and still fails, so the root cause
    # shown says what it tried.
    quoting = fixed(f"    note = 'the token {S['refresh_token']} was rejected (pw {S['pw']})'")
    model = ScriptedStandInModel([f"Thought: look\nCommand: {c}" for c in commands] + ["Thought: done\nCommand: done"]
                                 + [quoting] + ["null"] * MAX_OPTIONS, context=10_000_000)
    settings = load_settings({"AUTODBG_TURNS": str(len(commands) + 1), "AUTODBG_TIMEOUT": "600"})
    result = new_result(session, None)
    out = StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    assert run_investigation(model, session, result, settings, console, time.monotonic(), lambda step: None) is None
    console.print(SummaryView(session.scrubbed(result), verbose=True))  # what handle_crash prints

    transcript = result.transcript
    assert [t.command for t in transcript] == [*commands, "done"]
    refused = [t.command for t in transcript if t.output.startswith("error:")]
    assert refused == [], refused  # every extraction ran
    assert leaks("\n".join(t.output for t in transcript), transformed) == []
    sent = "\n".join(m["content"] for call in model.calls for m in call["messages"])
    assert leaks(sent, transformed) == []
    summary = out.getvalue()
    assert "the token <redacted> was rejected" in summary
    assert leaks(summary, transformed) == []
    assert leaks(json.dumps(session.scrubbed(result).to_json()), transformed) == []  # what write_report writes
    # Still debuggable: non-secret values are shown.
    outputs = {t.command: t.output for t in transcript}
    assert "'region': 'eu-west-1'" in outputs["print aws"] and "'plain': 'visible-value'" in outputs["print vault.inner"]


@pytest.mark.xfail(strict=True, reason="known leak: a value spelled out as numbers (ord) is not recognisable text; "
                                        "closing it needs the sandboxed probe, not redaction")
def test_a_secret_spelled_out_as_numbers_leaks(victim_session):
    session, _ = victim_session
    session.execute(f"frame {next(i for i, place in enumerate(session.state().stack) if place[2] == 'connect')}")
    out = session.execute("print ''.join(str(ord(c)) for c in list(kwargs.values())[1])").output
    assert "".join(str(ord(c)) for c in S["kwargs_pw"]) not in out


# --- terminal escape sequences ---------------------------------------------------------------

ESCAPES = '''\
def show(title):
    banner = "\\x1b]0;pwned\\x07" + title
    hidden = "\\x1b[8mhidden text\\x1b[0m"
    raise ValueError("bad title \\x1b]0;pwned\\x07 and \\x1b[8mhidden\\r\\x08 \\u202eevil")


show("x")
'''


def test_escape_sequences_are_shown_not_sent_to_the_terminal(tmp_path, hooked):
    (tmp_path / "esc.py").write_text(ESCAPES)
    report = tmp_path / "report.json"
    env = hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_REPORT=str(report), AUTODBG_VERBOSE="1")
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "esc.py")], env=env)
    assert status == 1
    ours = autodbg_part(terminal)
    assert "\x1b[8m" not in ours and "\x1b]" not in ours
    # rich's own bold and dim are fine, and the progress line's cursor hiding, moves up and erasing
    styles_removed = re.sub(r"\x1b\[(?:[0-9;]*m|\?25[lh]|1A|2K)", "", ours)
    assert not re.search("[\x07\x08\x1b\u202e]", styles_removed), repr(ours)
    assert "ValueError: bad title \\x1b]0;pwned\\x07 and \\x1b[8mhidden\\x0d\\x08 \\u202eevil" in ours
    assert "banner = '\\x1b]0;pwned\\x07x'" in ours
    result = json.loads(report.read_text())
    assert result["dossier"]["exception"]["message"] == "bad title \x1b]0;pwned\x07 and \x1b[8mhidden\r\x08 \u202eevil"


# --- the user's own names and patterns (AUTODBG_REDACT) ----------------------------------------

USER_SECRETS = '''\
def bill(tenant_id, ticket):
    raise RuntimeError(f"cannot bill {tenant_id} for {ticket}")


bill("acme-corp-4411", "ACME-123456")
'''


def test_autodbg_redact_names_and_patterns(tmp_path, hooked):
    (tmp_path / "bill.py").write_text(USER_SECRETS)
    report = tmp_path / "report.json"
    env = hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_REPORT=str(report), AUTODBG_REDACT="tenant,re:ACME-[0-9]{6}",
                 AUTODBG_VERBOSE="1")
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "bill.py")], env=env)
    ours = autodbg_part(terminal)
    assert status == 1 and "RuntimeError: cannot bill <redacted> for <redacted>" in ours
    assert "tenant_id = <redacted str, 14 chars>" in ours
    for text in (ours, report.read_text()):
        assert "acme-corp" not in text and "123456" not in text


def test_a_bad_autodbg_redact_is_one_line(tmp_path, hooked):
    (tmp_path / "bill.py").write_text(USER_SECRETS)
    env = hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_REDACT="re:ACME-(")
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "bill.py")], env=env)
    ours = terminal[terminal.index("RuntimeError: cannot bill"):].splitlines()[1:]
    assert status == 1 and ("autodbg: AUTODBG_REDACT (the environment): redact pattern 're:ACME-(' is not a valid "
                            "regular expression: missing ), unterminated subpattern at position 5 (left out)") in ours[0]
    assert "autodbg · " in "\n".join(ours[1:])  # the pattern is left out; the evidence stays
