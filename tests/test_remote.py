"""The remote engine against real servers serving the tiny model on 127.0.0.1 (llama-cpp-python's
`python -m llama_cpp.server`, and llama.cpp's `llama-server` when AUTODBG_TEST_LLAMA_SERVER names
its binary, as .ci/run does), and against real sockets that fail the ways networks fail."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from autodbg.debugger.grammar import live_state, step_grammar
from autodbg.investigate.loop import parse_step
from autodbg.llm.model import EngineError
from autodbg.llm.remote import RemoteEngine
from autodbg.settings import load_settings
from conftest import REPO, clean_env, run_py
from crashkit import load_program, session_for

MODEL = "smollm2"  # the alias the test servers serve the tiny model under
KEY = "test-key-4242"
SERVED_CONTEXT = 4096  # as the local engine's; llama_cpp.server does not report it, llama-server does
SLOTS = 2  # llama-server's: --ctx-size is shared out between them, /props reports one slot's
LLAMA_SERVER = os.environ.get("AUTODBG_TEST_LLAMA_SERVER")  # the binary; .ci/llama-server builds it
FLAVOURS = ["llama_cpp.server", "llama-server"]  # as RemoteEngine names them
SYSTEM = {"role": "system", "content": "You are a careful Python debugger. Answer with one short command."}
ASK = {"role": "user", "content": "total = 0; mean = total / count raised ZeroDivisionError. Which command next?"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def soon(seconds: float = 120) -> float:
    return time.monotonic() + seconds


def start_server(flavour: str, model: Path, log: Path, api_key: str | None = None,
                 alias: str = MODEL) -> tuple[subprocess.Popen, str]:
    """A real server of FLAVOUR with MODEL served as ALIAS; returns it once it answers, and its
    base URL. Its chatter goes to LOG (a pipe nobody reads would fill and stop it)."""
    port = free_port()
    if flavour == "llama-server":
        if not LLAMA_SERVER:
            pytest.skip("AUTODBG_TEST_LLAMA_SERVER is unset: no llama.cpp llama-server binary to test against "
                        "(.ci/llama-server builds one and prints its path)")
        command = [LLAMA_SERVER, "--model", str(model), "--alias", alias, "--host", "127.0.0.1", "--port", str(port),
                   "--ctx-size", str(SERVED_CONTEXT * SLOTS), "--parallel", str(SLOTS), "--threads", "2"]
        command += ["--api-key", api_key] if api_key else []
        ready = "/health"  # needs no key; 503 until the model is loaded
    else:
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", alias,
                   "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(SERVED_CONTEXT), "--n_threads", "2"]
        command += ["--api_key", api_key] if api_key else []
        ready = "/docs"  # needs no key
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log.open("wb"), env=clean_env(AUTODBG="0"))
    deadline = soon(120)
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{flavour} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{ready}", timeout=2).close()
            return proc, f"http://127.0.0.1:{port}/v1"
        except OSError:
            time.sleep(0.3)
    stop(proc)
    pytest.fail(f"{flavour} did not answer within 120 s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@dataclass(frozen=True)
class Served:
    flavour: str  # what RemoteEngine should find it is
    base_url: str


@pytest.fixture(scope="module")
def llama_cpp_server(tmp_path_factory, tiny_model):
    proc, base_url = start_server("llama_cpp.server", tiny_model, tmp_path_factory.mktemp("server") / "log")
    yield base_url
    stop(proc)


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory, tiny_model):
    proc, base_url = start_server("llama-server", tiny_model, tmp_path_factory.mktemp("server") / "log")
    yield base_url
    stop(proc)


# Marked `model` here: the server fixture it takes (so the tiny model) is known only once it runs.
@pytest.fixture(params=[pytest.param(flavour, marks=pytest.mark.model) for flavour in FLAVOURS])
def server(request) -> Served:
    """Each kind of real server, for what they must all do alike."""
    fixture = {"llama_cpp.server": "llama_cpp_server", "llama-server": "llama_server"}[request.param]
    return Served(request.param, request.getfixturevalue(fixture))


@pytest.fixture(params=FLAVOURS)
def keyed_server(request, tmp_path, tiny_model):
    proc, base_url = start_server(request.param, tiny_model, tmp_path / "log", api_key=KEY)
    yield base_url
    stop(proc)


def fails(engine: RemoteEngine, deadline: float | None = None) -> str:
    """The one-line message of the EngineError that ENGINE's first request raises."""
    with pytest.raises(EngineError) as caught:
        engine.wait_loaded(deadline or soon(30))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"model server {engine.base_url}: ")
    return message


