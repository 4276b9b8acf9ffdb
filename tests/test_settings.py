"""Settings where people keep them, and only where the user put them: the environment autodbg saw
at start-up over `[tool.autodbg]` of the nearest pyproject.toml (harmless settings only, unless the
user trusts that file as it is) over the user's config file; bad values are one-line warnings that
keep the evidence; `autodbg status` and `autodbg trust` say where each came from."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from autodbg.settings import DEFAULT_TIMEOUT, load_settings, setting_sources
from conftest import clean_env, run_py

PROJECT = '''\
[project]
name = "shop"

[tool.autodbg]
turns = 1
probe = false
timeout = 25
redact = ["tenant_id", "re:acme-[0-9a-f]{4,8}", "re:x,y"]
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project two folders up from where its program runs, and a private user config dir."""
    (tmp_path / "pyproject.toml").write_text(PROJECT)
    (tmp_path / "src" / "deep").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # platformdirs reads it at each call
    return tmp_path


def deep(project: Path) -> Path:
    return project / "src" / "deep"


def autodbg(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return run_py(["-m", "autodbg", *args], cwd=deep(project),
                  env=clean_env(XDG_CONFIG_HOME=str(project / "config"), **env))


def test_an_untrusted_project_sets_only_the_harmless_settings(project):
    settings = load_settings({}, cwd=deep(project))
    assert settings.turns == 1  # how much the model is asked: a project may say
    assert (settings.probe, settings.timeout, settings.redact) == (True, DEFAULT_TIMEOUT, ())
    assert settings.warnings == (f"{project / 'pyproject.toml'}: left out probe, timeout, redact: a project may set "
                                 f"only verbose, turns, debug, pytest unless you trust it (`autodbg trust {project}`)",)


def test_a_trusted_project_sets_everything_while_it_stays_as_trusted(project):
    done = autodbg(project, "trust", str(project))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (f"autodbg: trusted {project / 'pyproject.toml'}: its [tool.autodbg] may set every setting "
                           "while it stays as it is now (it sets turns, probe, timeout, redact)\n")
    settings = load_settings({"AUTODBG_TURNS": "2"}, cwd=deep(project))
    assert (settings.turns, settings.probe, settings.timeout) == (2, False, 25.0)  # the environment still wins
    assert settings.redact == ("tenant_id", "re:acme-[0-9a-f]{4,8}", "re:x\\x2cy")
    assert settings.warnings == ()
    sources = setting_sources({"AUTODBG_TURNS": "2"}, cwd=deep(project)).found
    assert sources["AUTODBG_TURNS"].source == "the environment"
    assert sources["AUTODBG_PROBE"].source == str(project / "pyproject.toml")
    assert autodbg(project, "trust", "--list").stdout == f"{project / 'pyproject.toml'}  as trusted\n"

    # Someone changes the table (a pull, a planted edit): trusted no more until trusted again.
    (project / "pyproject.toml").write_text(PROJECT.replace("timeout = 25", "timeout = 30"))
    settings = load_settings({}, cwd=deep(project))
    assert (settings.probe, settings.timeout) == (True, DEFAULT_TIMEOUT)
    assert settings.warnings == (f"{project / 'pyproject.toml'}: left out probe, timeout, redact: its [tool.autodbg] "
                                 f"changed since you trusted it (`autodbg trust {project}`)",)
    assert autodbg(project, "trust", "--list").stdout.endswith("  changed since you trusted it: only its harmless settings apply\n")

    assert autodbg(project, "trust", "--remove", str(project / "pyproject.toml")).stdout == \
        f"autodbg: no longer trusting {project / 'pyproject.toml'}\n"
    assert autodbg(project, "trust", "--list").stdout == "autodbg: no project is trusted\n"
    refused = autodbg(project, "trust", "--remove", str(project))
    assert (refused.returncode, refused.stderr) == (2, f"autodbg: {project / 'pyproject.toml'} is not trusted\n")


def test_trust_refuses_what_it_cannot_trust(project, tmp_path):
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "pyproject.toml").write_text("[project]\nname = 'bare'\n")
    for path, message in [(tmp_path / "bare", f"{tmp_path / 'bare' / 'pyproject.toml'} has no [tool.autodbg] table to trust"),
                          (tmp_path / "nowhere", f"no {tmp_path / 'nowhere' / 'pyproject.toml'}")]:
        done = autodbg(project, "trust", str(path))
        assert (done.returncode, done.stderr) == (2, f"autodbg: {message}\n")
    done = autodbg(project, "trust")
    assert (done.returncode, done.stderr) == (2, "autodbg: autodbg trust needs one of: PATH, --list, --remove PATH\n")


