"""Run a function in a probe: a forked child holding a copy-on-write image of the caller, inside
the sandbox (autodbg.probe.sandbox), which sends back the function's JSON-able value.

The parent only reads a pipe and waits, with a deadline it enforces itself (SIGKILL), so nothing
the child does (loop, block, cancel timers, exit, crash, exhaust memory) can hang it, change its
state or reach its terminal. The child always leaves with os._exit: no atexit handlers, no flush
of the stdio buffers it inherited.

Pipe, child -> parent: one line, the JSON list of layers entered; then one JSON object
{"status": "ok", "value"} | {"status": "error" | "refused", "detail"}, with "refusals" (what the
sandbox refused, in order); then end of file.
"""

from __future__ import annotations

import enum
import gc
import io
import json
import os
import re
import signal
import sys
from dataclasses import dataclass
from typing import Any, Callable, NoReturn

from autodbg.probe import own, sandbox
from autodbg.probe.sandbox import Limits, Refused

_POLL = 0.05  # seconds between exit checks where there is no pidfd to wait on
_CHUNK = 1 << 16
_INTERNAL_FAILURE = 70  # exit status of a child whose own probe code failed (EX_SOFTWARE)
_DETAIL_CHARS = 300
_DEPTH = 200  # nesting of a reply's JSON the parent accepts: far above any record's


class ProbeStatus(str, enum.Enum):
    """How a probe ended."""
    OK = "ok"  # the function returned: its value came back
    ERROR = "error"  # it raised
    REFUSED = "refused"  # the sandbox stopped it
    TIMED_OUT = "timed out"
    DIED = "died"  # no reply: killed, crashed, or its reply was unreadable

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class ProbeOutcome:
    status: ProbeStatus
    value: Any = None  # the function's return value, when ok
    detail: str = ""  # one line for a human and a report; empty when ok
    seconds: float = 0.0
    layers: tuple[str, ...] = ()  # sandbox layers the probe entered (sandbox.Layer names)
    refusals: tuple[str, ...] = ()  # what the sandbox refused the function, in order (even where it caught it)


def available() -> bool:
    """Whether probes can run here: fork exists (not Windows)."""
    return hasattr(os, "fork") and sys.platform != "win32"


def run_in_probe(function: Callable[[], Any], *, deadline: float, limits: Limits | None = None) -> ProbeOutcome:
    """Call FUNCTION in a sandboxed fork and return how that ended, within DEADLINE seconds
    (plus the time to kill and reap the child). Its value comes back through JSON (tuples as
    lists, dict keys as strings). Never raises for anything the child does."""
    limits = limits or Limits()
    sandbox.prepare()
    start = own.monotonic()
    read_fd, write_fd = os.pipe()
    try:
        pid = sandbox.fork_quietly()
    except Exception as exc:  # noqa: BLE001 — out of processes, or the program's own audit hook refuses
        os.close(read_fd)
        os.close(write_fd)
        return ProbeOutcome(ProbeStatus.DIED, detail=f"probe could not start: {exc}")
    if pid == 0:
        _child(function, read_fd, write_fd, deadline, limits)
    os.close(write_fd)
    try:
        return _collect(pid, read_fd, start, deadline, limits)
    finally:
        os.close(read_fd)
        _end(pid)


# --- the child -----------------------------------------------------------------------------------

def _child(function: Callable[[], Any], read_fd: int, write_fd: int, deadline: float, limits: Limits) -> NoReturn:
    code = _INTERNAL_FAILURE
    try:
        os.close(read_fd)
        _silence_stdio()
        gc.disable()  # a full collection would touch (and so copy) every page of the image
        applied = sandbox.enter(deadline, limits, keep_fds={write_fd})
        _send(write_fd, json.dumps([layer.name for layer in applied if layer.available]).encode() + b"\n")
        missing = sandbox.missing(applied)
        if missing:  # no program code without the sandbox: say so instead
            detail = f"probes off: the sandbox could not be installed ({missing})"
            _send(write_fd, json.dumps({"status": "refused", "detail": _cut(detail)}).encode())
        else:
            _send(write_fd, _reply(function, limits))
        code = 0
    finally:
        os._exit(code)


def _silence_stdio() -> None:
    """Program code printing in the probe must reach neither the user's terminal nor the
    parent's duplicated stdio buffers."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = sys.__stdin__ = io.StringIO()
    sys.stdout = sys.__stdout__ = open(os.devnull, "w")  # noqa: SIM115 — lives as long as the child
    sys.stderr = sys.__stderr__ = sys.stdout


def _reply(function: Callable[[], Any], limits: Limits) -> bytes:
    try:
        value = function()
        reply = json.dumps({"status": "ok", "value": value, "refusals": sandbox.refusals()}).encode()
    except BaseException as exc:  # noqa: BLE001 — every way program code can fail is an outcome
        refusal = refusal_in_chain(exc)
        status, detail = ("refused", _describe(refusal)) if refusal else ("error", _describe(exc))
        reply = json.dumps({"status": status, "detail": detail, "refusals": sandbox.refusals()}).encode()
    if len(reply) > limits.reply_bytes:
        detail = f"reply too large: {len(reply)} bytes (limit {limits.reply_bytes})"
        reply = json.dumps({"status": "error", "detail": detail}).encode()
    return reply


def refusal_in_chain(exc: BaseException) -> Refused | None:
    """The sandbox refusal that caused EXC, when program code wrapped it in its own error."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen and len(seen) < 50:
        if isinstance(exc, Refused):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _describe(exc: BaseException) -> str:
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 — a program's __str__ may fail in any way
        message = "<unprintable>"
    if isinstance(exc, Refused):
        line = message
    else:
        line = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return _cut(line)