# --- the real server ---------------------------------------------------------------------------

def test_a_step_under_the_live_session_grammar_obeys_it(server, tmp_path):
    program = load_program(tmp_path, """
        def mean(values):
            total = sum(values)
            return total / len(values)

        def report(rows):
            return mean([r["score"] for r in rows if r["score"] > 100])
    """)
    session = session_for(program.report, [{"score": 3}, {"score": 7}])
    grammar = step_grammar(live_state(session))
    engine = RemoteEngine(server.base_url, MODEL)
    done = engine.complete([SYSTEM, ASK], grammar=grammar, max_tokens=120, deadline=soon(), seed=1)
    assert done.finish_reason == "stop", done.text
    thought, command = parse_step(done.text)
    assert done.text.startswith("Thought: ") and thought
    assert session.execute(command).ok, command  # the grammar allows only valid commands
    assert done.prompt_tokens > 20 and done.completion_tokens >= 4


def test_llama_cpp_server_counts_the_contents_and_its_context_is_assumed(llama_cpp_server):
    engine = RemoteEngine(llama_cpp_server, MODEL)
    counted = engine.count_tokens([SYSTEM, ASK], soon())
    done = engine.complete([SYSTEM, ASK], grammar='root ::= "done"', max_tokens=4, deadline=soon())
    # The server counts the contents; the template's markers are allowed for, never under.
    assert done.prompt_tokens <= counted <= done.prompt_tokens + 8 * 3
    assert done.prompt_tokens_reused == 0  # it reports no cache hits
    assert engine.context_size(soon()) == 2048  # not reported: llama_cpp.server's default is assumed
    assert RemoteEngine(llama_cpp_server, MODEL, n_ctx=SERVED_CONTEXT).context_size(soon()) == SERVED_CONTEXT  # AUTODBG_REMOTE_CONTEXT


def test_llama_server_counts_exactly_and_reports_one_slots_context(llama_server):
    engine = RemoteEngine(llama_server, MODEL)
    counted = engine.count_tokens([SYSTEM, ASK], soon())
    done = engine.complete([SYSTEM, ASK], grammar='root ::= "done"', max_tokens=4, deadline=soon())
    assert counted == done.prompt_tokens  # its own chat template and tokenizer
    assert engine.context_size(soon()) == SERVED_CONTEXT  # from /props: one slot's share, not --ctx-size
    assert RemoteEngine(llama_server, MODEL, n_ctx=1024).context_size(soon()) == 1024  # AUTODBG_REMOTE_CONTEXT wins


def test_llama_server_reports_the_prompt_it_had_cached(llama_server):
    engine = RemoteEngine(llama_server, MODEL)
    asked_now = {"role": "user", "content": f"{ASK['content']} (asked at {time.time()})"}  # in no cache yet
    first = engine.complete([SYSTEM, asked_now], grammar='root ::= "done"', max_tokens=4, deadline=soon())
    again = engine.complete([SYSTEM, asked_now], grammar='root ::= "done"', max_tokens=4, deadline=soon())
    assert again.prompt_tokens == first.prompt_tokens
    assert first.prompt_tokens_reused < first.prompt_tokens - 10  # the new question was evaluated
    assert again.prompt_tokens_reused >= again.prompt_tokens - 2  # all of it from the cache, but the last token or so


