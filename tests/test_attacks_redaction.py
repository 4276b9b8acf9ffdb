"""Redaction attacks: each a real crashing program under the installed hook (AUTODBG_MODEL=none, a
JSON report), planting a known secret in a form that leaked before; no 6-character piece of the
secret (in that form) may reach the terminal or the report, and the report is always written."""

from __future__ import annotations

import base64
import codecs
import json
import sys

import pytest

from conftest import run_in_terminal

SECRET = "Zq8rT4mWx1Lk9v"


def pieces(form: str) -> set[str]:
    return {form[i:i + 6] for i in range(len(form) - 5)}


def crash(tmp_path, hooked, program: str) -> tuple[str, str]:
    """PROGRAM run under the hook: (what autodbg printed, the JSON report)."""
    (tmp_path / "victim.py").write_text(program)
    report = tmp_path / "report.json"
    env = hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE="1", AUTODBG_REPORT=str(report))
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "victim.py")], env=env)
    assert status == 1
    start = terminal.index("autodbg · evidence")
    ours = terminal[terminal.rfind("\n", 0, start) + 1:]
    assert "internal error" not in ours, ours
    assert report.exists(), ours
    json.loads(report.read_text())
    return ours, report.read_text()


# A password holding a record's field name or a vocabulary word once made scrubbing rename the
# record's keys: "autodbg: internal error", no evidence, no report.
@pytest.mark.slow
@pytest.mark.parametrize("password", ["MyFunction2024!", "exceptional-99x", "passes4ever!", "display_file9", "ok"])
def test_a_password_holding_a_field_name_keeps_the_report(tmp_path, hooked, password):
    ours, report = crash(tmp_path, hooked, f'''\
def login(user):
    password = "{password}"
    raise ValueError("login failed for " + user)


login("bob")
''')
    assert "ValueError: login failed for bob" in ours and "password = <redacted str" in ours
    assert json.loads(report)["dossier"]["frames"][0]["function"] in ("login", "<redacted>")


ENCODED = {
    "base64": ("base64.b64encode(password.encode()).decode()", base64.b64encode(SECRET.encode()).decode()),
    "base64 of user:password": ('base64.b64encode(b"admin:" + password.encode()).decode()',
                                base64.b64encode(b"admin:" + SECRET.encode()).decode()[8:]),
    "urlsafe base64, one byte in": ('base64.urlsafe_b64encode(b"x" + password.encode()).decode()',
                                    base64.urlsafe_b64encode(b"x" + SECRET.encode()).decode()[2:]),
    "rot13": ('codecs.encode(password, "rot13")', codecs.encode(SECRET, "rot13")),
    "url-quoted": ('urllib.parse.quote(password[:5] + "!@#" + password[5:], safe="")', SECRET),
    "hex": ("password.encode().hex()", SECRET.encode().hex()),
}


@pytest.mark.parametrize("encoding", ENCODED)
def test_an_encoded_secret_is_redacted(tmp_path, hooked, encoding):
    expression, shown = ENCODED[encoding]
    ours, report = crash(tmp_path, hooked, f'''\
import base64, codecs, urllib.parse


def send(password):
    wire = {expression}
    raise ConnectionError("server refused " + wire)


send("{SECRET}")
''')
    assert "ConnectionError: server refused " in ours and "<redacted>" in ours
    for text in (ours, report):
        assert not [p for p in pieces(shown) | pieces(SECRET) if p in text], encoding


def test_a_view_that_fails_is_one_line_and_the_rest_still_prints():
    from io import StringIO

    from rich.console import Console

    from autodbg.pipeline import show
    from autodbg.redact import Redactor

    class Session:
        redactor = Redactor()

    Session.redactor.learn("password", SECRET)
    out = StringIO()
    console = Console(file=out, width=100, color_system=None)

    def failing():
        raise KeyError(f"\x1b[2J{SECRET}")

    show(console, "evidence", failing, Session)
    show(console, "search for a fix", lambda: "the next view", Session)
    assert out.getvalue().splitlines() == ["autodbg: the evidence could not be shown (KeyError: '\\x1b[2J<redacted>')",
                                           "the next view"]


# The other way: a secret's piece inside the program's own names once redacted them
# (`def print_results` → `def <redacted>`, `secret_crash.py` → `<redacted>_crash.py`).
def test_the_programs_own_names_are_kept_where_a_secret_holds_them(tmp_path, hooked):
    (tmp_path / "secret_crash.py").write_text('''\
def print_results(results):
    return results["total"]


def main():
    password = "print_results99"
    api_key = "secret_crash_2024"
    print_results({"count": 1, "key": api_key[-4:]})


main()
''')
    report = tmp_path / "report.json"
    env = hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE="1", AUTODBG_REPORT=str(report))
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "secret_crash.py")], env=env)
    assert status == 1
    ours = terminal[terminal.index("autodbg · evidence"):]
    assert "secret_crash.py" in ours and "print_results(" in ours, ours
    for text in (ours, report.read_text()):
        assert "print_results99" not in text and "secret_crash_2024" not in text
        assert "<redacted>_crash" not in text and "def <redacted>" not in text


# A secret used as a dict key was never learned: shown under another name it leaked.
def test_a_secret_used_as_a_dict_key_is_redacted_under_any_name(tmp_path, hooked):
    ours, report = crash(tmp_path, hooked, f'''\
def owner_of(table, user):
    return table[user]


api_keys = {{"{SECRET}": "ci-bot"}}
print(owner_of(api_keys, "bob"))
''')
    assert "KeyError: 'bob'" in ours and "table" in ours
    for text in (ours, report):
        assert not pieces(SECRET.lower()) & pieces(text.lower().replace(" ", ""))
