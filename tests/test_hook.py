"""The start-up hook (_autodbg_hook, then autodbg._boot at a crash), in real interpreters that crash for real.

The hook is installed the way autodbg.pth does it: the .pth file's own line, run at start-up as a
sitecustomize (a PYTHONPATH directory is not a site directory, so a .pth there would not run).
"""

from __future__ import annotations

import json
import os
import shutil
import pkgutil
import subprocess
import sys
import sysconfig

import pytest

import _autodbg_hook
from autodbg import _boot, startup
from conftest import REPO, clean_env, run_in_terminal, run_py

CRASH = "def divide(a, b):\n    return a / b\n\ndivide(1, 0)\n"

# Programs that replace autodbg.pipeline inside the crashing process itself: the thing under test is
# the hook's wiring and _boot's guard, and these stand in for a crash handler that reports or breaks.
REPORTING_HANDLER = """\
import sys, types
def handle_crash(exc, thread_name=None):
    print("HANDLED", type(exc).__name__, thread_name, file=sys.stderr)
crash = types.ModuleType("autodbg.pipeline")
crash.handle_crash = handle_crash
sys.modules["autodbg.pipeline"] = crash
"""
BROKEN_HANDLER = """\
import sys, types
def handle_crash(exc, thread_name=None):
    raise RuntimeError("handler broke\\non two lines")
crash = types.ModuleType("autodbg.pipeline")
crash.handle_crash = handle_crash
sys.modules["autodbg.pipeline"] = crash
"""
UNIMPORTABLE_HANDLER = """\
import sys
sys.modules["autodbg.pipeline"] = None  # as when autodbg's files are half removed: import fails
"""
INTERRUPTED_HANDLER = """\
import sys, types
def handle_crash(exc, thread_name=None):
    raise KeyboardInterrupt
crash = types.ModuleType("autodbg.pipeline")
crash.handle_crash = handle_crash
sys.modules["autodbg.pipeline"] = crash
"""
# Counts our hooks: each one records the hook it wraps in __wrapped__.
COUNT_HOOKS = """
def count(hook):
    n = 0
    while getattr(hook, "_autodbg", False):
        n, hook = n + 1, hook.__wrapped__
    return n
"""


@pytest.fixture
def crash_script(tmp_path):
    path = tmp_path / "crash.py"
    path.write_text(CRASH)
    return str(path)


def test_traceback_comes_first_unchanged_then_autodbg(hooked, crash_script):
    plain = run_py([crash_script], env=clean_env())
    run = run_py([crash_script], env=hooked(AUTODBG="1", AUTODBG_MODEL="none"))
    assert plain.returncode == run.returncode == 1
    assert plain.stderr.startswith("Traceback") and "ZeroDivisionError" in plain.stderr
    assert run.stderr.startswith(plain.stderr)
    ours = run.stderr[len(plain.stderr):]
    assert "autodbg" in ours.splitlines()[0]
    assert "autodbg: internal error" not in ours


@pytest.mark.parametrize("off", ["0", "off", "False"])
def test_autodbg_0_leaves_stderr_byte_identical(hooked, crash_script, off):
    plain = run_py([crash_script], env=clean_env())
    off = run_py([crash_script], env=hooked(AUTODBG=off, AUTODBG_MODEL="none"))
    assert (off.returncode, off.stdout, off.stderr) == (plain.returncode, plain.stdout, plain.stderr)


def test_previous_excepthook_runs_first(tmp_path):
    program = (REPORTING_HANDLER + "def user_hook(*exc_info): print('USER HOOK', file=sys.stderr)\n"
               "sys.excepthook = user_hook\n"
               "import _autodbg_hook; _autodbg_hook.install()\n"
               "raise ValueError('boom')\n")
    run = run_py(["-c", program], env=clean_env(AUTODBG="1"))
    assert run.returncode == 1
    assert run.stderr.splitlines() == ["USER HOOK", "HANDLED ValueError None"]