def test_llama_server_answers_to_each_of_its_aliases(tmp_path, tiny_model):
    proc, base_url = start_server("llama-server", tiny_model, tmp_path / "log", alias=f"{MODEL},tiny-coder")
    try:
        assert RemoteEngine(base_url, "tiny-coder").wait_loaded(soon())["ok"]
        assert fails(RemoteEngine(base_url, "big-coder")).endswith(f"(it serves: {MODEL}, tiny-coder)")
    finally:
        stop(proc)


def test_llama_server_refusals_give_its_message_on_one_line(llama_server):
    engine = RemoteEngine(llama_server, MODEL)
    too_long = [{"role": "user", "content": "word " * SERVED_CONTEXT}]
    with pytest.raises(EngineError, match=r"^model server \S+: HTTP 400 for /v1/chat/completions: request \(\d+ tokens\) "
                                          r"exceeds the available context size \(4096 tokens\), try increasing it$"):
        engine.complete(too_long, grammar=None, max_tokens=4, deadline=soon())
    with pytest.raises(EngineError, match="HTTP 400 for /v1/chat/completions: Failed to initialize samplers: failed to parse grammar$"):
        engine.complete([ASK], grammar="root ::= undefined-rule", max_tokens=4, deadline=soon())


def test_the_grammar_check_passes_and_verbose_shows_what_was_sent(server, capsys):
    info = RemoteEngine(server.base_url, MODEL, verbose=True).wait_loaded(soon())
    assert info["ok"] and info["server"] == server.flavour
    sent = capsys.readouterr().err.splitlines()
    check = [line for line in sent if line.startswith(f"autodbg: sent to the model server: POST {server.base_url}/chat/completions ")]
    assert len(check) == 1
    body = json.loads(check[0].split("/chat/completions ", 1)[1])
    assert body["grammar"] == 'root ::= "autodbg-ok"' and body["model"] == MODEL


def test_a_wrong_api_key_is_refused_and_the_right_one_works(keyed_server):
    assert "refused the API key (HTTP 401" in fails(RemoteEngine(keyed_server, MODEL, api_key="wrong"))
    assert "set AUTODBG_API_KEY" in fails(RemoteEngine(keyed_server, MODEL))
    assert RemoteEngine(keyed_server, MODEL, api_key=KEY).wait_loaded(soon())["ok"]


def test_a_wrong_base_path_is_a_404(server):
    wrong = server.base_url.removesuffix("/v1") + "/v2"
    assert "HTTP 404 for /v2/models: wrong AUTODBG_BASE_URL" in fails(RemoteEngine(wrong, MODEL))


def test_a_model_the_server_does_not_serve_is_named_with_what_it_serves(server):
    message = fails(RemoteEngine(server.base_url, "qwen-coder-32b"))
    assert message.endswith(f"does not serve AUTODBG_REMOTE_MODEL=qwen-coder-32b (it serves: {MODEL})")


# --- networks failing --------------------------------------------------------------------------

def test_a_closed_port_is_a_refused_connection():
    message = fails(RemoteEngine(f"http://127.0.0.1:{free_port()}/v1", MODEL))
    assert "refused the connection" in message


def test_an_unknown_host_name_says_so():
    assert "cannot resolve the host name 'no-such-host.invalid'" in fails(RemoteEngine("http://no-such-host.invalid/v1", MODEL))


@pytest.mark.slow
def test_a_server_that_never_answers_times_out_at_the_deadline():
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel accepts connections; nobody ever reads or answers
        engine = RemoteEngine(f"http://127.0.0.1:{silent.getsockname()[1]}/v1", MODEL)
        started = time.monotonic()
        message = fails(engine, started + 1.5)
        elapsed = time.monotonic() - started
    assert message.endswith("did not answer in time")
    assert 1.4 < elapsed < 3


