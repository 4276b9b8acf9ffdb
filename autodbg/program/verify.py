"""Verify a checked fix under `autodbg run`: run the program again on a temporary copy of its
folder with the fix applied (never the user's files) and say whether the original exception
is gone."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from autodbg.frames.core import display_path
from autodbg.frames.safe_eval import cut
from autodbg.files import is_inside, write_shared
from autodbg.fix.lines import replace_lines
from autodbg.probe import confine
from autodbg.program.target import Program
from autodbg.records import Edit

MAX_COPY_FILES = 2000


def _ours() -> str:
    """The folder autodbg is imported from, for the confined child (the program's folder comes first)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def patched_copy(root: str, fix: Edit | None, tmp: str) -> tuple[str, str | None]:
    """(the copy of the folder ROOT made in TMP with FIX applied, why it cannot be judged there or None)."""
    if fix is not None and os.path.commonpath([root, os.path.abspath(fix.file)]) != root:
        return "", f"{display_path(fix.file)} is outside the program's folder"
    files = sum(len(names) for _, _, names in os.walk(root))
    if files > MAX_COPY_FILES:
        return "", f"the program's folder has over {MAX_COPY_FILES} files"
    copy = os.path.join(tmp, os.path.basename(root) or "program")
    shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".git", ".venv", "venv"))
    if fix is None:
        return copy, None
    file = os.path.abspath(fix.file)
    target = Path(copy, os.path.relpath(file, root))
    if not (target.parent.is_dir() and is_inside(target.parent, Path(tmp))):  # linked: the user's own files
        return "", f"{display_path(file)} is in a linked folder"
    with open(file, encoding="utf-8", newline="") as f:
        patched = replace_lines(f.read(), fix.first, fix.last, fix.replacement)
    write_shared(target, patched.encode("utf-8"))  # replaces a symlinked file in the copy, never writes through it
    return copy, None


def confined_env(tmp: str) -> dict[str, str]:
    """The environment of a confined run in TMP: autodbg off, temporary files and no bytecode inside it."""
    scratch = os.path.join(tmp, ".tmp")
    os.makedirs(scratch, exist_ok=True)
    return {**os.environ, "AUTODBG": "0", "TMPDIR": scratch, "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [_ours(), os.environ.get("PYTHONPATH")]))}


def run_confined(tmp: str, target: list[str], cwd: str, stdin: str | None, env: dict[str, str],
                 budget: float) -> subprocess.CompletedProcess | str:
    """TARGET (`python`'s arguments) run confined to TMP (autodbg.probe.confine) in its own session,
    every process of which is killed when it ends or at BUDGET; or why it did not run, beginning
    "not run" where it could not be confined, or saying it ran past BUDGET."""
    command = [sys.executable, "-m", "autodbg.program.confined", tmp, *target]
    process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    try:
        out, err = process.communicate(stdin, timeout=budget)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        process.communicate()
        return f"ran past {budget:g}s"
    finally:
        _kill_group(process.pid)  # its own processes too: none may outlive the run
    if process.returncode == confine.UNCONFINED_STATUS and confine.UNCONFINED_MARK in err:
        return "not run: " + err.split(confine.UNCONFINED_MARK, 1)[1].strip().splitlines()[0]
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # none left


def verify_fix(program: Program, fix: Edit, exception_type: str, budget: float) -> tuple[bool, str]:
    """(whether FIX made EXCEPTION_TYPE go away, what happened)."""
    root = program.root
    unconfined = confine.available()
    if unconfined is not None:
        return False, f"not run: {unconfined}; model-written code runs only confined"
    with tempfile.TemporaryDirectory(prefix="autodbg-verify-") as tmp:
        copy, problem = patched_copy(root, fix, tmp)
        if problem is not None:
            return False, f"not verified: {problem}"

        def moved(path: str) -> str:
            path = os.path.abspath(path)
            return os.path.join(copy, os.path.relpath(path, root)) if os.path.commonpath([root, path]) == root else path

        # Confined to its copy: no writes outside it, no network, no processes (the fix is model-written).
        target = ["-m", program.module, *program.argv[1:]] if program.module else [moved(program.argv[0]), *program.argv[1:]]
        run = run_confined(tmp, target, moved(program.cwd), program.stdin, confined_env(tmp), budget)
        if isinstance(run, str):
            return False, run if run.startswith("not run") else f"not verified: the fixed program {run}"
    last_line = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ""
    if run.returncode == 0:
        return True, "verified by re-running: the program now exits 0"
    if last_line.split(":")[0].rsplit(".", 1)[-1] == exception_type:
        return False, f"re-run with the fix still fails: {cut(last_line, 160)}"
    return True, (f"verified by re-running: {exception_type} is gone, but the program now fails differently: "
                  f"{cut(last_line, 160) or f'exit status {run.returncode}'}")