@pytest.mark.parametrize("handler, our_line", [
    (BROKEN_HANDLER, "autodbg: internal error: RuntimeError: handler broke on two lines"),
    (UNIMPORTABLE_HANDLER, "autodbg: internal error: ModuleNotFoundError: "
                           "import of autodbg.pipeline halted; None in sys.modules"),
])
def test_a_failing_handler_adds_exactly_one_line(tmp_path, handler, our_line):
    script = tmp_path / "prog.py"
    script.write_text(handler + "import _autodbg_hook; _autodbg_hook.install()\n" + CRASH)
    off = run_py([str(script)], env=clean_env(AUTODBG="0"))  # the same program, hook not installed
    run = run_py([str(script)], env=clean_env(AUTODBG="1"))
    assert off.returncode == run.returncode == 1
    assert off.stderr.startswith("Traceback")
    assert run.stderr == off.stderr + our_line + "\n"


def test_ctrl_c_inside_the_handler_adds_nothing(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(INTERRUPTED_HANDLER + "import _autodbg_hook; _autodbg_hook.install()\n" + CRASH)
    off = run_py([str(script)], env=clean_env(AUTODBG="0"))
    run = run_py([str(script)], env=clean_env(AUTODBG="1"))
    assert (run.returncode, run.stderr) == (off.returncode, off.stderr) == (1, off.stderr)


@pytest.mark.parametrize("statement", ["raise KeyboardInterrupt", "raise SystemExit('bye')",
                                       "raise GeneratorExit"])
def test_exits_and_interrupts_are_not_crashes(hooked, tmp_path, statement):
    script = tmp_path / "prog.py"
    script.write_text(statement + "\n")
    plain = run_py([str(script)], env=clean_env())
    run = run_py([str(script)], env=hooked(AUTODBG="1", AUTODBG_MODEL="none"))
    assert (run.returncode, run.stderr) == (plain.returncode, plain.stderr)
    assert plain.stderr  # each of them prints something; the hook must add nothing


def test_installing_again_keeps_one_hook(hooked):
    program = (COUNT_HOOKS + "import sys, _autodbg_hook as b\n"
               "b.install(); b.install()\n"
               "import threading\n"
               "print(count(sys.excepthook), count(threading.excepthook))\n")
    run = run_py(["-c", program], env=hooked(AUTODBG="1"))  # start-up installed it once already
    assert (run.returncode, run.stdout, run.stderr) == (0, "1 1\n", "")


def test_a_hook_installed_over_ours_is_wrapped_again_but_investigates_once():
    # What autodbg's sitecustomize meets when a tool's hook replaced ours after autodbg.pth ran.
    program = (REPORTING_HANDLER + COUNT_HOOKS + "import _autodbg_hook as b\n"
               "b.install()\n"
               "ours = sys.excepthook\n"
               "def tool_hook(*exc_info):\n"
               "    print('TOOL', file=sys.stderr)\n"
               "    ours(*exc_info)\n"
               "sys.excepthook = tool_hook\n"
               "b.install()\n"
               "print(count(sys.excepthook), file=sys.stderr)\n"
               "raise ValueError('boom')\n")
    run = run_py(["-c", program], env=clean_env(AUTODBG="1"))
    lines = run.stderr.splitlines()
    assert run.returncode == 1
    assert lines[:2] == ["1", "TOOL"]
    assert lines.count("HANDLED ValueError None") == 1
    assert lines[-1] == "HANDLED ValueError None"


@pytest.mark.slow
@pytest.mark.parametrize("threading_first", [True, False], ids=["threading-loaded", "threading-later"])
def test_thread_crash_gets_evidence_after_the_usual_message(threading_first):
    install = "import _autodbg_hook; _autodbg_hook.install()\n"
    program = ("import sys\n"
               + ("import threading\n" + install if threading_first else
                  install + "assert 'threading' not in sys.modules\nimport threading\n")
               + "t = threading.Thread(target=lambda: 1 / 0, name='worker')\n"
               + "t.start(); t.join()\nprint('main goes on')\n")
    # -S: nothing loaded at start-up, so the test decides whether threading comes before install().
    # The runner's site-packages go on PYTHONPATH instead, for the crash handler's imports.
    path = os.pathsep.join([str(REPO), *{sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}])
    off = run_py(["-S", "-c", program], env=clean_env(AUTODBG="0", PYTHONPATH=path))
    run = run_py(["-S", "-c", program], env=clean_env(AUTODBG="1", AUTODBG_MODEL="none", PYTHONPATH=path))
    assert off.stderr.startswith("Exception in thread worker")
    assert (run.returncode, run.stdout) == (off.returncode, off.stdout) == (0, "main goes on\n")
    assert run.stderr.startswith(off.stderr)
    ours = run.stderr[len(off.stderr):]
    assert "autodbg" in ours.splitlines()[0]
    assert "autodbg: internal error" not in ours


def _interpreters():
    """Every supported Python on PATH (python3.10 ... python3.13), and this one."""
    found = {os.path.realpath(sys.executable): sys.executable}
    for minor in range(10, 14):
        path = shutil.which(f"python3.{minor}")
        if path and subprocess.run([path, "-c", "pass"], capture_output=True).returncode == 0:
            found.setdefault(os.path.realpath(path), path)
    return sorted(found.values())


@pytest.mark.parametrize("python", _interpreters())
def test_thread_hook_and_thread_name_on_each_python(python):
    program = (REPORTING_HANDLER + "import _autodbg_hook; _autodbg_hook.install()\n"
               "import threading\n"
               "t = threading.Thread(target=lambda: 1 / 0, name='worker'); t.start(); t.join()\n")
    done = subprocess.run([python, "-S", "-c", program], env=clean_env(AUTODBG="1"),
                          capture_output=True, text=True, timeout=60)
    lines = done.stderr.splitlines()
    assert done.returncode == 0
    assert lines[0] == "Exception in thread worker:"
    assert lines[-1] == "HANDLED ZeroDivisionError worker"


def test_interactive_interpreter_errors_are_not_crashes(hooked, crash_script):
    env = hooked(AUTODBG="1", AUTODBG_MODEL="none")
    repl = run_py(["-i"], env=env, input="1 / 0\nprint('still here')\n")
    assert "ZeroDivisionError" in repl.stderr and "still here" in repl.stdout
    assert "autodbg" not in repl.stderr
    after_script = run_py(["-i", crash_script], env=env, input="")
    assert "ZeroDivisionError" in after_script.stderr and "autodbg" not in after_script.stderr


def test_nothing_under_pytest(hooked, crash_script):
    plain = run_py([crash_script], env=clean_env())
    run = run_py([crash_script], env=hooked(AUTODBG="1", AUTODBG_MODEL="none", PYTEST_CURRENT_TEST="t"))
    assert (run.returncode, run.stderr) == (plain.returncode, plain.stderr)


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_multiprocessing_child_leaves_it_to_the_parent(hooked, tmp_path, method):
    script = tmp_path / "pool.py"
    script.write_text(
        "import multiprocessing, threading\n"
        "def child():\n"
        "    t = threading.Thread(target=lambda: 1 / 0, name='in-child'); t.start(); t.join()\n"
        "if __name__ == '__main__':\n"
        f"    p = multiprocessing.get_context('{method}').Process(target=child)\n"
        "    p.start(); p.join()\n"
        "    print('exit code', p.exitcode)\n")
    run = run_py([str(script)], env=hooked(AUTODBG="1", AUTODBG_MODEL="none"))
    assert run.stdout == "exit code 0\n"
    assert "Exception in thread in-child" in run.stderr
    assert "autodbg" not in run.stderr


@pytest.mark.parametrize("env, tty, expected", [
    ({}, True, [True, "stderr is a terminal and no CI variable is set"]),
    ({}, False, [False, "stderr is not a terminal (AUTODBG=1 forces it)"]),
    ({"CI": "true"}, True, [False, "CI is set, so this is CI (AUTODBG=1 forces it)"]),
    ({"GITHUB_ACTIONS": "true", "AUTODBG": "1"}, False, [True, "AUTODBG=1 forces it"]),
    ({"AUTODBG": "0"}, True, [False, "AUTODBG=0 turns it off"]),
])
def test_decision_follows_terminal_ci_and_autodbg(env, tty, expected):
    args = [sys.executable, "-c", "import json, autodbg._boot as b; print(json.dumps(b.decision()))"]
    if tty:
        status, stdout, _ = run_in_terminal(args, env=clean_env(**env))
    else:
        done = run_py(args[1:], env=clean_env(**env))
        status, stdout = done.returncode, done.stdout
    assert status == 0 and json.loads(stdout) == expected


def test_status_rows(hooked):
    code = "import json, autodbg._boot as b; print(json.dumps(b.status()))"
    ran = json.loads(run_py(["-c", code], env=hooked(AUTODBG="1")).stdout)
    assert ran == [["enabled", "yes", "AUTODBG=1 turns it on"],
                   ["start-up hook", "ran", "sys.excepthook and threading.excepthook are hooked"],
                   ["on a crash", "investigate", "AUTODBG=1 forces it"]]
    no_site = json.loads(run_py(["-S", "-c", code], env=hooked(AUTODBG="1")).stdout)
    assert no_site[1][:2] == ["start-up hook", "did not run"]
    off = json.loads(run_py(["-c", code], env=hooked(AUTODBG="0")).stdout)
    assert off == [["enabled", "no", "AUTODBG=0 turns it off"]]


def test_start_up_cost_is_one_tiny_module():
    # Anything more would be imported before every Python program in the venv. (-S: so that the
    # runner's own autodbg, if enabled, has not loaded it; site would have loaded os and sys.)
    program = ("import os, sys\nbefore = set(sys.modules)\n"
               "import _autodbg_hook as h\nh.install()\n"
               "print(sorted(set(sys.modules) - before))\n")
    run = run_py(["-S", "-c", program], env=clean_env(AUTODBG="1"))
    assert (run.stdout, run.stderr) == ("['_autodbg_hook']\n", "")


@pytest.mark.parametrize("setting", [None, "0", "1", "yes", "True", " ON ", "false", "No", "OFF", "maybe", ""])
@pytest.mark.parametrize("marker", [True, False], ids=["marker", "no-marker"])
def test_the_pth_hooks_exactly_when_enabled_says_so(tmp_path, setting, marker):
    # autodbg.pth inlines enabled()'s first rules, to import nothing where autodbg is off; both run
    # here against the same prefix and variable.
    prefix = tmp_path / "venv"
    prefix.mkdir()
    if marker:
        (prefix / _boot.MARKER).write_text("")
    pth_line = (REPO / "autodbg" / "_hook" / "autodbg.pth").read_text().splitlines()[-1]
    program = (f"import sys, json\nsys.prefix = {str(prefix)!r}\n{pth_line}\n"
               "from autodbg import _boot\n"
               "print(json.dumps([_boot.enabled()[0], getattr(sys.excepthook, '_autodbg', False)]))\n")
    run = run_py(["-S", "-c", program], env=clean_env(**({"AUTODBG": setting} if setting is not None else {})))
    on, hooked = json.loads(run.stdout)
    word = (setting or "").strip().lower()
    assert on == hooked == (word in ("1", "true", "yes", "on") or (word not in ("0", "false", "no", "off") and marker))


def test_the_pth_spells_the_hooks_words():
    pth_line = (REPO / "autodbg" / "_hook" / "autodbg.pth").read_text().splitlines()[-1]
    spelled = lambda words: "(" + ", ".join(f'"{word}"' for word in words) + ")"
    assert f"s in {spelled(startup.ON_WORDS)}" in pth_line and f"s not in {spelled(startup.OFF_WORDS)}" in pth_line


def test_the_pth_imports_nothing_where_autodbg_is_off():
    pth_line = (REPO / "autodbg" / "_hook" / "autodbg.pth").read_text().splitlines()[-1]
    program = f"import os, sys\nbefore = set(sys.modules)\n{pth_line}\nprint(sorted(set(sys.modules) - before))\n"
    for off in ("0", "false", "Off", "NO"):
        run = run_py(["-S", "-c", program], env=clean_env(AUTODBG=off))
        assert (run.stdout, run.stderr) == ("[]\n", ""), off


def test_the_start_file_names_install():
    # Python 3.15+ (PEP 829) calls this instead of running the .pth file's import line.
    entry = (REPO / "autodbg" / "_hook" / "autodbg.start").read_text().strip()
    assert pkgutil.resolve_name(entry) is _autodbg_hook.install