class GrammarIgnoringServer(BaseHTTPRequestHandler):
    """An OpenAI-shaped server that does NOT apply grammars (as OpenAI's own API, or a proxy that
    drops unknown fields): it answers every chat request with the same free text."""

    def do_GET(self):
        if self.path == "/v1/models":
            self.answer(200, {"object": "list", "data": [{"id": "echo", "object": "model"},
                                                         {"id": "broken", "object": "model"}]})
        elif self.path == "/v1/garbled/models":
            self.answer(200, b"<html>please log in</html>")
        else:
            self.answer(404, {"error": {"message": "not found"}})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/v1/chat/completions" and body["model"] == "broken":
            self.answer(500, {"error": {"message": "CUDA out of memory.\nTried to allocate 2.00 GiB"}})
        elif self.path == "/v1/chat/completions":
            self.answer(200, {"choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": "Hello! How can I help?"}}],
                              "usage": {"prompt_tokens": 9, "completion_tokens": 6}})
        else:
            self.answer(404, {"error": {"message": "not found"}})

    def answer(self, status: int, body) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class RecordingServer(GrammarIgnoringServer):
    """The same server, speaking HTTP/1.1 (so a connection may carry several requests), recording
    each request's connection and request line: what a proxy in front of the server would see."""

    protocol_version = "HTTP/1.1"
    seen: list[tuple[int, str]] = []  # (the client's port, the request line)

    def parse_request(self):
        ok = super().parse_request()
        self.seen.append((self.client_address[1], self.requestline))
        if self.path.startswith("http://"):  # a proxy's request: the absolute URL
            self.path = "/" + self.path.split("/", 3)[3]
        return ok


@pytest.fixture
def recording_server():
    RecordingServer.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), RecordingServer)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", RecordingServer.seen
    httpd.shutdown()
    httpd.server_close()


def test_one_connection_is_kept_alive_for_the_requests(recording_server):
    url, seen = recording_server
    engine = RemoteEngine(f"{url}/v1", "echo")
    fails(engine)  # /v1/models, /props, /extras/tokenize/count, then the grammar check
    assert [line.split()[:2] for _, line in seen] == [["GET", "/v1/models"], ["GET", "/props"],
                                                      ["POST", "/extras/tokenize/count"], ["POST", "/v1/chat/completions"]]
    assert len({port for port, _ in seen}) == 1
    engine.close()


def test_requests_go_through_the_proxy(recording_server):
    proxy, seen = recording_server  # it answers as the server behind it would
    message = fails(RemoteEngine("http://gpu-box.invalid:8080/v1", "echo", proxy=proxy))
    assert "it ignored the grammar" in message  # the name resolved nowhere: only the proxy could answer
    assert seen[0][1] == "GET http://gpu-box.invalid:8080/v1/models HTTP/1.1"


def test_a_proxy_that_is_down_says_so():
    proxy = f"http://127.0.0.1:{free_port()}"
    message = fails(RemoteEngine("http://gpu-box.invalid:8080/v1", "echo", proxy=proxy))
    assert message.endswith(f"refused the connection through the proxy {proxy} (is the server running?)")


@pytest.fixture
def grammar_ignoring_server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), GrammarIgnoringServer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_server_that_ignores_the_grammar_is_refused_at_start(grammar_ignoring_server):
    message = fails(RemoteEngine(f"{grammar_ignoring_server}/v1", "echo"))
    assert "it ignored the grammar (asked for 'autodbg-ok', got 'Hello! How can I help?')" in message


def test_a_reply_that_is_not_json_says_so(grammar_ignoring_server):
    message = fails(RemoteEngine(f"{grammar_ignoring_server}/v1/garbled", "echo"))
    assert "its reply to /v1/garbled/models is not a JSON object: '<html>please log in</html>'" in message


def test_a_server_error_gives_its_message_on_one_line(grammar_ignoring_server):
    message = fails(RemoteEngine(f"{grammar_ignoring_server}/v1", "broken"))
    assert message.endswith("HTTP 500 for /v1/chat/completions: CUDA out of memory. Tried to allocate 2.00 GiB")


# --- settings ----------------------------------------------------------------------------------

