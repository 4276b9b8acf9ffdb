"""One JSON-lines channel between two autodbg processes (the model worker, the re-run tracer).

Every message is one JSON object on one line with a "kind"; the receiver names the kinds it
expects and the fields each must carry, and anything else is refused, so a confused or dying
peer becomes a one-line error, never a KeyError deep inside the caller.
"""

from __future__ import annotations

import json
import os
import selectors
import time

MAX_LINE = 16 << 20  # bytes of one message: far above any real one


class ChannelError(Exception):
    """The peer sent something that is not a message we expect; one line."""


class ChannelClosed(ChannelError):
    """The peer closed its end (it exited or died)."""


class ChannelTimeout(ChannelError):
    """No whole message arrived before the deadline."""


Shapes = dict[str, tuple[str, ...]]  # kind -> the fields a message of that kind must have


class Channel:
    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        self._buffer = b""

    def send(self, kind: str, **fields) -> None:
        data = (json.dumps({"kind": kind, **fields}) + "\n").encode()
        try:
            while data:
                data = data[os.write(self.write_fd, data):]
        except OSError:  # EPIPE: the peer is gone
            raise ChannelClosed("the other process is gone") from None

    def receive(self, shapes: Shapes, deadline: float | None = None) -> dict:
        """The next message, which must be of one of the kinds in SHAPES; DEADLINE (monotonic)
        None waits for ever."""
        while b"\n" not in self._buffer:
            self._fill(deadline)
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            raise ChannelError(f"not JSON: {line[:80]!r}") from None
        kind = message.get("kind") if isinstance(message, dict) else None
        if kind not in shapes:
            raise ChannelError(f"unexpected message {kind!r} (expected {', '.join(shapes)})")
        missing = [name for name in shapes[kind] if name not in message]
        if missing:
            raise ChannelError(f"message {kind!r} lacks {', '.join(missing)}")
        return message

    def _fill(self, deadline: float | None) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self.read_fd, selectors.EVENT_READ)
            while True:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise ChannelTimeout("no answer in time")
                if selector.select(timeout=None if remaining is None else min(remaining, 0.5)):
                    break
        try:
            chunk = os.read(self.read_fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            raise ChannelClosed("the other process closed the channel")
        self._buffer += chunk
        if len(self._buffer) > MAX_LINE:
            raise ChannelError("message too long")

    def close(self) -> None:
        for fd in {self.read_fd, self.write_fd}:
            try:
                os.close(fd)
            except OSError:
                pass
