"""Render `autodbg bench --json` files as the Markdown table in README's "How well does it work?"."""

import json
import sys
from pathlib import Path


def row(path: Path) -> str:
    data = json.loads(path.read_text())
    t = data["totals"]["all"]
    model = Path(data["model"]).name if data["model"] != "none" else "evidence only"
    mode = "-" if data["model"] == "none" else ("one-shot" if data.get("turns") == 0 else "session")
    n = t["cases"]
    share = lambda k: f"{t[k]}/{n} ({100 * t[k] / n:.0f}%)"  # noqa: E731
    return (f"| {model} | {mode} | {share('root_cause_hit')} | {share('fix_hit')} | {t['commands_valid']} | "
            f"{t['median_seconds']} | {t['p90_seconds']} | {t['median_turns']} |")


print("| model | mode | root-cause line | fix passes test | commands valid | median s | p90 s | turns |")
print("|---|---|---|---|---|---|---|---|")
for arg in sys.argv[1:]:
    print(row(Path(arg)))
