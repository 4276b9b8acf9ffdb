"""Render `autodbg bench --json` files as the Markdown tables in README's "How well does it work?":
one row per run, then root-cause and fix hits by crash kind, one column per run."""

import json
import sys
from pathlib import Path


def label(data: dict) -> str:
    if data["model"] == "none":
        return "evidence only"
    mode = "one-shot" if data.get("turns") == 0 else ("session + re-runs" if data.get("mode") == "run" else "session")
    budget = data.get("timeout", 60.0)
    return f"{Path(data['model']).name} {mode}" + (f" ({budget:g} s budget)" if budget != 60.0 else "")


def share(hits: int, n: int) -> str:
    return f"{hits}/{n} ({100 * hits / n:.0f}%)" if n else "-"


runs = [json.loads(Path(arg).read_text()) for arg in sys.argv[1:]]
print("| run | root-cause line | fix passes test | ran: passes** | search found*** | model's fixes run**** "
      "| provenance names it* | commands valid | median s | p90 s | turns | tokens in/out | timed out |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for data in runs:
    t = data["totals"]["all"]
    origins = share(t["origin_hit"], t["away_from_crash"]) if "origin_hit" in t else "-"
    ran = f"{t['fix_ran_passes']} ({t['fix_ran_passes_hit']} pass the test)" if "fix_ran_passes" in t else "-"
    found = (f"{t['search_passed']}/{t['searched']} ({t['search_at_root_cause']} at the root cause, "
             f"{t.get('search_fix_hit', '-')} pass the test)" if "searched" in t else "-")
    candidates = (f"{t['candidates']} ({t['candidate_at_root_cause']} cases at the root cause, "
                  f"{t['candidate_passed']} passed)" if "candidates" in t else "-")
    print(f"| {label(data)} | {share(t['root_cause_hit'], t['cases'])} | {share(t['fix_hit'], t['cases'])} | {ran} | "
          f"{found} | {candidates} | {origins} | {t['commands_valid']} | {t['median_seconds']} | {t['p90_seconds']} | "
          f"{t['median_turns']} | {t.get('median_prompt_tokens', '-')}/{t.get('median_generated', '-')} | "
          f"{t.get('timed_out', '-')} |")
print("\n*of the cases whose root cause is not the crash line: a line of the evidence's "
      "\"where the values came from\" is the root cause")
print("**fixes labelled \"ran: passes\" (the crashed program ran to the end with the fix, in a probe), "
      "and how many of those pass the case's test")
print("***cases where the search (no model) found a change that passed, of those it ran on; where the first such "
      "change is at the root cause, and where it makes the case's own test pass")
print("****fixes the model wrote that ran in probes; cases where one of them was at the root cause, and where one "
      "passed")
print()
# What a user may trust: per label, how many answers carried it and how many of those are right.
LABELS = ("passes your tests", "stops the crash", "guard", "tried, did not work")
print("| run | line | fix | " + " | ".join(f"{name} (right)" for name in LABELS)
      + " | changes what judges | runs that agree | median s | p90 s |")
print("|---" * (len(LABELS) + 8) + "|")
for data in runs:
    t = data["totals"]["all"]
    labels = t.get("labels", {})
    cells = [f"{labels[name][0]} ({labels[name][1]})" if name in labels else "0" for name in LABELS]
    agree = f"{t['agree']}/{t['repeated']}" if t.get("repeated") else "-"
    print(f"| {label(data)} | {share(t['root_cause_hit'], t['cases'])} | {share(t['fix_hit'], t['cases'])} | "
          + " | ".join(cells) + f" | {t.get('judge_edited', '-')} | {agree} | {t['median_seconds']} | {t['p90_seconds']} |")
print()
print("| crash kind | " + " | ".join(label(d) for d in runs) + " |")
print("|---" * (len(runs) + 1) + "|")
kinds = sorted({k for d in runs for k in d["totals"]["by_crash_kind"]})
for kind in kinds:
    cells = []
    for data in runs:
        g = data["totals"]["by_crash_kind"].get(kind)
        cells.append(f"line {g['root_cause_hit']}/{g['cases']}, fix {g['fix_hit']}/{g['cases']}" if g else "-")
    print(f"| {kind} | " + " | ".join(cells) + " |")