def test_the_trust_file_others_may_write_trusts_nothing(project):
    assert autodbg(project, "trust", str(project)).returncode == 0
    trusted = project / "config" / "autodbg" / "trusted.json"
    trusted.chmod(0o666)
    settings = load_settings({}, cwd=deep(project))
    assert settings.timeout == DEFAULT_TIMEOUT
    assert settings.warnings[0] == f"{trusted} is writable by other users (mode 666): chmod 600 {trusted} (no project is trusted)"


def test_the_user_config_is_below_the_project(project):
    config = project / "config" / "autodbg"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[autodbg]\nmodel = "none"\nturns = 5\ntimeout = 40\n')
    settings = load_settings({}, cwd=deep(project))
    assert (settings.model, settings.turns, settings.timeout) == ("none", 1, 40.0)  # the project's turns win
    assert setting_sources({}, cwd=deep(project)).found["AUTODBG_MODEL"].source == str(config / "config.toml")


@pytest.mark.parametrize("value, expected", [
    *((word, True) for word in ("1", "true", "True", "YES", "on", " On ")),
    *((word, False) for word in ("0", "false", "FALSE", "no", "Off")),
])
def test_booleans_take_the_usual_words(tmp_path, value, expected):
    for variable, field in [("AUTODBG_VERBOSE", "verbose"), ("AUTODBG_PYTEST", "pytest"), ("AUTODBG_PROBE", "probe"),
                            ("AUTODBG_DOWNLOAD", "download"), ("AUTODBG_DEBUG", "debug")]:
        settings = load_settings({variable: value}, cwd=tmp_path)
        assert (getattr(settings, field), settings.warnings) == (expected, ()), variable


@pytest.mark.parametrize("environ, field, default, warning", [
    ({"AUTODBG_VERBOSE": "maybe"}, "verbose", False,
     "AUTODBG_VERBOSE='maybe' in the environment is not 1/true/yes/on or 0/false/no/off: using the default (off)"),
    ({"AUTODBG_PROBE": "2"}, "probe", True,
     "AUTODBG_PROBE='2' in the environment is not 1/true/yes/on or 0/false/no/off: using the default (on)"),
    ({"AUTODBG_DOWNLOAD": "please"}, "download", None,
     "AUTODBG_DOWNLOAD='please' in the environment is not 1/true/yes/on or 0/false/no/off: using the default (unset)"),
    ({"AUTODBG_TURNS": "many"}, "turns", 2, "AUTODBG_TURNS='many' in the environment is not a number: using the default (2)"),
    ({"AUTODBG_TURNS": "-1"}, "turns", 0, "AUTODBG_TURNS='-1' in the environment is less than 0: using 0"),
    ({"AUTODBG_TIMEOUT": "1e9"}, "timeout", 600.0, "AUTODBG_TIMEOUT='1e9' in the environment is more than 600: using 600"),
    ({"AUTODBG_TIMEOUT": "0"}, "timeout", 1.0, "AUTODBG_TIMEOUT='0' in the environment is less than 1: using 1"),
    ({"AUTODBG_TIMEOUT": "nan"}, "timeout", 60.0, "AUTODBG_TIMEOUT='nan' in the environment is not a number: using the default (60)"),
    ({"AUTODBG_ENGINE": "gpu"}, "remote", None, "AUTODBG_ENGINE='gpu' in the environment is not local or remote: using the default (local)"),
    ({"AUTODBG": "sometimes"}, "probe", True, "AUTODBG='sometimes' in the environment is not 1/true/yes/on or "
                                              "0/false/no/off: on only where `autodbg install` enabled it, in a terminal"),
])
def test_a_bad_value_is_a_warning_and_the_default_stands(tmp_path, environ, field, default, warning):
    settings = load_settings(environ, cwd=tmp_path)
    assert getattr(settings, field) == default
    assert settings.warnings == (warning,)


