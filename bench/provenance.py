"""Does the static provenance (autodbg.analysis.backtrack) name the root-cause line?

For each dev case whose root cause is not the crash line: run the crash with autodbg off, take the
case's frames from the traceback text (innermost first), backtrack from the crash line, and check
whether a lead covers one of truth.json's acceptable lines in its buggy file. Pure static after the
crash run; no model.

    python3 bench/provenance.py [CORPUS_DIR] [--depth N] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autodbg.analysis.backtrack import Lead, Site, backtrack, site  # noqa: E402

FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)$')
PYTHON = "/work/main/.venv/bin/python"


def crash_sites(case: Path, sources: dict[str, str]) -> list[Site]:
    """The case's own frames of the crash's traceback, innermost first."""
    env = {**os.environ, "AUTODBG": "0"}
    if Path(PYTHON).exists():
        env["PATH"] = f"{Path(PYTHON).parent}:{env['PATH']}"  # run.sh calls python3
    run = subprocess.run(["sh", "run.sh"], cwd=case, env=env, capture_output=True, text=True, timeout=60)
    sites = []
    for text in run.stderr.splitlines():
        match = FRAME.match(text)
        if not match:
            continue
        file = str((case / match["file"]).resolve())
        if file in sources:
            sites.append(site(sources[file], file, int(match["line"]), match["function"]))
    return sites[::-1]


def hit(leads: list[Lead], buggy_file: str, lines: list[int]) -> Lead | None:
    for lead in leads:
        o = lead.origin
        if lead.file == buggy_file and any(o.line <= line <= o.end_line for line in lines):
            return lead
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", default=str(Path(__file__).parent / "corpus" / "dev"))
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    hits, counts, ranks, misses = 0, [], [], []
    cases = [c for c in sorted(Path(args.corpus).iterdir()) if (c / "truth.json").exists()]
    cases = [c for c in cases if not json.loads((c / "truth.json").read_text())["crash_at_buggy_line"]]
    for case in cases:
        truth = json.loads((case / "truth.json").read_text())
        sources = {str(p.resolve()): p.read_text(encoding="utf-8") for p in case.glob("*.py")}
        sites = crash_sites(case, sources)
        leads = backtrack(sites, sources, max_depth=args.depth) if sites else []
        counts.append(len(leads))
        found = hit(leads, str((case / truth["buggy_file"]).resolve()), truth["acceptable_lines"])
        if found:
            hits += 1
            ranks.append(leads.index(found) + 1)
            print(f"hit   {case.name}: depth {found.depth} via {found.via}: line {found.origin.line} "
                  f"({found.origin.kind}), lead {ranks[-1]} of {len(leads)}")
        else:
            misses.append(case.name)
            print(f"miss  {case.name}: {len(leads)} leads, crash {sites[0].line if sites else '?'}")
        if args.verbose:
            for lead in leads:
                print(f"        d{lead.depth} {Path(lead.file).name}:{lead.origin.line} {lead.origin.kind:<10}"
                      f" {lead.via:<16} {lead.origin.code}")
    n = len(cases)
    print(f"\nprovenance names the root-cause line: {hits}/{n} ({100 * hits / n:.0f}%), depth {args.depth}; "
          f"leads per case median {statistics.median(counts):g}, max {max(counts)}; "
          f"the root-cause lead's place in the list median {statistics.median(ranks) if ranks else '-'}, "
          f"within the first 5 in {sum(r <= 5 for r in ranks)}/{n}")


if __name__ == "__main__":
    main()