REMOTE = {"AUTODBG_ENGINE": "remote", "AUTODBG_BASE_URL": "http://gpu-box:8080/v1/", "AUTODBG_REMOTE_MODEL": "coder"}


@pytest.fixture
def config_home(tmp_path, monkeypatch):
    """A private user config dir (platformdirs follows XDG_CONFIG_HOME); returns the key file."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "autodbg").mkdir()
    return tmp_path / "autodbg" / "api_key"


def test_remote_settings(config_home):
    assert load_settings({}).remote is None
    remote = load_settings({**REMOTE, "AUTODBG_API_KEY": "k1", "AUTODBG_REMOTE_CONTEXT": "8192"}).remote
    assert (remote.base_url, remote.model, remote.api_key, remote.context) == ("http://gpu-box:8080/v1", "coder", "k1", 8192)
    assert load_settings(REMOTE).remote.api_key is None  # no key anywhere: for servers without one


def test_the_proxy_and_certificates_are_the_start_up_environments(config_home):
    proxied = {**REMOTE, "HTTP_PROXY": "http://proxy:3128", "SSL_CERT_FILE": "/etc/corp-ca.pem"}
    remote = load_settings(proxied).remote
    assert (remote.proxy, remote.ca_file, remote.ca_dir) == ("http://proxy:3128", "/etc/corp-ca.pem", None)
    assert load_settings({**proxied, "http_proxy": "http://lower:1"}).remote.proxy == "http://lower:1"  # as curl
    assert load_settings({**proxied, "NO_PROXY": "localhost,gpu-box"}).remote.proxy is None
    assert load_settings({**REMOTE, "ALL_PROXY": "socks5://s:1080"}).remote.proxy == "socks5://s:1080"


def test_the_api_key_file_is_read_only_when_only_its_owner_may_read_it(config_home):
    config_home.write_text("k-from-file\n")
    config_home.chmod(0o600)
    assert load_settings(REMOTE).remote.api_key == "k-from-file"
    assert load_settings({**REMOTE, "AUTODBG_API_KEY": "k-env"}).remote.api_key == "k-env"
    config_home.chmod(0o644)
    settings = load_settings(REMOTE)
    assert settings.remote.api_key is None
    assert settings.warnings == (f"{config_home} is open to other users (mode 644): chmod 600 {config_home} (no API key sent)",)


@pytest.mark.parametrize("environ, problem", [
    ({"AUTODBG_ENGINE": "remote"}, "AUTODBG_ENGINE=remote needs AUTODBG_BASE_URL (like http://gpu-box:8080/v1)"),
    ({**REMOTE, "AUTODBG_BASE_URL": "gpu-box:8080/v1"}, "AUTODBG_BASE_URL='gpu-box:8080/v1' is not an http:// or https:// URL"),
    ({**REMOTE, "AUTODBG_BASE_URL": "http://gpu-box:80a/v1"}, "AUTODBG_BASE_URL='http://gpu-box:80a/v1' has a bad port"),
    ({**REMOTE, "AUTODBG_REMOTE_MODEL": ""}, "AUTODBG_ENGINE=remote needs AUTODBG_REMOTE_MODEL (a model id the server lists at /v1/models)"),
])
def test_incomplete_remote_settings_leave_the_evidence_and_say_why(config_home, environ, problem):
    settings = load_settings(environ)
    assert (settings.remote, settings.engine_problem) == (None, problem)


def test_a_bad_remote_context_is_a_warning(config_home):
    settings = load_settings({**REMOTE, "AUTODBG_REMOTE_CONTEXT": "lots"})
    assert settings.remote.context is None
    assert settings.warnings == ("AUTODBG_REMOTE_CONTEXT='lots' in the environment is not a number: using the default (unset)",)


# --- a real crash, end to end ------------------------------------------------------------------

CRASH = """\
import os

def mean(values):
    return sum(values) / len(values)

