"""Where developers meet their crashes: failing tests under pytest, and cells in IPython and
Jupyter. Each is run for real in a subprocess; none changes the outcome of what it wraps."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest

from conftest import clean_env, run_py

FAILING_TESTS = '''\
def average(values):
    return sum(values) / len(values)


def in_stock(items):
    return [i for i in items if i["stock"] < 0]


def test_average_of_stock():
    items = [{"name": "tea", "stock": 3}]
    assert average([i["stock"] for i in in_stock(items)]) == 3


def test_names():
    names = ["tea", "jam"]
    assert names == ["tea", "jam", "honey"]


def test_fine():
    assert average([1, 3]) == 2
'''


def pytest_run(tmp_path, *args, input=None, **env):
    (tmp_path / "test_shop.py").write_text(FAILING_TESTS)
    return run_py(["-m", "pytest", "-p", "no:cacheprovider", "test_shop.py", *args], cwd=tmp_path, timeout=300,
                  env=clean_env(XDG_CACHE_HOME=str(tmp_path / "cache"), **env), input=input)


@pytest.mark.slow
def test_pytest_without_the_flag_is_unchanged(tmp_path):
    run = pytest_run(tmp_path, AUTODBG_MODEL="none")
    without = pytest_run(tmp_path, "-p", "no:autodbg", AUTODBG_MODEL="none")
    assert run.returncode == without.returncode == 1
    assert "- autodbg -" not in run.stdout and "autodbg ·" not in run.stdout and run.stderr == without.stderr == ""


@pytest.mark.slow
def test_pytest_autodbg_adds_a_section_and_keeps_the_outcome(tmp_path):
    plain = pytest_run(tmp_path, AUTODBG_MODEL="none")
    run = pytest_run(tmp_path, "--autodbg", AUTODBG_MODEL="none", AUTODBG_REPORT=str(tmp_path / "r.json"))
    assert run.returncode == plain.returncode == 1
    assert run.stdout.count("- autodbg -") == 2  # one section per failing test
    assert plain.stdout.splitlines()[-1].split(" in ")[0] == run.stdout.splitlines()[-1].split(" in ")[0]
    section = run.stdout.split("- autodbg -", 1)[1]
    assert "autodbg · " in section
    assert "ZeroDivisionError: division by zero" in section and "test_shop.py:2: values = []" in section
    # Where the empty list came from: the filter of in_stock, followed through the call.
    assert 'return [i for i in items if i["stock"] < 0]' in section
    second = run.stdout.split("- autodbg -")[2]
    assert "AssertionError: assert ['tea', 'jam'] == ['tea', 'jam', 'honey']" in second  # pytest's own message
    assert json.loads((tmp_path / "r.json").read_text())["dossier"]["assertion"] is True


@pytest.mark.slow
def test_pytest_budget_and_quiet(tmp_path):
    run = pytest_run(tmp_path, "--autodbg", "--autodbg-max", "1", "-q", AUTODBG_MODEL="none")
    assert run.returncode == 1
    assert run.stdout.count("- autodbg -") == 1
    assert "autodbg: 1 more failures not investigated (--autodbg-max / --autodbg-seconds)" in run.stdout


@pytest.mark.slow
def test_pytest_setting_in_pyproject_turns_it_on(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.autodbg]\npytest = true\nmodel = \"none\"\n")
    run = pytest_run(tmp_path, "-x")
    assert run.returncode == 1 and run.stdout.count("- autodbg -") == 1  # -x: stops at the first failure


@pytest.mark.slow
def test_pytest_a_broken_setting_is_a_warning_not_a_failure(tmp_path):
    run = pytest_run(tmp_path, "--autodbg", AUTODBG_MODEL="none", AUTODBG_TURNS="many")
    assert run.returncode == 1
    assert "autodbg: AUTODBG_TURNS='many' in the environment is not a number: using the default (2)" in run.stdout
    assert run.stdout.count("autodbg · ") == 2  # and each failure still gets its section


def sections(stdout: str) -> list[str]:
    """The autodbg sections of a pytest report, each up to the next section or test."""
    return [re.split(r"\n(?:_{3,}|={3,}|-{3,}) ", part.split("\n", 1)[1])[0] for part in stdout.split("- autodbg -")[1:]]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [(), ("--autodbg-workers",)], ids=["evidence in workers", "--autodbg-workers"])
def test_pytest_xdist_workers_sections_reach_the_terminal(tmp_path, workers):
    pytest.importorskip("xdist")
    run = pytest_run(tmp_path, "--autodbg", "-n", "2", *workers, AUTODBG_MODEL="none")
    assert run.returncode == 1 and "2 failed, 1 passed" in run.stdout
    first, second = sorted(sections(run.stdout), key=lambda s: "AssertionError" in s)  # in the order they ended
    assert "autodbg · " in first and "test_shop.py:2: values = []" in first
    assert "AssertionError: assert ['tea', 'jam'] == ['tea', 'jam', 'honey']" in second
    reason = "AUTODBG_MODEL=none" if workers else "an xdist worker: --autodbg-workers runs the model there too"
    assert all(f"autodbg: evidence only ({reason})" in " ".join(s.split()) for s in (first, second))


@pytest.mark.slow
def test_pytest_xdist_budget_is_counted_at_the_terminal(tmp_path):
    pytest.importorskip("xdist")
    run = pytest_run(tmp_path, "--autodbg", "--autodbg-max", "1", "-n", "1", AUTODBG_MODEL="none")
    assert run.returncode == 1 and len(sections(run.stdout)) == 1
    assert "autodbg: 1 more failures not investigated (--autodbg-max / --autodbg-seconds)" in run.stdout


@pytest.mark.slow
def test_pytest_section_follows_the_terminal_width(tmp_path):
    run = pytest_run(tmp_path, "--autodbg", AUTODBG_MODEL="none", COLUMNS="64")
    for section in sections(run.stdout):
        lines = section.splitlines()
        assert max(len(line) for line in lines) == len(lines[0]) == 64, section  # its rule as wide, nothing wider


@pytest.mark.slow
def test_pytest_xdist_sections_are_as_wide_as_the_controllers_terminal(tmp_path):
    """Workers write to pipes: without being told, they would take 80 columns."""
    pytest.importorskip("xdist")
    (tmp_path / "test_shop.py").write_text(FAILING_TESTS)
    env = {k: v for k, v in clean_env(AUTODBG_MODEL="none").items() if k not in ("COLUMNS", "LINES")}
    status, shown = run_in_sized_terminal([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_shop.py",
                                           "--autodbg", "-n", "2"], cwd=tmp_path, env=env, columns=66)
    assert status == 1
    found = sections(shown)
    assert len(found) == 2
    for section in found:
        lines = section.splitlines()
        assert max(len(line) for line in lines) == len(lines[0]) == 66, section


def run_in_sized_terminal(args, *, cwd, env, columns: int) -> tuple[int, str]:
    """ARGS on a pseudo-terminal COLUMNS wide: (exit status, what it showed)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    try:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the program has closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        return proc.wait(300), b"".join(chunks).decode().replace("\r\n", "\n")
    finally:
        os.close(master)


