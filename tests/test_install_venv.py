"""autodbg installed from a built wheel into real virtual environments, end to end.

Each venv sees this test runner's site-packages through a path line in a .pth file, so
llama-cpp-python and the rest are reused, never rebuilt (and the .pth files over there do not run).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from autodbg.llm.registry import default_model_id
from conftest import REPO, clean_env, run_in_terminal

pytestmark = pytest.mark.slow

CRASH = "def divide(a, b):\n    return a / b\n\ndivide(1, 0)\n"
RUNNER_SITE = sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})

# A sitecustomize.py that replaces sys.excepthook without chaining, as some tools' do.
REPLACING_SITECUSTOMIZE = """\
import sys
def _hook(*exc_info):
    print("{name}", file=sys.stderr)
    sys.__excepthook__(*exc_info)
sys.excepthook = _hook
"""


def make_venv(path: Path) -> SimpleNamespace:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    purelib = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "_test_runner_site.pth").write_text("\n".join(RUNNER_SITE) + "\n")
    return SimpleNamespace(root=path, python=str(python), purelib=purelib,
                           autodbg=str(path / "bin" / "autodbg"))


def install_wheel(venv: SimpleNamespace, wheel: Path) -> None:
    done = subprocess.run([venv.python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
                          capture_output=True, text=True, env=venv_env())
    assert done.returncode == 0, done.stderr


def venv_env(**overrides: str) -> dict[str, str]:
    env = clean_env()
    del env["PYTHONPATH"]  # the venv's own autodbg, not this checkout
    env.pop("VIRTUAL_ENV", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # sitecustomize.py is rewritten within a second: no stale .pyc
    env.update(overrides)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           "-w", str(out), str(REPO)], capture_output=True, text=True)
    assert done.returncode == 0, f"building the wheel needs hatchling (./install.sh --dev):\n{done.stderr}"
    return next(out.glob("autodbg-*.whl"))


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """Empty model caches: no test sees (or fills) the machine's."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def v(tmp_path_factory, wheel, cache) -> SimpleNamespace:
    """A venv with autodbg installed."""
    venv = make_venv(tmp_path_factory.mktemp("v") / "venv")
    install_wheel(venv, wheel)
    venv.env = lambda **env: venv_env(XDG_CACHE_HOME=str(cache), HF_HOME=str(cache / "hf"), **env)
    return venv


@pytest.fixture(scope="module")
def w(tmp_path_factory) -> SimpleNamespace:
    """A venv without autodbg: the baseline."""
    return make_venv(tmp_path_factory.mktemp("w") / "venv")


@pytest.fixture
def crash_script(tmp_path) -> str:
    path = tmp_path / "crash.py"
    path.write_text(CRASH)
    return str(path)


