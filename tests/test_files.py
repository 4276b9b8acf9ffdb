"""Files autodbg writes and deletes, against planted symlinks, tampered models and failing writes.

Each case is one a review reproduced: the report's temporary file followed a planted symlink and
the report was world-readable; a model file of the right size was loaded without hashing; `model
rm` deleted a file outside the cache; a failed `install --sitecustomize` left the venv's own
sitecustomize.py renamed. Real files in temporary directories, real subprocesses for commands.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autodbg.files import UnsafePath, private_dir, write_private
from autodbg.llm import download
from autodbg.llm.engine import Engine, free_cores
from autodbg.llm.worker import prune
from autodbg.program.verify import verify_fix
from autodbg.program.target import Program
from autodbg.records import Edit
from tests.conftest import REPO, clean_env
from tests.fakehub import COMMIT
from tests.test_download import FILE, Machine, blob, ok, one_line_error, spec  # noqa: F401 (fixtures)

UNUSED_HUB = "http://127.0.0.1:9"  # nothing here asks the hub; a request would fail fast


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# --- The JSON report ---

PLANTING_CRASH = """\
import os, sys
report = os.environ["AUTODBG_REPORT"]
os.symlink(sys.argv[1], report)  # the report's own name
raise ValueError("boom")
"""


def crash_reporting_to(report: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "crash.py").write_text(PLANTING_CRASH if args else 'raise ValueError("boom")\n')
    return subprocess.run([sys.executable, "crash.py", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=clean_env(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_REPORT=str(report),
                                                     XDG_CACHE_HOME=str(tmp_path / "cache"), COLUMNS="250"))


def test_the_report_replaces_only_a_report_and_only_its_owner_can_read_it(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    report = out / "report.json"
    for _ in range(2):  # the second replaces the first
        done = crash_reporting_to(report, tmp_path)
        assert done.returncode == 1 and "autodbg: internal error" not in done.stderr, done.stderr
        assert stat.S_ISREG(report.lstat().st_mode) and mode(report) == 0o600
        assert json.loads(report.read_text())["dossier"]["exception"]["type"] == "ValueError"
    assert [p.name for p in out.iterdir()] == ["report.json"]  # no temporary left


@pytest.mark.slow
@pytest.mark.parametrize("there", ["a file", "a symlink", "a folder", "a fifo"])
def test_the_report_never_replaces_what_autodbg_did_not_write(tmp_path, there):
    victim = tmp_path / "victim"
    victim.write_text("the user's notes\n")
    report = tmp_path / "report.json"
    args = ()
    if there == "a file":
        report.write_text('{"schema_version": "not quite"}\n')
    elif there == "a symlink":
        args = (str(victim),)  # the program plants it, pointing at the victim
    elif there == "a folder":
        report.mkdir()
    else:
        os.mkfifo(report)  # opening it to look must not wait for a writer
    done = crash_reporting_to(report, tmp_path, *args)
    assert done.returncode == 1
    assert done.stderr.endswith(f"autodbg: not writing the report to {report}: something autodbg did not write is there\n")
    assert victim.read_text() == "the user's notes\n"
    if there == "a file":
        assert report.read_text() == '{"schema_version": "not quite"}\n'
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("report.json")) == ["report.json"]


def test_an_unwritable_report_is_one_line(tmp_path):
    report = tmp_path / "no-such-folder" / "report.json"
    done = crash_reporting_to(report, tmp_path)
    assert done.returncode == 1 and "internal error" not in done.stderr
    assert done.stderr.endswith(f"autodbg: cannot write the report to {report}: No such file or directory\n")


def test_a_failed_write_leaves_the_target_and_no_temporary(tmp_path):
    target = tmp_path / "report.json"
    target.mkdir()  # os.replace cannot put a file there
    (target / "inside").write_text("kept")
    with pytest.raises(IsADirectoryError):
        write_private(target, "{}")
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    assert (target / "inside").read_text() == "kept"


# --- Model files: hashed on first use and whenever they change ---

# A crash whose handler finds the model through the registry swapped in by argv[1].
REGISTRY_CRASH = """\
import pathlib, sys
import autodbg.llm.registry as registry
registry.REGISTRY_FILE = pathlib.Path(sys.argv[1])
raise ValueError("boom")
"""


@pytest.fixture
def cached(tmp_path, spec, blob):  # noqa: F811
    """A Machine whose model cache holds the tiny model's file as a download leaves it."""
    machine = Machine(tmp_path, spec, UNUSED_HUB)
    snapshot = machine.hub / "models--test-org--tiny-GGUF" / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    machine.model = snapshot / FILE
    machine.model.write_bytes(blob)
    return machine