@pytest.mark.slow
def test_pytest_pdb_shows_the_section_then_starts_pdb(tmp_path):
    run = pytest_run(tmp_path, "--autodbg", "--pdb", "-p", "no:xdist", AUTODBG_MODEL="none", input="p values\nc\nc\n")
    out = run.stdout
    assert run.returncode == 1
    first = out.split(">>>>>>>>>> entering PDB >")[0]
    assert " autodbg >" in first and "test_shop.py:2: values = []" in first
    assert out.index(" autodbg >") < out.index("(Pdb) []")  # the section, then pdb, where `p values` ran


@pytest.mark.model
def test_pytest_with_the_real_tiny_model(tmp_path):
    run = pytest_run(tmp_path, "--autodbg", "--autodbg-max", "1", AUTODBG_MODEL="smollm2-135m",
                     AUTODBG_REPORT=str(tmp_path / "r.json"))
    assert run.returncode == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["model"]["id"] == "smollm2-135m" and report["timings"]["model_load"] > 0
    assert report["model_calls"] or report["fallback_reason"]  # the model was asked, or it says why not


IPYTHON_SESSION = '''\
%load_ext autodbg
def parse(text):
    return [int(x) for x in text.split(",")][1:]

def mean(values):
    return sum(values) / len(values)

scores = parse("42")
mean(scores)
print("the shell goes on")
%autodbg
'''


