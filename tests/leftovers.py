"""Processes a test's subprocess left behind: a forked session, an unreaped probe, a spawned child."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def survivors(group: int) -> list[str]:
    """Live (not zombie) processes of process group GROUP, as `pid N NAME`; they are then killed, so
    nothing of one test outlives it. A process being reaped right now gets a second to go."""
    found = []
    for _ in range(20):
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            pid, rest = text.split(" ", 1)
            name, fields = rest.rsplit(")", 1)[0].lstrip("("), rest.rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":
                found.append(f"pid {pid} {name}")
        if not found:
            return []
        time.sleep(0.05)
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return found