def run(python: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    # From python's own directory: `-c` puts the current one on sys.path, and the checkout's autodbg
    # must not stand in for the installed one.
    return subprocess.run([python, *args], env=env, capture_output=True, text=True, timeout=120,
                          cwd=Path(python).parent)


def autodbg(venv, *args: str, **env: str) -> subprocess.CompletedProcess:
    return run(venv.autodbg, *args, env=venv.env(**env))


def status_rows(text: str) -> dict[str, list[str]]:
    rows = (re.split(r" {2,}", line.strip(), maxsplit=2) for line in text.splitlines())
    return {row[0]: row[1:] for row in rows}


def test_the_wheel_ships_the_hook_files(wheel):
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("autodbg.pth") == (REPO / "autodbg/_hook/autodbg.pth").read_bytes()
        assert archive.read("autodbg.start") == (REPO / "autodbg/_hook/autodbg.start").read_bytes()
        # In the checkout this is a symlink to the template; the wheel must hold the text itself.
        assert (archive.read("autodbg/_hook/sitecustomize.py")
                == (REPO / "sitecustomize_template/sitecustomize.py").read_bytes())


def test_install_enables_the_hook_and_says_how_to_undo(v):
    assert autodbg(v, "uninstall").returncode == 0
    done = autodbg(v, "install")
    assert (done.returncode, done.stderr) == (0, "")
    assert (v.root / "autodbg.enabled").is_file()
    assert "autodbg uninstall" in done.stdout
    assert f"autodbg model pull {default_model_id()}" in done.stdout  # no terminal: a hint, no question
    assert autodbg(v, "install").returncode == 0


def test_crash_prints_the_usual_traceback_then_autodbg(v, w, crash_script):
    autodbg(v, "install")
    plain = run(w.python, crash_script, env=venv_env())
    hooked = run(v.python, crash_script, env=v.env(AUTODBG="1", AUTODBG_MODEL="none"))
    assert plain.returncode == hooked.returncode == 1
    assert plain.stderr.startswith("Traceback") and hooked.stderr.startswith(plain.stderr)
    ours = hooked.stderr[len(plain.stderr):]
    assert "autodbg" in ours.splitlines()[0] and "internal error" not in ours


def test_autodbg_0_is_byte_identical_to_a_venv_without_autodbg(v, w, crash_script):
    autodbg(v, "install")
    plain = run(w.python, crash_script, env=venv_env())
    off = run(v.python, crash_script, env=v.env(AUTODBG="0", AUTODBG_MODEL="none"))
    assert (off.returncode, off.stdout, off.stderr) == (plain.returncode, plain.stdout, plain.stderr)


def test_in_a_terminal_it_runs_by_itself_but_not_in_ci_nor_after_uninstall(v, crash_script):
    autodbg(v, "install")
    status, _, terminal = run_in_terminal([v.python, crash_script], env=v.env(AUTODBG_MODEL="none"))
    assert status == 1 and "ZeroDivisionError" in terminal and "autodbg" in terminal
    status, _, terminal = run_in_terminal([v.python, crash_script],
                                          env=v.env(AUTODBG_MODEL="none", CI="true"))
    assert status == 1 and "ZeroDivisionError" in terminal and "autodbg" not in terminal
    assert autodbg(v, "uninstall").returncode == 0
    status, _, terminal = run_in_terminal([v.python, crash_script], env=v.env(AUTODBG_MODEL="none"))
    assert status == 1 and "ZeroDivisionError" in terminal and "autodbg" not in terminal


def test_status_explains_itself(v):
    autodbg(v, "install")
    done = autodbg(v, "status", AUTODBG="1")
    assert done.stdout.startswith(f"autodbg in {v.root} ({v.python})\n")
    rows = status_rows(done.stdout)
    assert rows["installed"][0] == "yes"
    assert rows["enabled"][0] == "yes"
    assert rows["start-up hook"][0] == "ran"
    assert rows["on a crash"] == ["investigate", "AUTODBG=1 forces it"]
    assert rows["model"][0] == default_model_id()
    rows = status_rows(autodbg(v, "status", CI="true", AUTODBG_MODEL="none").stdout)
    assert rows["enabled"][0] == "yes"
    assert rows["on a crash"] == ["traceback only", "CI is set, so this is CI (AUTODBG=1 forces it)"]
    assert rows["model"][0] == "none"
    status, stdout, _ = run_in_terminal([v.autodbg, "status"], env=v.env())
    assert status_rows(stdout)["on a crash"][0] == "investigate"
    autodbg(v, "uninstall")
    rows = status_rows(autodbg(v, "status").stdout)
    assert rows["enabled"][0] == "no" and "on a crash" not in rows


def test_the_pth_runs_twice_but_hooks_once(v):
    count = ("import sys, threading\n"
             "def count(hook):\n"
             "    n = 0\n"
             "    while getattr(hook, '_autodbg', False):\n"
             "        n, hook = n + 1, hook.__wrapped__\n"
             "    return n\n"
             "print(count(sys.excepthook), count(threading.excepthook))\n")
    done = run(v.python, "-c", count, env=v.env(AUTODBG="1"))
    assert (done.stdout, done.stderr) == ("1 1\n", "")


def test_isolated_no_site_and_dash_c(v, w, crash_script):
    env = v.env(AUTODBG="1", AUTODBG_MODEL="none")
    plain = run(w.python, crash_script, env=venv_env())
    # -I still runs .pth files, and AUTODBG is not a PYTHON* variable that -I ignores.
    isolated = run(v.python, "-I", crash_script, env=env)
    assert isolated.returncode == 1 and isolated.stderr.startswith(plain.stderr)
    assert "autodbg" in isolated.stderr[len(plain.stderr):]
    no_site = run(v.python, "-S", crash_script, env=env)  # no site, no hook
    plain_no_site = run(w.python, "-S", crash_script, env=venv_env())
    assert (no_site.returncode, no_site.stderr) == (plain_no_site.returncode, plain_no_site.stderr)
    dash_c = run(v.python, "-c", "1 / 0", env=env)
    assert dash_c.returncode == 1 and dash_c.stderr.startswith("Traceback")
    assert "autodbg" in dash_c.stderr.split("ZeroDivisionError: division by zero\n", 1)[1]


def test_in_a_terminal_install_asks_before_downloading(v, cache):
    status, _, terminal = run_in_terminal([v.autodbg, "install"], env=v.env(), typed="n\n")
    assert status == 0
    assert f"Download {default_model_id()} (1.1 GB) to {cache / 'hf' / 'hub'} now? [Y/n]" in terminal
    assert f"later, `autodbg model pull {default_model_id()}` downloads it" in terminal
    status, _, terminal = run_in_terminal([v.autodbg, "install"], env=v.env(AUTODBG_DOWNLOAD="0"), typed="")
    assert status == 0 and "[Y/n]" not in terminal
    assert f"autodbg model pull {default_model_id()}" in terminal


def test_sitecustomize_runs_the_venvs_own_first_and_uninstall_restores_it(v, w, crash_script):
    own = v.purelib / "sitecustomize.py"
    kept = v.purelib / "_autodbg_prev_sitecustomize.py"
    own_text = REPLACING_SITECUSTOMIZE.format(name="VENV'S OWN HOOK")
    own.write_text(own_text)
    env = v.env(AUTODBG="1", AUTODBG_MODEL="none")
    traceback = run(w.python, crash_script, env=venv_env()).stderr
    try:
        autodbg(v, "install")
        # The venv's sitecustomize runs after autodbg.pth and replaces its hook: why the option exists.
        assert run(v.python, crash_script, env=env).stderr == "VENV'S OWN HOOK\n" + traceback
        done = autodbg(v, "install", "--sitecustomize")
        assert done.returncode == 0, done.stderr
        assert kept.read_text() == own_text
        assert autodbg(v, "install", "--sitecustomize").returncode == 0  # again: still one kept copy
        assert kept.read_text() == own_text
        hooked = run(v.python, crash_script, env=env)
        assert hooked.returncode == 1
        assert hooked.stderr.startswith("VENV'S OWN HOOK\n" + traceback)
        assert "autodbg" in hooked.stderr[len("VENV'S OWN HOOK\n" + traceback):]
        assert status_rows(autodbg(v, "status").stdout)["sitecustomize"][0] == "yes"
        assert autodbg(v, "uninstall").returncode == 0
        assert own.read_text() == own_text and not kept.exists()
    finally:
        own.unlink(missing_ok=True)
        kept.unlink(missing_ok=True)


def test_sitecustomize_runs_the_next_one_on_sys_path(v, w, crash_script, tmp_path):
    later_dir = tmp_path / "later"
    later_dir.mkdir()
    (later_dir / "sitecustomize.py").write_text(REPLACING_SITECUSTOMIZE.format(name="LATER ON PATH HOOK"))
    path_line = v.purelib / "_test_later_dir.pth"  # puts later_dir after the venv's site-packages
    path_line.write_text(f"{later_dir}\n")
    env = v.env(AUTODBG="1", AUTODBG_MODEL="none")
    traceback = run(w.python, crash_script, env=venv_env()).stderr
    try:
        autodbg(v, "install")
        assert run(v.python, crash_script, env=env).stderr == "LATER ON PATH HOOK\n" + traceback
        assert autodbg(v, "install", "--sitecustomize").returncode == 0
        assert not (v.purelib / "_autodbg_prev_sitecustomize.py").exists()
        hooked = run(v.python, crash_script, env=env)
        assert hooked.stderr.startswith("LATER ON PATH HOOK\n" + traceback)
        assert "autodbg" in hooked.stderr[len("LATER ON PATH HOOK\n" + traceback):]
    finally:
        autodbg(v, "uninstall")
        path_line.unlink()
    assert not (v.purelib / "sitecustomize.py").exists()


def test_sitecustomize_refused_where_another_one_comes_first(v, tmp_path):
    (tmp_path / "sitecustomize.py").write_text("")
    done = autodbg(v, "install", "--sitecustomize", PYTHONPATH=str(tmp_path))
    assert done.returncode == 2
    assert done.stderr == (f"autodbg: Python there imports {tmp_path}/sitecustomize.py instead of "
                           f"{v.purelib}/sitecustomize.py, so --sitecustomize cannot work in this venv "
                           "(the .pth hook still does)\n")
    assert not (v.purelib / "sitecustomize.py").exists()


def test_refuses_a_python_that_is_not_a_venv(v, w, tmp_path):
    base_python = str(Path(sys.base_prefix) / "bin" / "python3")
    # The runner's packages come by PYTHONPATH here, as this is no venv to put a path line in.
    env = clean_env(PYTHONPATH=":".join([str(REPO), *RUNNER_SITE]))
    marker = Path(sys.base_prefix) / "autodbg.enabled"
    assert not marker.exists()
    try:
        done = run(base_python, "-m", "autodbg", "install", env=env)
    finally:
        enabled_the_system_python = marker.exists()
        marker.unlink(missing_ok=True)  # had the refusal failed, leave no hook behind
    assert not enabled_the_system_python
    assert (done.returncode, done.stdout) == (2, "")
    assert re.fullmatch(r"autodbg: no virtual environment is active: .*\n", done.stderr)
    done = autodbg(v, "install", "--venv", str(tmp_path))
    assert done.returncode == 2 and done.stderr == f"autodbg: {tmp_path} is not a virtual environment: " \
                                                   f"there is no {tmp_path}/bin/python\n"
    done = autodbg(v, "install", "--venv", str(w.root))
    assert done.returncode == 2
    assert done.stderr.startswith(f"autodbg: autodbg is not installed in {w.root} ")
    assert not (w.root / "autodbg.enabled").exists()


def test_venv_flag_works_from_outside(v):
    base_python = str(Path(sys.base_prefix) / "bin" / "python3")
    env = clean_env(PYTHONPATH=":".join([str(REPO), *RUNNER_SITE]), AUTODBG="1", AUTODBG_MODEL="none")
    autodbg(v, "uninstall")
    done = run(base_python, "-m", "autodbg", "install", "--venv", str(v.root), env=env)
    assert (done.returncode, done.stderr) == (0, "")
    assert (v.root / "autodbg.enabled").is_file() and f"autodbg uninstall --venv {v.root}" in done.stdout
    rows = status_rows(run(base_python, "-m", "autodbg", "status", "--venv", str(v.root), env=env).stdout)
    assert rows["enabled"][0] == "yes" and rows["start-up hook"][0] == "ran"
    done = run(base_python, "-m", "autodbg", "uninstall", "--venv", str(v.root), env=env)
    assert done.returncode == 0 and not (v.root / "autodbg.enabled").exists()
    again = run(base_python, "-m", "autodbg", "uninstall", "--venv", str(v.root), env=env)
    assert again.returncode == 0 and "nothing to do" in again.stdout


def test_removing_autodbg_leaves_a_quiet_interpreter(tmp_path, wheel, w, crash_script):
    u = make_venv(tmp_path / "venv")
    install_wheel(u, wheel)
    assert run(u.autodbg, "install", env=venv_env(AUTODBG_MODEL="none")).returncode == 0
    env = venv_env(AUTODBG="1", AUTODBG_MODEL="none")
    plain = run(w.python, crash_script, env=venv_env())

    shutil.rmtree(u.purelib / "autodbg")  # half removed: autodbg.pth is still there
    assert run(u.python, "-c", "import autodbg", env=env).returncode == 1  # (not the runner's either)
    assert (u.purelib / "autodbg.pth").exists()
    assert run(u.python, "-c", "pass", env=env).stderr == ""
    assert run(u.python, crash_script, env=env).stderr == plain.stderr

    done = run(u.python, "-m", "pip", "uninstall", "-y", "-q", "autodbg", env=env)
    assert done.returncode == 0, done.stderr
    assert not (u.purelib / "autodbg.pth").exists() and not (u.purelib / "autodbg.start").exists()
    assert run(u.python, "-c", "pass", env=env).stderr == ""
    assert run(u.python, crash_script, env=env).stderr == plain.stderr