@pytest.mark.parametrize("text, warning", [
    ("[tool.autodbg]\nturn = 1\n", "pyproject.toml: no setting 'turn' (left out); the settings are: model, "),
    ("[tool.autodbg]\nturns = [1]\n", "pyproject.toml: turns must be a string, a number or true/false (left out)"),
    ("[tool.autodbg]\nturns = \n", "pyproject.toml: not valid TOML: "),
    ("[tool.autodbg]\nturns = 'many'\n", "turns = 'many' in "),
])
def test_a_bad_project_file_is_one_line_and_the_rest_stands(tmp_path, text, warning):
    (tmp_path / "pyproject.toml").write_text(text)
    settings = load_settings({"AUTODBG_TIMEOUT": "30"}, cwd=tmp_path)
    assert settings.timeout == 30.0 and settings.turns == 2
    assert len(settings.warnings) == 1 and warning in settings.warnings[0] and "\n" not in settings.warnings[0]


@pytest.mark.slow
def test_a_pattern_that_backtracks_is_left_out_quickly(tmp_path):
    started = time.monotonic()
    settings = load_settings({"AUTODBG_REDACT": r"tenant,re:(a+)+$,re:acme-[0-9]{6},re:(\w+\s?)*$,re:["}, cwd=tmp_path)
    assert time.monotonic() - started < 5  # each trial is cut at 1 s
    assert settings.redact == ("tenant", "re:acme-[0-9]{6}")
    assert [w.split(": pattern ")[1] if ": pattern " in w else w for w in settings.warnings] == [
        "'re:(a+)+$' took more than 1 s over a trial text (it backtracks catastrophically) (left out)",
        "'re:(\\\\w+\\\\s?)*$' took more than 1 s over a trial text (it backtracks catastrophically) (left out)",
        "AUTODBG_REDACT (the environment): redact pattern 're:[' is not a valid regular expression: "
        "unterminated character set at position 0 (left out)",
    ]


def test_status_says_where_each_setting_came_from(project):
    run = autodbg(project, "status", AUTODBG_TIMEOUT="40", AUTODBG_VERBOSE="sure")
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in run.stdout.splitlines() if line.startswith("  AUTODBG")}
    assert rows["AUTODBG_TIMEOUT"] == ["40", "from the environment"]
    assert rows["AUTODBG_TURNS"] == ["1", f"from {project / 'pyproject.toml'}"]
    assert "AUTODBG_PROBE" not in rows  # the project may not set it
    warnings = [line.split(None, 1)[1] for line in run.stdout.splitlines() if line.startswith("  warning")]
    assert warnings == [
        f"{project / 'pyproject.toml'}: left out probe, timeout, redact: a project may set only verbose, turns, "
        f"debug, pytest unless you trust it (`autodbg trust {project}`)",
        "AUTODBG_VERBOSE='sure' in the environment is not 1/true/yes/on or 0/false/no/off: using the default (off)"]


def test_a_bad_setting_leaves_the_crash_its_evidence_and_one_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.autodbg]\nturns = 'many'\n")
    (tmp_path / "app.py").write_text("n = 0\nprint(1 / n)\n")
    run = run_py([str(tmp_path / "app.py")], cwd=tmp_path,
                 env=clean_env(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE="nah", XDG_CONFIG_HOME=str(tmp_path / "c")))
    assert run.returncode == 1
    ours = run.stderr.split("ZeroDivisionError: division by zero\n", 1)[1].splitlines()
    assert ours[:2] == ["autodbg: AUTODBG_VERBOSE='nah' in the environment is not 1/true/yes/on or 0/false/no/off: "
                        "using the default (off)",
                        f"autodbg: turns = 'many' in {tmp_path / 'pyproject.toml'} is not a number: using the default (2)"]
    assert "n = 0" in "\n".join(ours[2:]) and "internal error" not in run.stderr  # the evidence stands