def _cut(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= _DETAIL_CHARS else line[: _DETAIL_CHARS - 3] + "..."


def _send(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# --- the parent ----------------------------------------------------------------------------------

def _collect(pid: int, read_fd: int, start: float, deadline: float, limits: Limits) -> ProbeOutcome:
    end = start + deadline
    cap = limits.reply_bytes + _CHUNK  # the reply plus the layers line
    received = bytearray()
    pidfd = _pidfd(pid)
    pipe_open = True
    try:
        while (ended := _exit_status(pid)) is None:
            remaining = end - own.monotonic()
            if remaining <= 0:
                return _outcome(ProbeStatus.TIMED_OUT, f"timed out after {_format_seconds(deadline)} s", start, received)
            watch = ([read_fd] if pipe_open else []) + ([pidfd] if pidfd is not None else [])
            wait = remaining if pidfd is not None else min(remaining, _POLL if pipe_open else 0.001)
            ready, _, _ = own.select(watch, [], [], wait)
            if read_fd in ready:
                chunk = os.read(read_fd, _CHUNK)
                pipe_open = bool(chunk)
                received += chunk
                if len(received) > cap:
                    return _outcome(ProbeStatus.ERROR, f"reply larger than {limits.reply_bytes} bytes", start, received)
    finally:
        if pidfd is not None:
            os.close(pidfd)
    received += _drain(read_fd, cap)
    return _ended(ended, start, received)


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)  # readable when the child exits: no polling
    except (AttributeError, OSError):
        return None


def _exit_status(pid: int) -> str | None:
    """How the child ended ("exit 0", "signal 11 (SIGSEGV)"), or None while it runs. Leaves the
    zombie for _end, so its pid (and process group) cannot be reused before then."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # the program ignores SIGCHLD, or reaped it: the status is gone
        return "exit status unknown"
    if info is None:
        return None
    if info.si_code == os.CLD_EXITED:
        return f"exit {info.si_status}"
    try:
        name = signal.Signals(info.si_status).name
    except ValueError:
        name = "?"
    return f"signal {info.si_status} ({name})"


def _drain(read_fd: int, cap: int) -> bytes:
    """What the child wrote before it exited (a grandchild may hold the pipe open: no EOF wait)."""
    os.set_blocking(read_fd, False)
    data = bytearray()
    try:
        while len(data) <= cap and (chunk := os.read(read_fd, _CHUNK)):
            data += chunk
    except BlockingIOError:
        pass
    return bytes(data)


def _ended(ended: str, start: float, received: bytearray) -> ProbeOutcome:
    """The outcome the reply states, if it is one: a reply is data the child (where program code
    ran) wrote, so it is parsed within bounds and must have the reply's shape, else the probe died.
    A child that wrote a reply but did not exit 0 died: the reply is not the one autodbg sends."""
    reply = _bounded_json(bytes(received).partition(b"\n")[2])
    if ended in ("exit 0", "exit status unknown") and isinstance(reply, dict) and isinstance(reply.get("status"), str):
        status, detail, refusals = reply["status"], reply.get("detail", ""), reply.get("refusals", [])
        if isinstance(refusals, list) and all(isinstance(r, str) for r in refusals) and isinstance(detail, str):
            if status == ProbeStatus.OK and "value" in reply:
                return _outcome(ProbeStatus.OK, "", start, received, value=reply["value"], refusals=tuple(refusals))
            if status in (ProbeStatus.ERROR, ProbeStatus.REFUSED) and detail:
                return _outcome(ProbeStatus(status), _cut(detail), start, received, refusals=tuple(refusals))
    return _outcome(ProbeStatus.DIED, f"probe died: {ended}", start, received)


def _bounded_json(data: bytes) -> Any:
    """DATA as JSON, or None where it is not JSON or nests deeper than _DEPTH (the decoder would
    otherwise recurse as deep as the child liked)."""
    depth = 0
    for byte in _STRING.sub(b"", data).translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        if depth > _DEPTH:
            return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')  # a JSON string: its brackets are text
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _outcome(status: ProbeStatus, detail: str, start: float, received: bytearray, value: Any = None,
             refusals: tuple[str, ...] = ()) -> ProbeOutcome:
    names = _bounded_json(bytes(received).partition(b"\n")[0])
    layers = tuple(names) if isinstance(names, list) and all(isinstance(n, str) for n in names) else ()
    return ProbeOutcome(status, value, detail, own.monotonic() - start, layers, refusals)


def _end(pid: int) -> None:
    """Kill the child (and anything it started in its session), then reap it."""
    try:
        if os.getpgid(pid) == pid:  # its own session: take any grandchildren along
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _format_seconds(seconds: float) -> str:
    return f"{seconds:.1f}" if seconds >= 1 else f"{seconds:.2g}"