def tamper(path: Path, blob: bytes) -> None:  # noqa: F811
    """Write a new file of the same size, one byte different, in place of PATH (a new inode)."""
    bad = bytearray(blob)
    bad[1000] ^= 0xFF
    fresh = path.with_name("fresh")
    fresh.write_bytes(bytes(bad))
    os.replace(fresh, path)


def crash_with_the_model(machine: Machine) -> tuple[subprocess.CompletedProcess, dict]:
    report = machine.root / "report.json"
    (machine.root / "crash.py").write_text(REGISTRY_CRASH)
    env = {**machine.env, "AUTODBG": "1", "AUTODBG_MODEL": "tiny", "AUTODBG_REPORT": str(report),
           "COLUMNS": "1000"}  # the reason on one line, as a wide terminal shows it
    done = subprocess.run([sys.executable, "crash.py", str(machine.registry)], cwd=machine.root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    return done, json.loads(report.read_text())


@pytest.mark.slow
def test_a_tampered_model_of_the_right_size_is_refused_and_never_loaded(cached, blob):  # noqa: F811
    tamper(cached.model, blob)
    assert cached.model.stat().st_size == cached.spec.size
    done, result = crash_with_the_model(cached)
    digest = hashlib.sha256(cached.model.read_bytes()).hexdigest()
    reason = (f"model file {cached.model} has sha256 {digest}, not {cached.spec.sha256}: "
              "`autodbg model pull tiny` downloads it again")
    assert done.stderr.splitlines()[-1] == f"autodbg: evidence only ({reason})"
    assert result["fallback_reason"] == reason
    assert result["model"] is None and "model_load" not in result["timings"]  # no worker started
    assert cached.sidecars() == []  # nothing vouches for it at the next crash either


def test_only_a_verified_sha256_keys_the_prompt_state(cached, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(cached.root / "xdg"))  # platformdirs reads it on each call
    assert download.model_sha256(cached.spec, cached.hub) is None  # the registry's word alone is not enough
    assert download.ensure_model(cached.spec, cached.hub) == cached.model  # first use: hashed
    assert download.model_sha256(cached.spec, cached.hub) == cached.spec.sha256
    st = cached.model.stat()
    assert cached.sidecars() == [{"path": str(cached.model), "sha256": cached.spec.sha256, "size": st.st_size,
                                  "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}]
    assert mode(cached.ours / "verified") == 0o700
    assert all(mode(p) == 0o600 for p in (cached.ours / "verified").iterdir())


@pytest.mark.slow
def test_a_model_changed_after_verification_is_hashed_again(cached, blob):  # noqa: F811
    ok(cached.ensure())
    verified = cached.model.stat()

    os.utime(cached.model, ns=(verified.st_atime_ns, verified.st_mtime_ns + 10**9))  # touched only
    assert ok(cached.ensure()) == str(cached.model)
    assert cached.sidecars()[0]["mtime_ns"] == verified.st_mtime_ns + 10**9  # hashed again: still good

    # Same size, same mtime as verified, other content: only the inode tells, and it does.
    tamper(cached.model, blob)
    os.utime(cached.model, ns=(verified.st_atime_ns, verified.st_mtime_ns + 10**9))
    refused = cached.ensure()
    assert refused.stderr == (f"unavailable: model file {cached.model} changed since it was verified: "
                              "`autodbg model pull tiny` downloads it again\n")


# --- `autodbg model rm` stays inside the cache ---

def test_model_rm_removes_a_link_pointing_outside_the_cache_but_not_its_target(cached, tmp_path):
    outside = tmp_path / "elsewhere" / "precious.gguf"
    outside.parent.mkdir()
    outside.write_bytes(b"GGUF not yours to delete")
    cached.model.unlink()
    cached.model.symlink_to(outside)

    assert ok(cached.autodbg("model", "rm", "tiny")) == f"removed {cached.model}"
    assert not cached.model.is_symlink()
    assert outside.read_bytes() == b"GGUF not yours to delete"


def test_model_rm_refuses_a_cache_directory_that_leads_outside(cached, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / FILE).write_bytes(b"GGUF not yours to delete")
    snapshot = cached.model.parent
    cached.model.unlink()
    snapshot.rmdir()
    snapshot.symlink_to(outside, target_is_directory=True)

    error = one_line_error(cached.autodbg("model", "rm", "tiny"))
    assert error == (f"autodbg: {cached.model} leads outside {cached.hub}: "
                     "autodbg does not delete it")
    assert (outside / FILE).read_bytes() == b"GGUF not yours to delete"


# --- `autodbg install --sitecustomize` is all or nothing ---

THEIRS = "# the venv's own sitecustomize\nimport sys\n"


@pytest.fixture
def venv(tmp_path) -> Path:
    """A real venv that autodbg counts as installed in (its .pth is there), holding its own
    sitecustomize.py; `python -m autodbg` runs this checkout's installer on it."""
    root = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    purelib = Path(subprocess.run([root / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "autodbg.pth").write_bytes((REPO / "autodbg" / "_hook" / "autodbg.pth").read_bytes())
    (purelib / "sitecustomize.py").write_text(THEIRS)
    return purelib


def install_sitecustomize(venv_root: Path, *, max_file_size: int | None = None, **env: str):
    def limit():  # in the child: every write past MAX_FILE_SIZE bytes fails with EFBIG, as root too
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_size, max_file_size))

    return subprocess.run([sys.executable, "-m", "autodbg", "install", "--venv", str(venv_root), "--sitecustomize"],
                          env=clean_env(AUTODBG_MODEL="none", PYTHONDONTWRITEBYTECODE="1", **env),
                          preexec_fn=limit if max_file_size else None, capture_output=True, text=True, timeout=120)


def test_a_sitecustomize_install_whose_write_fails_leaves_theirs_in_place(venv, tmp_path):
    theirs = venv / "sitecustomize.py"
    before = theirs.stat()
    # The template (1.3 kB) cannot be written past 1 kB, after their file was kept: the middle of
    # the transaction, with a real OSError (as from a full disk), which chmod cannot give root.
    done = install_sitecustomize(tmp_path / "venv", max_file_size=1024)
    assert (done.returncode, done.stderr) == (2, f"autodbg: cannot write {theirs}: File too large\n")
    assert theirs.read_text() == THEIRS and theirs.stat().st_ino == before.st_ino
    assert sorted(p.name for p in venv.iterdir()) == ["autodbg.pth", "sitecustomize.py"]


def test_a_sitecustomize_install_python_would_not_import_leaves_theirs_in_place(venv, tmp_path):
    first = tmp_path / "first"
    first.mkdir()
    (first / "sitecustomize.py").write_text("")
    done = install_sitecustomize(tmp_path / "venv", PYTHONPATH=f"{REPO}{os.pathsep}{first}")
    assert done.returncode == 2 and "instead of" in done.stderr, done.stderr
    assert (venv / "sitecustomize.py").read_text() == THEIRS
    assert sorted(p.name for p in venv.iterdir()) == ["autodbg.pth", "sitecustomize.py"]

    done = install_sitecustomize(tmp_path / "venv")
    assert done.returncode == 0, done.stderr
    assert (venv / "_autodbg_prev_sitecustomize.py").read_text() == THEIRS


# --- The prompt-state cache ---

def test_prune_deletes_only_regular_files_in_its_directory(tmp_path):
    state, outside = tmp_path / "prompt-state", tmp_path / "outside"
    outside.mkdir()
    private_dir(state)
    victim = outside / "victim.llstate"
    victim.write_bytes(bytes(4000))
    os.utime(victim, (1, 1))  # the oldest: first to go, were it followed
    (state / "planted.llstate").symlink_to(victim)
    (state / "subdir.llstate").mkdir()
    old, new = state / "old.llstate", state / "new.llstate"
    for age, path in enumerate((old, new)):
        path.write_bytes(bytes(1000))
        os.utime(path, (10 + age, 10 + age))

    prune(state, limit=1500)
    assert sorted(p.name for p in state.iterdir()) == ["new.llstate", "planted.llstate", "subdir.llstate"]
    assert victim.stat().st_size == 4000

    (tmp_path / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePath):
        prune(tmp_path / "link", limit=0)
    assert victim.exists()


def test_a_planted_symlink_as_the_state_directory_is_not_written_through(tiny_model, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "cache" / "autodbg").mkdir(parents=True)
    (tmp_path / "cache" / "autodbg" / "prompt-state").symlink_to(outside, target_is_directory=True)
    system = {"role": "system", "content": "You are a careful Python debugger."}
    ask = {"role": "user", "content": "x = 0; y = 1 / x raised ZeroDivisionError. Why?"}
    with Engine(tiny_model, threads=free_cores(), n_ctx=512, state_key="test") as engine:
        engine.start()
        done = engine.complete([system, ask], grammar=None, max_tokens=4, deadline=time.monotonic() + 120,
                               cache_prefix_messages=1)
    assert done.completion_tokens > 0 and not done.system_prompt_from_disk
    assert list(outside.iterdir()) == []


def test_the_state_directory_is_private(tmp_path):
    state = private_dir(tmp_path / "a" / "prompt-state")
    assert mode(state) == 0o700
    os.chmod(state, 0o755)  # as an older autodbg left it
    assert mode(private_dir(state)) == 0o700
    (tmp_path / "file").write_text("")
    with pytest.raises(UnsafePath, match="is not a directory"):
        private_dir(tmp_path / "file")




# --- Fix verification writes only into its copy of the program ---

LIB = "def inverse(x):\n    return 1 / x\n"
MAIN = "import sys\nsys.path.insert(0, sys.argv[1])\nimport lib\nlib.inverse(0)\n"


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_verifying_a_fix_never_writes_through_a_symlink_into_the_users_files(tmp_path, linked):
    elsewhere, prog = tmp_path / "elsewhere", tmp_path / "prog"
    elsewhere.mkdir()
    prog.mkdir()
    (elsewhere / "lib.py").write_text(LIB)
    if linked == "file":
        (prog / "lib.py").symlink_to(elsewhere / "lib.py")
        where = "."
    else:
        (prog / "pkg").symlink_to(elsewhere, target_is_directory=True)
        where = "pkg"
    (prog / "main.py").write_text(MAIN)
    program = Program(None, [str(prog / "main.py"), where], str(prog))
    fixed = verify_fix(program, Edit(file=str(prog / where / "lib.py"), first=2, last=2,
                                         replacement="    return 1 / (x or 1)\n", origin="model"),
                       "ZeroDivisionError", 30)
    assert (elsewhere / "lib.py").read_text() == LIB
    if linked == "file":  # the link is replaced in the copy: the fix is verified there
        assert fixed == (True, "verified by re-running: the program now exits 0")
    else:
        assert fixed == (False, f"not verified: {prog}/pkg/lib.py is in a linked folder")
