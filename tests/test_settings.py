"""Settings where people keep them: `[tool.autodbg]` in the nearest pyproject.toml and the user's
config file, the environment over both, and `autodbg status` saying where each came from."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autodbg.errors import AutodbgError
from autodbg.settings import load_settings, setting_sources
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
    (tmp_path / "pyproject.toml").write_text(PROJECT)
    (tmp_path / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "src" / "deep")  # the nearest pyproject.toml is two folders up
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def test_the_nearest_pyproject_sets_and_the_environment_overrides(project):
    settings = load_settings({"AUTODBG_TURNS": "2"})
    assert (settings.turns, settings.probe, settings.timeout) == (2, False, 25.0)
    assert settings.redact == ("tenant_id", "re:acme-[0-9a-f]{4,8}", "re:x\\x2cy")
    sources = setting_sources({"AUTODBG_TURNS": "2"})
    assert sources["AUTODBG_TURNS"].source == "the environment"
    assert sources["AUTODBG_PROBE"].source == str(project / "pyproject.toml")


def test_the_user_config_is_below_the_project(project):
    config = project / "config" / "autodbg"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[autodbg]\nmodel = "none"\nturns = 5\n')
    settings = load_settings({})
    assert settings.model == "none" and settings.turns == 1  # the project's turns win over the user's
    assert setting_sources({})["AUTODBG_MODEL"].source == str(config / "config.toml")


@pytest.mark.parametrize("text, message", [
    ("[tool.autodbg]\nturn = 1\n", "no setting 'turn'; the settings are: model, "),
    ("[tool.autodbg]\nturns = [1]\n", "turns must be a string, a number or true/false"),
    ("[tool.autodbg]\nturns = \n", "not valid TOML"),
    ("[tool.autodbg]\nturns = -1\n", "AUTODBG_TURNS must be at least 0, not -1"),
])
def test_a_bad_setting_is_one_line(project, text, message):
    (project / "pyproject.toml").write_text(text)
    with pytest.raises(AutodbgError, match="^.*" + message.replace("[", r"\[").replace("(", r"\(")) as caught:
        load_settings({})
    assert "\n" not in str(caught.value)


def test_status_says_where_each_setting_came_from(project):
    run = run_py(["-m", "autodbg", "status"], cwd=project / "src" / "deep",
                 env=clean_env(AUTODBG_TIMEOUT="40", XDG_CONFIG_HOME=str(project / "config")))
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in run.stdout.splitlines() if line.startswith("  AUTODBG")}
    assert rows["AUTODBG_TIMEOUT"] == ["40", "from the environment"]
    assert rows["AUTODBG_TURNS"] == ["1", f"from {project / 'pyproject.toml'}"]
    assert rows["AUTODBG_PROBE"] == ["0", f"from {project / 'pyproject.toml'}"]


def test_a_bad_project_setting_leaves_the_crash_its_traceback_and_one_line(project):
    (project / "pyproject.toml").write_text("[tool.autodbg]\nturns = 'many'\n")
    (project / "app.py").write_text("1 / 0\n")
    run = run_py([str(project / "app.py")], cwd=project, env=clean_env(AUTODBG="1", XDG_CONFIG_HOME=str(project / "c")))
    assert run.returncode == 1
    assert run.stderr.splitlines()[-2] == "ZeroDivisionError: division by zero"
    assert run.stderr.splitlines()[-1] == f"autodbg: AUTODBG_TURNS='many' is not a number (set in {project / 'pyproject.toml'})"


def test_status_into_a_closed_pipe_ends_quietly(project):
    """`autodbg status | head -1`: the reader left before autodbg wrote; no error, no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "autodbg", "status"], cwd=project, env=clean_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # long before the interpreter has started and imported autodbg
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and stderr == ""