api_token = os.environ["SCORES_TOKEN"]  # a secret in the crashed frame: redacted before it is sent
scores = [s for s in [3, 7] if s > 100]
print(mean(scores))
"""


@pytest.fixture
def crash_script(tmp_path):
    path = tmp_path / "scores.py"
    path.write_text(CRASH)
    return path


REMOTE_BUDGET = 180  # seconds of autodbg's investigation: two busy cores


def crash_with(base_url: str, script, report, **env) -> subprocess.CompletedProcess:
    # The start-up hook as autodbg.pth runs it, from this checkout (as tests/test_hook.py does).
    site_dir = script.parent / "site"
    site_dir.mkdir(exist_ok=True)
    (site_dir / "sitecustomize.py").write_text((REPO / "autodbg" / "_hook" / "autodbg.pth").read_text())
    return run_py([str(script)], env=clean_env(
        PYTHONPATH=f"{site_dir}{os.pathsep}{REPO}", AUTODBG="1", AUTODBG_ENGINE="remote",
        AUTODBG_BASE_URL=base_url, AUTODBG_REMOTE_MODEL=MODEL, AUTODBG_REPORT=str(report), AUTODBG_TURNS="1",
        AUTODBG_TIMEOUT=str(REMOTE_BUDGET), **env), timeout=REMOTE_BUDGET + 60)  # autodbg's budget, then its start and exit


def test_a_crash_is_investigated_by_the_server_and_nothing_secret_is_sent(server, crash_script, tmp_path):
    report = tmp_path / "report.json"
    # llama_cpp.server does not report its context size: it is set, as its users have to.
    context = {"AUTODBG_REMOTE_CONTEXT": str(SERVED_CONTEXT)} if server.flavour == "llama_cpp.server" else {}
    run = crash_with(server.base_url, crash_script, report, AUTODBG_VERBOSE="1", SCORES_TOKEN="tok-9f8e7d", **context)
    assert run.returncode == 1
    assert run.stderr.startswith("Traceback (most recent call last):")
    # once: the verbose log of what was sent may quote the model saying "Traceback" (the tiny one does)
    assert sum("Traceback" in line for line in run.stderr.splitlines() if not line.startswith("autodbg: ")) == 1
    result = json.loads(report.read_text())
    assert result["model"] == {"id": MODEL, "path": server.base_url, "sha256": None}
    assert result["tokens"]["generated"] > 0, result["fallback_reason"]  # the server's model wrote this
    reused = result["tokens"]["prompt_tokens_reused"]  # llama-server's cache kept the turns' shared start
    assert (reused > 0) if server.flavour == "llama-server" else (reused == 0)
    assert result["diagnosis"] is not None or result["fallback_reason"] == "the model gave no usable answer"
    sent = [line for line in run.stderr.splitlines() if line.startswith("autodbg: sent to the model server: POST")]
    assert any('"role": "system"' in line for line in sent)
    leaked = [line[max(0, line.index("9f8e7d") - 300):line.index("9f8e7d") + 50] for line in sent if "9f8e7d" in line]
    assert not leaked, leaked
    assert "<redacted" in "\n".join(sent)


def test_with_the_server_down_the_evidence_and_one_line(crash_script, tmp_path):
    report = tmp_path / "report.json"
    down = f"http://127.0.0.1:{free_port()}/v1"
    run = crash_with(down, crash_script, report, SCORES_TOKEN="tok-9f8e7d", COLUMNS="200",
                     AUTODBG_VERBOSE="1")  # the line unwrapped
    assert run.returncode == 1
    assert run.stderr.count("Traceback") == 1 and "ZeroDivisionError" in run.stderr
    assert "return sum(values) / len(values)" in run.stderr.split("Traceback", 1)[1].split("ZeroDivisionError: division by zero", 1)[1]  # the evidence
    reason = f"model server {down}: refused the connection (is the server running?)"
    assert run.stderr.rstrip().endswith(f"autodbg: evidence only ({reason})")
    assert json.loads(report.read_text())["fallback_reason"] == reason
