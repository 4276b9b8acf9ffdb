"""`pip install autodbg` without the `local` extra, in a fresh venv that has no llama-cpp-python (nor
numpy): the evidence, the search and the remote engine work, the local engine says how to get it,
and `autodbg uninstall --all` leaves the venv as it was before autodbg came.

The venv gets autodbg's core dependencies, and only those, from this test runner's site-packages:
symlinks to their installed files in a folder of their own, on the venv's path through a .pth
file (no network, no build). The remote engine talks to a small OpenAI-shaped server on 127.0.0.1.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement

from conftest import clean_env
from test_install_venv import wheel  # noqa: F401 (the fixture: autodbg's wheel, built from this checkout)

pytestmark = pytest.mark.slow

MODEL = "fake-coder"
CRASH = """\
def mean(values):
    return sum(values) / len(values)

scores = [s for s in [3, 7] if s > 100]
print(mean(scores))
"""


def core_distributions(wheel_path: Path) -> set[str]:
    """The distributions autodbg's wheel requires without extras, and theirs, as installed here."""
    with zipfile.ZipFile(wheel_path) as archive:
        metadata = next(archive.read(n).decode() for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    wanted = [Requirement(line.split(":", 1)[1]) for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    found: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = importlib.metadata.distribution(requirement.name).metadata["Name"]
        if name not in found:
            found.add(name)
            wanted += [Requirement(r) for r in importlib.metadata.requires(name) or []]
    return found


def dependency_folder(folder: Path, distributions: set[str]) -> Path:
    """FOLDER with a symlink to each top-level file or package of DISTRIBUTIONS."""
    folder.mkdir()
    for name in distributions:
        dist = importlib.metadata.distribution(name)
        for top in {f.parts[0] for f in dist.files or [] if f.parts[0] != ".."}:
            link = folder / top
            if not link.exists():
                link.symlink_to(Path(dist.locate_file(top)))
    return folder


def files_of(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory, wheel) -> SimpleNamespace:  # noqa: F811
    """A venv with pip and autodbg's core dependencies, and the files it had before autodbg."""
    root = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, env=clean_env())
    python = root / "bin" / "python"
    purelib = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    deps = dependency_folder(root.parent / "deps", core_distributions(wheel))
    assert not {"llama_cpp", "numpy"} & {p.name for p in deps.iterdir()}
    (purelib / "_autodbg_test_deps.pth").write_text(f"{deps}\n")
    home = root.parent / "home"
    # Bytecode is written, as on a user's machine: what Python writes for autodbg's files is autodbg's to remove.
    away = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE")
    env = lambda **more: {**{k: v for k, v in clean_env().items() if k not in away},
                          "XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config"),
                          "HF_HOME": str(home / "hf"), **more}
    return SimpleNamespace(root=root, python=str(python), autodbg=str(root / "bin" / "autodbg"), env=env,
                           before=files_of(root))


def run(venv: SimpleNamespace, *args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess:
    # Outside the checkout: the venv's own autodbg, not this one, must be the one imported.
    return subprocess.run(list(args), cwd=cwd or venv.root.parent, env=venv.env(**env), capture_output=True,
                          text=True, timeout=300)


class ModelServer:
    """An OpenAI-shaped server that passes the grammar check and answers every other chat
    request with the same line, recording the bodies it was sent."""

    def __init__(self):
        self.chats: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                if self.path == "/v1/models":
                    self.answer(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
                else:
                    self.answer(404, {"error": {"message": "not found"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/chat/completions":
                    self.answer(404, {"error": {"message": "not found"}})
                    return
                server.chats.append(body)
                text = "autodbg-ok" if body.get("grammar") == 'root ::= "autodbg-ok"' else "null"
                self.answer(200, {"choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant", "content": text}}],
                                  "usage": {"prompt_tokens": 100, "completion_tokens": 1}})

            def answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

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


def test_without_the_local_extra_evidence_search_and_the_remote_engine_work_and_uninstall_leaves_nothing(fresh, wheel):  # noqa: F811
    done = run(fresh, fresh.python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel))
    assert done.returncode == 0, done.stderr
    for module in ("llama_cpp", "numpy"):
        assert run(fresh, fresh.python, "-c", f"import {module}").returncode == 1, module
    done = run(fresh, fresh.autodbg, "install", "--sitecustomize", AUTODBG_MODEL="none")
    assert done.returncode == 0, done.stderr
    program = fresh.root.parent / "scores.py"
    program.write_text(CRASH)
    report = fresh.root.parent / "report.json"

    with ModelServer() as server:
        remote = run(fresh, fresh.python, str(program), AUTODBG="1", AUTODBG_ENGINE="remote", AUTODBG_BASE_URL=server.url,
                     AUTODBG_REMOTE_MODEL=MODEL, AUTODBG_REPORT=str(report), COLUMNS="250")
    assert remote.returncode == 1 and remote.stderr.startswith("Traceback (most recent call last):")
    assert "internal error" not in remote.stderr
    result = json.loads(report.read_text())
    assert result["model"] == {"id": MODEL, "path": server.url, "sha256": None}
    assert result["dossier"]["frames"][0]["function"] == "mean" and result["search"] is not None
    asked = [chat for chat in server.chats if chat.get("grammar") != 'root ::= "autodbg-ok"']
    assert asked and any("sum(values) / len(values)" in json.dumps(chat["messages"]) for chat in asked)

    local = run(fresh, fresh.python, str(program), AUTODBG="1", COLUMNS="250")  # the default: the local engine
    assert local.returncode == 1 and "autodbg · " in local.stderr
    assert local.stderr.rstrip().endswith("autodbg: evidence only (the local engine needs llama-cpp-python: "
                                          "pip install 'autodbg[local]' (or AUTODBG_ENGINE=remote for a model server))")
    status = run(fresh, fresh.autodbg, "status").stdout
    assert "no local engine" in status and "pip install 'autodbg[local]'" in status

    done = run(fresh, fresh.autodbg, "uninstall", "--all")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(f"autodbg: removed the package from {fresh.root}\n")
    assert files_of(fresh.root) == fresh.before
    assert not os.path.exists(fresh.autodbg)