def ipython(tmp_path, typed: str, **env):
    """A real IPython shell reading TYPED as a user types it."""
    return run_py(["-m", "IPython", "--no-banner", "--quick", "--simple-prompt", "--colors=nocolor"], cwd=tmp_path,
                  input=typed + "exit\n", timeout=300, env=clean_env(XDG_CACHE_HOME=str(tmp_path / "cache"), **env))


@pytest.mark.slow
def test_ipython_extension_after_the_traceback(tmp_path):
    pytest.importorskip("IPython")
    run = ipython(tmp_path, IPYTHON_SESSION, AUTODBG_MODEL="none", AUTODBG_REPORT=str(tmp_path / "r.json"),
                  AUTODBG_VERBOSE="1")  # the frames as the evidence shows them
    out = run.stdout
    assert "ZeroDivisionError" in out and "autodbg · " in out
    traceback, evidence = out.split("autodbg · ", 1)  # IPython's traceback first
    assert "Cell In[5], line 1" in traceback and "Cell In[3], line 2, in mean" in traceback
    # The cells as IPython names them, with their real source.
    assert "Cell In[3], line 2 in mean  (crash site)" in evidence and "❱ 2     return sum(values) / len(values)" in evidence
    assert "Cell In[5], line 1 in <module>  (called from here)" in evidence and "❱ 1 mean(scores)" in evidence
    assert "<ipython-input" not in evidence
    assert [f["display_file"] for f in json.loads((tmp_path / "r.json").read_text())["dossier"]["frames"]] \
        == ["Cell In[3]", "Cell In[5]"]
    assert "scores = []" in out and "_ih" not in out and "get_ipython" not in evidence
    assert "the shell goes on" in out
    assert out.count("autodbg · evidence") == 2  # %autodbg: the last exception again, on demand


NOTEBOOK_CELLS = ["%load_ext autodbg", "def parse(text):\n    return [int(x) for x in text.split(',')][1:]\n\n"
                                        "def mean(values):\n    return sum(values) / len(values)",
                  "scores = parse('42')\nmean(scores)", "print('after the crash')"]


def colourless(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.mark.slow
def test_jupyter_kernel_runs_the_extension_in_a_notebook(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for name, value in clean_env(AUTODBG_MODEL="none", AUTODBG_VERBOSE="1", XDG_CACHE_HOME=str(tmp_path / "cache")).items():
        monkeypatch.setenv(name, value)  # the kernel is a child of this process
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS])
    client = nbclient.NotebookClient(notebook, timeout=240, kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    crashed = notebook.cells[2].outputs
    error = [o for o in crashed if o["output_type"] == "error"]
    assert error and error[0]["ename"] == "ZeroDivisionError"  # Jupyter's own error output stays
    shown = "".join(o.get("text", "") + "".join(str(v) for v in o.get("data", {}).values()) for o in crashed)
    assert "autodbg · " in shown and "scores = []" in shown
    # The cells as Jupyter's traceback names them, not by the kernel's files (ipykernel_PID/HASH.py).
    assert "Cell In[3], line 2" in colourless("\n".join(error[0]["traceback"]))
    evidence = colourless("".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in crashed))
    assert "Cell In[2], line 5 in mean  (crash site)" in evidence and "Cell In[3], line 2 in <module>" in evidence
    assert "scores ← Cell In[3], line 1: scores = parse('42')" in evidence and "ipykernel_" not in evidence
    assert notebook.cells[3].outputs[0]["text"] == "after the crash\n"
