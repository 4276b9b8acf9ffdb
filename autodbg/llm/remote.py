"""The model on a shared server: any OpenAI-compatible server that applies GBNF grammars.

llama.cpp's `llama-server` and llama-cpp-python's `python -m llama_cpp.server` take the grammar
as a `grammar` field of /v1/chat/completions; vLLM as `structured_outputs: {"grammar": ...}`
(which replaced `guided_grammar`, removed in vLLM 0.12). Same interface as the local
`Engine`; every failure is an `EngineError` of one line that names the server. It runs in the
crashed process, over httpx: one connection kept alive for the crash's requests, through the proxy
and with the certificates of the environment autodbg saw at start-up (autodbg.settings.Remote;
httpx's own reading of the environment is off, since the program may have changed it).

What a server reports varies, so each number comes from where that server keeps it:

| server           | told apart by                   | context size                   | tokens counted by                   |
|------------------|---------------------------------|--------------------------------|-------------------------------------|
| vLLM             | `max_model_len` in /v1/models   | that `max_model_len`           | POST /tokenize with the messages    |
| llama-server     | GET /props answers              | /props `n_ctx` (per slot)      | POST /apply-template, POST /tokenize |
| llama_cpp.server | POST /extras/tokenize/count     | not reported: 2048, its default | that endpoint, on the contents      |
| any other        | none of these                   | not reported: 2048             | estimated from the length           |

AUTODBG_REMOTE_CONTEXT overrides the context size. Where only the messages' contents can be
counted, MESSAGE_MARKERS tokens per message stand for the chat template's markers.
"""

from __future__ import annotations

import json
import socket
import ssl
import sys
import time
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlsplit

import httpx

from autodbg.llm.model import Completion, EngineError, Model
from autodbg.textsafe import say

GRAMMAR_CHECK = 'root ::= "autodbg-ok"'  # a server that applies grammars can only answer this
UNREPORTED_CONTEXT = 2048  # llama_cpp.server's default --n_ctx; what we assume when nothing says
MESSAGE_MARKERS = 8  # tokens a chat template adds around one message (ChatML: 5), rounded up
CHARS_PER_TOKEN = 3  # for servers that count nothing: code and English run 3-4 characters a token
# As the local sampler (autodbg/llm/sampling.py, not imported: it loads llama_cpp).
TOP_K, TOP_P, MIN_P = 40, 0.95, 0.05


@dataclass(frozen=True)
class Server:
    """What the probe found out about the server."""
    flavour: str  # "vllm", "llama-server", "llama_cpp.server" or "openai-compatible"
    n_ctx: int
    load_seconds: float