def test_status_into_a_closed_pipe_ends_quietly(project):
    """`autodbg status | head -1`: the reader left before autodbg wrote; no error, no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "autodbg", "status"], cwd=project, env=clean_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # long before the interpreter has started and imported autodbg
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and stderr == ""


# --- what a program's folder or the program itself cannot set ---------------------------------

class ModelServer:
    """An OpenAI-shaped server on 127.0.0.1 that records each request (path, Authorization) and
    answers 503, as a server still loading its model does: autodbg then gives the evidence only."""

    def __init__(self):
        self.requests: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests.append((self.path, self.headers.get("Authorization")))
                body = json.dumps({"error": {"message": "Loading model"}}).encode()
                self.send_response(503)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def crash(folder: Path, source: str, **env: str) -> subprocess.CompletedProcess:
    """SOURCE as a program in FOLDER crashing under the start-up hook, with a user config dir whose
    API key file holds the user's key."""
    config = folder / "config" / "autodbg"
    config.mkdir(parents=True, exist_ok=True)
    (config / "api_key").write_text("users-own-key-31337\n")
    (config / "api_key").chmod(0o600)
    (folder / "app.py").write_text(source)
    return run_py(["app.py"], cwd=folder, env=clean_env(**{"AUTODBG": "1", "AUTODBG_MODEL": "none", "COLUMNS": "250",
                                                           "XDG_CONFIG_HOME": str(folder / "config"), **env}))


def test_a_planted_project_file_cannot_send_the_evidence_anywhere(tmp_path):
    with ModelServer() as server:
        (tmp_path / "pyproject.toml").write_text(
            f'[tool.autodbg]\nengine = "remote"\nbase_url = "{server.url}"\nremote_model = "m"\n'
            f'report = "{tmp_path / "stolen.json"}"\nprobe = false\ntimeout = 1e9\nredact = ["re:(a+)+$"]\n')
        run = crash(tmp_path, "n = 0\nprint(1 / n)\n")
    assert server.requests == []
    assert not (tmp_path / "stolen.json").exists()
    assert f"autodbg: {tmp_path / 'pyproject.toml'}: left out engine, base_url, remote_model, report, probe, " \
           f"timeout, redact: a project may set only verbose, turns, debug, pytest unless you trust it" in run.stderr
    assert "autodbg: evidence only (AUTODBG_MODEL=none)" in run.stderr


def test_what_the_program_puts_in_its_environment_sets_nothing(tmp_path):
    planting = ("import os\n"
                f"os.environ.update(AUTODBG_ENGINE='remote', AUTODBG_BASE_URL={{url!r}}, AUTODBG_REMOTE_MODEL='m',\n"
                f"                  AUTODBG_REPORT={str(tmp_path / 'stolen.json')!r}, AUTODBG_PROBE='0', AUTODBG='0')\n"
                "n = 0\nprint(1 / n)\n")  # as a program that loads a .env does
    with ModelServer() as server:
        run = crash(tmp_path, planting.format(url=server.url))
    assert server.requests == [] and not (tmp_path / "stolen.json").exists()
    assert "autodbg · " in run.stderr and "evidence only (AUTODBG_MODEL=none)" in run.stderr


@pytest.mark.slow
def test_the_api_key_goes_only_to_a_server_you_named(tmp_path):
    with ModelServer() as server:
        (tmp_path / "pyproject.toml").write_text(f'[tool.autodbg]\nengine = "remote"\nbase_url = "{server.url}"\n'
                                                 'remote_model = "m"\n')
        env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
        assert run_py(["-m", "autodbg", "trust", str(tmp_path)], cwd=tmp_path, env=clean_env(**env)).returncode == 0
        trusted = crash(tmp_path, "print(1 / 0)\n", AUTODBG_MODEL="")
        yours = crash(tmp_path, "print(1 / 0)\n", AUTODBG_MODEL="", AUTODBG_BASE_URL=server.url)
    assert [auth for _, auth in server.requests] == [None, "Bearer users-own-key-31337"]
    assert (f"autodbg: the API key is not sent to {server.url}: that server is named in {tmp_path / 'pyproject.toml'}, "
            "not in your environment or config file") in trusted.stderr
    for run in (trusted, yours):
        assert f"evidence only (model server {server.url}: HTTP 503 for /v1/models: Loading model)" in run.stderr
