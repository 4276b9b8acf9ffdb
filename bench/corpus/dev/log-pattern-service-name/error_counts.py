"""Count errors per service in the application log."""

import re
from collections import Counter
from pathlib import Path

LINE_PATTERN = re.compile(r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) \[(\w+)\] (\w+): (.*)$")


def parse_line(line):
    match = LINE_PATTERN.match(line)
    day, time, level, service, message = match.groups()
    return {"day": day, "time": time, "level": level, "service": service, "message": message}


def error_counts(lines):
    entries = (parse_line(line) for line in lines if line.strip())
    return Counter(entry["service"] for entry in entries if entry["level"] == "ERROR")


log = Path(__file__).with_name("app.log").read_text(encoding="utf-8").splitlines()
for service, count in sorted(error_counts(log).items()):
    print(f"{service}: {count} errors")