class RemoteEngine(Model):
    """Chat completions under a grammar from one model on one server."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, n_ctx: int | None = None,
                 verbose: bool = False, proxy: str | None = None, ca_file: str | None = None,
                 ca_dir: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")  # the OpenAI base, .../v1
        parts = urlsplit(self.base_url)
        self._secure = parts.scheme == "https"
        self._host, self._port = parts.hostname or "", parts.port
        self._openai_path = parts.path  # "/v1"
        # The servers' own endpoints (/props, /tokenize, /extras/...) sit beside /v1, not in it.
        self._root_path = parts.path.removesuffix("/v1")
        self.model = model
        self.api_key = api_key
        self.n_ctx_setting = n_ctx
        self.verbose = verbose
        self.proxy = proxy
        self.ca_file, self.ca_dir = ca_file, ca_dir
        self.server: Server | None = None
        self._client: httpx.Client | None = None  # made at the first request

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Nothing to start: the server runs already, and wait_loaded probes it."""

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def wait_loaded(self, deadline: float) -> dict:
        if self.server is None:
            self.server = self._probe(deadline)
        return {"ok": True, "load_seconds": self.server.load_seconds, "n_ctx": self.server.n_ctx,
                "server": self.server.flavour}

    # --- requests ----------------------------------------------------------------------------

    def complete(self, messages: list[dict], *, grammar: str | None, max_tokens: int, deadline: float,
                 temperature: float = 0.2, seed: int = 0, cache_prefix_messages: int = 0,
                 on_token: Callable[[str], None] | None = None) -> Completion:
        """CACHE_PREFIX_MESSAGES is not sent: the servers keep their own prefix caches. Not streamed:
        ON_TOKEN gets the whole text once."""
        flavour = self.wait_loaded(deadline)["server"]
        started = time.monotonic()
        reply = self._chat(messages, grammar, max_tokens, deadline, temperature, seed, flavour)
        text = self._content(reply)
        if on_token is not None and text:
            on_token(text)
        usage = reply.get("usage") or {}
        prompt = _int(usage.get("prompt_tokens"))
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")  # vLLM, when enabled
        if cached is None:
            cached = (reply.get("timings") or {}).get("cache_n")  # llama-server
        cached = min(_int(cached), prompt)
        return Completion(
            text=text, finish_reason=str(reply["choices"][0].get("finish_reason") or "stop"),
            prompt_tokens=prompt, prompt_tokens_evaluated=prompt - cached, prompt_tokens_reused=cached,
            completion_tokens=_int(usage.get("completion_tokens")), drafted=0, accepted=0,
            system_prompt_from_disk=False, system_prompt_tokens=0,
            grammar_refusals=0,  # no server reports it
            seconds=round(time.monotonic() - started, 3),
            prompt_seconds=round(_number((reply.get("timings") or {}).get("prompt_ms")) / 1000, 3),  # llama-server
        )

    def context_size(self, deadline: float) -> int:
        return self.wait_loaded(deadline)["n_ctx"]

    def count_tokens(self, messages: list[dict], deadline: float) -> int:
        flavour = self.wait_loaded(deadline)["server"]
        root = self._root_path
        if flavour == "vllm":
            counted = self._post(f"{root}/tokenize", {"model": self.model, "messages": messages}, deadline)
            return _int(counted.get("count"))
        if flavour == "llama-server":
            rendered = self._post(f"{root}/apply-template", {"messages": messages}, deadline, missing_ok=True)
            if rendered is not None:
                return self._llama_server_tokens(str(rendered.get("prompt", "")), deadline)
        # Only the contents can be counted here: the chat template's markers are allowed for.
        contents = "\n".join(str(m.get("content", "")) for m in messages)
        markers = MESSAGE_MARKERS * (len(messages) + 1)  # +1: the assistant's opening
        if flavour == "llama-server":  # one from before /apply-template (2025)
            return self._llama_server_tokens(contents, deadline) + markers
        if flavour == "llama_cpp.server":
            counted = self._post(f"{root}/extras/tokenize/count", {"model": self.model, "input": contents}, deadline)
            return _int(counted.get("count")) + markers
        return len(contents) // CHARS_PER_TOKEN + markers

    def _llama_server_tokens(self, text: str, deadline: float) -> int:
        # add_special: as the completion tokenizes its prompt; /apply-template leaves out the BOS
        # token of a model that adds one, and /tokenize adds none by default.
        body = {"content": text, "add_special": True}
        tokens = self._post(f"{self._root_path}/tokenize", body, deadline).get("tokens")
        return len(tokens) if isinstance(tokens, list) else 0

    # --- probe -------------------------------------------------------------------------------

    def _probe(self, deadline: float) -> Server:
        """Check the server serves the model and applies grammars; learn its kind and context."""
        started = time.monotonic()
        listed = self._get(f"{self._openai_path}/models", deadline).get("data")
        if not isinstance(listed, list):
            raise self._error("its /models reply has no list of models")
        models = [m for m in listed if isinstance(m, dict)]
        entry = next((m for m in models if self.model in _names(m)), None)
        if entry is None:
            served = ", ".join(dict.fromkeys(name for m in models for name in _names(m))) or "none"
            raise self._error(f"it does not serve AUTODBG_REMOTE_MODEL={self.model} (it serves: {served})")
        flavour, reported = self._flavour(entry, deadline)
        n_ctx = self.n_ctx_setting or reported or UNREPORTED_CONTEXT
        reply = self._chat([{"role": "user", "content": "Say ok."}], GRAMMAR_CHECK, 16, deadline, 0.0, 0, flavour)
        text = self._content(reply)
        if text != "autodbg-ok":
            raise self._error(f"it ignored the grammar (asked for 'autodbg-ok', got {_one_line(repr(text), 40)}): "
                              "use llama-server, llama_cpp.server or vLLM")
        return Server(flavour, n_ctx, round(time.monotonic() - started, 3))

    def _flavour(self, entry: dict, deadline: float) -> tuple[str, int | None]:
        if "max_model_len" in entry:
            return "vllm", _int(entry["max_model_len"]) or None
        props = self._get(f"{self._root_path}/props", deadline, missing_ok=True)
        if props is not None and "default_generation_settings" in props:
            settings = props["default_generation_settings"]
            return "llama-server", _int(settings.get("n_ctx") if isinstance(settings, dict) else None) or None
        counted = self._post(f"{self._root_path}/extras/tokenize/count", {"input": "x"}, deadline, missing_ok=True)
        if counted is not None:
            return "llama_cpp.server", None
        return "openai-compatible", None

    def _chat(self, messages: list[dict], grammar: str | None, max_tokens: int, deadline: float,
              temperature: float, seed: int, flavour: str) -> dict:
        body = {"model": self.model, "messages": messages, "max_tokens": max_tokens, "temperature": temperature,
                "top_p": TOP_P, "top_k": TOP_K, "min_p": MIN_P, "seed": seed, "stream": False}
        if grammar is not None:
            if flavour == "vllm":
                body["structured_outputs"] = {"grammar": grammar}
            else:
                body["grammar"] = grammar
        return self._post(f"{self._openai_path}/chat/completions", body, deadline)

    def _content(self, reply: dict) -> str:
        try:
            return reply["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise self._error("its reply has no choices[0].message.content") from None

    # --- HTTP --------------------------------------------------------------------------------

    def _get(self, path: str, deadline: float, missing_ok: bool = False) -> dict | None:
        return self._request("GET", path, None, deadline, missing_ok)

    def _post(self, path: str, body: dict, deadline: float, missing_ok: bool = False) -> dict | None:
        return self._request("POST", path, body, deadline, missing_ok)

    def _request(self, method: str, path: str, body: dict | None, deadline: float, missing_ok: bool) -> dict | None:
        """One request, its whole exchange bounded by DEADLINE; the reply's JSON object, or None
        for a 404 when MISSING_OK (an endpoint this kind of server does not have)."""
        data = None if body is None else json.dumps(body).encode()
        if self.verbose:
            shown = "" if data is None else " " + data.decode()  # whole: what leaves the machine, exactly
            say(f"autodbg: sent to the model server: {method} {self._url(path)}{shown}", file=sys.stderr)
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        try:
            # Each wait (connect, send, the reply) may take what is left; the reply's chunks are
            # checked against the deadline too, so a server that trickles stops at most one wait later.
            with self._http().stream(method, self._url(path), content=data, headers=headers,
                                     timeout=self._time_left(deadline)) as response:
                chunks = []
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    self._time_left(deadline)
                status = response.status_code
        except httpx.TimeoutException:
            raise self._error("did not answer in time") from None
        except httpx.HTTPError as err:
            raise self._error(self._connection_problem(err)) from None
        return self._reply(path, status, b"".join(chunks), missing_ok)

    def _http(self) -> httpx.Client:
        """The one client of this engine: its connection is kept alive between requests."""
        if self._client is None:
            try:
                verify = (ssl.create_default_context(cafile=self.ca_file, capath=self.ca_dir)
                          if self.ca_file or self.ca_dir else True)
            except (OSError, ssl.SSLError) as err:
                raise self._error(f"cannot read the certificates {self.ca_file or self.ca_dir}: "
                                  f"{getattr(err, 'strerror', None) or err}") from None
            try:
                self._client = httpx.Client(proxy=self.proxy, verify=verify, trust_env=False)
            except (ValueError, ImportError) as err:  # a malformed proxy URL; socks5 without socksio
                raise self._error(f"cannot use the proxy {self.proxy}: {_one_line(str(err), 120)}") from None
        return self._client

    def _connection_problem(self, err: httpx.HTTPError) -> str:
        """ERR, from httpx, as what happened to the connection: its root cause is the socket's."""
        cause: BaseException = err
        while (cause.__cause__ or cause.__context__) is not None:  # httpx's, httpcore's, then the socket's
            cause = cause.__cause__ or cause.__context__
        through = f" through the proxy {self.proxy}" if self.proxy else ""
        if isinstance(cause, ConnectionRefusedError):
            return f"refused the connection{through} (is the server running?)"
        if isinstance(cause, socket.gaierror):
            return f"cannot resolve the host name {(urlsplit(self.proxy).hostname if self.proxy else self._host)!r}"
        return f"the connection failed{through} ({_one_line(str(err) or type(err).__name__, 120)})"

    def _reply(self, path: str, status: int, raw: bytes, missing_ok: bool) -> dict | None:
        if status == 404 and missing_ok:
            return None
        text = raw.decode("utf-8", errors="replace")
        if status in (401, 403):
            hint = "check AUTODBG_API_KEY" if self.api_key else "it needs an API key: set AUTODBG_API_KEY"
            raise self._error(f"refused the API key (HTTP {status} for {path}: {_message(text)}): {hint}")
        if status == 404:
            raise self._error(f"HTTP 404 for {path}: wrong AUTODBG_BASE_URL (it ends in /v1) or AUTODBG_REMOTE_MODEL")
        if status >= 400:
            raise self._error(f"HTTP {status} for {path}: {_message(text)}")
        try:
            reply = json.loads(text)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise self._error(f"its reply to {path} is not a JSON object: {_one_line(repr(text), 80)}")
        return reply

    def _time_left(self, deadline: float) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise self._error("did not answer in time")
        return left

    def _url(self, path: str) -> str:
        scheme = "https" if self._secure else "http"
        port = f":{self._port}" if self._port else ""
        return f"{scheme}://{self._host}{port}{path}"

    def _error(self, problem: str) -> EngineError:
        return EngineError(f"model server {self.base_url}: {problem}")


def _names(entry: dict) -> list[str]:
    """The names a /v1/models entry answers to: its id, and on llama-server its other --alias names."""
    aliases = entry.get("aliases")
    return [str(entry.get("id")), *(str(a) for a in aliases)] if isinstance(aliases, list) else [str(entry.get("id"))]


def _message(text: str) -> str:
    """The error message in a server's error reply, short and on one line."""
    try:
        reply = json.loads(text)
    except ValueError:
        reply = None
    if isinstance(reply, dict):
        error = reply.get("error", reply.get("detail", reply.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            text = str(error)
    return _one_line(text, 200) or "no message"


def _one_line(text: str, limit: int) -> str:
    return _cut(" ".join(text.split()), limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def _int(value) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0


def _number(value) -> float:
    """VALUE as a count of milliseconds or tokens from a server: anything else is 0."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if number > 0 and number != float("inf") else 0.0
