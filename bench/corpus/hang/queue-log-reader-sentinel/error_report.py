"""Morning error report: a reader thread streams the log lines of every server in sources.txt
into a queue, while the main thread tallies the errors as they arrive."""

import queue
import threading
from collections import Counter
from pathlib import Path

DONE = object()  # sent by the reader after the last line

HERE = Path(__file__).parent


def read_logs(paths, lines, missing):
    """Put every line of the files PATHS on LINES, then DONE. Servers without a log today (a
    decommissioned one, say) are listed in MISSING."""
    for path in paths:
        if not path.exists():
            missing.append(path.name)
            return
        with open(path, encoding="utf-8") as f:
            for line in f:
                lines.put((path.stem, line.rstrip("\n")))
    lines.put(DONE)


def error_kind(message):
    """Group messages that differ only in their details (order numbers, file names)."""
    return message.split(":")[0].split(" order=")[0]


def tally(lines):
    errors = Counter()
    servers = Counter()
    while True:
        item = lines.get()
        if item is DONE:
            return errors, servers
        server, line = item
        date, time_, level, message = line.split(" ", 3)
        if level == "ERROR":
            errors[error_kind(message)] += 1
            servers[server] += 1


paths = [HERE / name for name in (HERE / "sources.txt").read_text(encoding="utf-8").split()]
lines = queue.Queue()
missing = []
threading.Thread(target=read_logs, args=(paths, lines, missing), daemon=True).start()
errors, servers = tally(lines)
for kind, count in errors.most_common():
    print(f"{count} x {kind}")
print(f"errors per server: {', '.join(f'{s} {n}' for s, n in sorted(servers.items()))}")
print(f"no log from: {', '.join(missing) or 'none'}")
