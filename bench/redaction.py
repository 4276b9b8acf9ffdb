"""What redaction costs per crash: learning the secrets of the crashed frames, then scrubbing
dossier-sized text, in ms (medians). The crash is a real one, in this process: 6 nested user frames
with 60 locals each (strings, dicts, lists, objects, a few secrets), 200 module globals.

Usage: python bench/redaction.py [RUNS]
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autodbg.debugger.session import Session  # noqa: E402
from autodbg.frames.core import PostMortem  # noqa: E402
from autodbg.evidence import build_dossier  # noqa: E402
from autodbg.investigate.prompt import dossier_text  # noqa: E402
from autodbg.redact import Redactor  # noqa: E402

PROGRAM = '''
import random
rng = random.Random(1)
def word(n):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))
for i in range(200):
    globals()[f"SETTING_{i}"] = word(12)
API_TOKEN = word(32)


class Record:
    def __init__(self, i):
        self.id = i
        self.name = word(8)
        self.tags = [word(5) for _ in range(5)]
        self.meta = {"owner": word(6), "created": word(10)}


def level(depth):
    data = {}
    for i in range(56):
        kind = i % 4
        data[f"v{i}"] = (word(20) if kind == 0 else {f"k{j}": word(10) for j in range(8)} if kind == 1
                         else [word(12) for _ in range(10)] if kind == 2 else Record(i))
    password = word(16)
    db_url = f"postgres://app:{word(14)}@db.internal/prod"
    headers = {"Authorization": "Bearer " + word(40), "Accept": "json"}
    v0, v1, v2, v3, v4, v5, v6, v7, v8, v9 = (data[f"v{i}"] for i in range(10))
    v10, v11, v12, v13, v14, v15, v16, v17, v18, v19 = (data[f"v{i}"] for i in range(10, 20))
    v20, v21, v22, v23, v24, v25, v26, v27, v28, v29 = (data[f"v{i}"] for i in range(20, 30))
    v30, v31, v32, v33, v34, v35, v36, v37, v38, v39 = (data[f"v{i}"] for i in range(30, 40))
    v40, v41, v42, v43, v44, v45, v46, v47, v48, v49 = (data[f"v{i}"] for i in range(40, 50))
    v50, v51, v52, v53, v54, v55 = (data[f"v{i}"] for i in range(50, 56))
    if depth == 5:
        return v0["missing"] + password
    return level(depth + 1)


level(0)
'''


def crash() -> BaseException:
    try:
        exec(compile(PROGRAM, "bench_program.py", "exec"), {"__name__": "bench_program"})
    except TypeError as exc:
        return exc
    raise SystemExit("the bench program did not crash")


def median_ms(fn, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    exc = crash()
    debugger = PostMortem(exc)
    frames = list(debugger.all_frames())

    def learn() -> Redactor:
        redactor = Redactor()
        for frame in frames:
            redactor.learn_frame(frame)
        for link in debugger.chain:
            redactor.learn("exception", link.exc)
        redactor.learn_process()
        return redactor

    redactor = learn()
    session = Session(debugger, redactor=redactor)
    record = build_dossier(session)
    prompt, dossier = dossier_text(record), record
    locals_per_frame = [len(f.f_locals) for f in frames if f.f_code.co_filename == "bench_program.py"]
    print(f"crash: {len(locals_per_frame)} user frames with {locals_per_frame} locals; "
          f"learned {len(redactor.values)} secret values")
    print(f"dossier: prompt text {len(prompt)} chars, JSON {len(json.dumps(dossier.to_json()))} chars; "
          f"medians of {runs} runs, ms (each scrub by a new redactor: nothing remembered):")

    def first_scrub(redactor_of, scrub) -> float:
        samples = []
        for _ in range(runs):
            fresh = redactor_of()
            started = time.perf_counter()
            scrub(fresh)
            samples.append((time.perf_counter() - started) * 1000)
        return statistics.median(samples)

    rows = [
        ("learn: all frames, chain, environment, argv", median_ms(learn, runs)),
        ("scrub the prompt text (secrets learned)", first_scrub(learn, lambda r: r.scrub(prompt))),
        ("scrub the prompt text (nothing learned)", first_scrub(Redactor, lambda r: r.scrub(prompt))),
        ("scrub_record the dossier (secrets learned)", first_scrub(learn, lambda r: r.scrub_record(dossier))),
        ("scrub_record the dossier (nothing learned)", first_scrub(Redactor, lambda r: r.scrub_record(dossier))),
    ]
    for name, ms in rows:
        print(f"  {name:<48} {ms:8.2f}")
    # Per crash: learn, then each text once (the dossier's fields, then the trees and the prompt
    # repeat them: remembered); the prompt text is new text.
    per_crash = rows[0][1] + rows[3][1] + rows[1][1]
    print(f"  {'per crash (learn + dossier + prompt)':<48} {per_crash:8.2f}")
    evidence = median_ms(lambda: build_dossier(Session(debugger)), runs)
    print(f"  {'for scale: the whole evidence (Session + dossier)':<48} {evidence:8.2f}")


if __name__ == "__main__":
    main()
