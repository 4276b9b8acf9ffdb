"""The hostile suites as a table: per group, how many attacks were tried and how many got through.

Each attack is one test of tests/test_attacks_GROUP.py (or of the older hostile suites below) that
asserts its effect did not happen; an attack got through where its test failed, or is a known leak
(xfail). Runs them with the real hook, probes and seccomp, as the tests do.

Usage: python bench/hostile.py [PYTEST ARGS...]   (e.g. -n 2)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OLDER_SUITES = {  # file -> group
    "test_secrets_suite.py": "secrets (planted, extracted by a scripted model)",
    "test_hostile_state.py": "program state",
    "test_hostile_model.py": "forged model replies",
}


def group_of(path: str) -> str:
    name = Path(path).name
    if name.startswith("test_attacks_"):
        return name.removeprefix("test_attacks_").removesuffix(".py")
    return OLDER_SUITES[name]


def main() -> int:
    tests = REPO / "tests"
    files = sorted(str(p) for p in tests.glob("test_attacks_*.py")) + [str(tests / f) for f in OLDER_SUITES]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                        *sys.argv[1:], *files], cwd=REPO)
        cases = ElementTree.parse(report).getroot().iter("testcase")
        tried, through, names = Counter(), Counter(), {}
        for case in cases:
            group = group_of(case.get("file") or case.get("classname", "").replace(".", "/") + ".py")
            tried[group] += 1
            outcome = {child.tag for child in case}
            skipped = case.find("skipped")
            xfailed = skipped is not None and "xfail" in (skipped.get("type") or "")
            if outcome & {"failure", "error"} or xfailed:
                through[group] += 1
                names.setdefault(group, []).append(case.get("name"))
            elif "skipped" in outcome:
                tried[group] -= 1  # not tried here (a kernel or interpreter without the feature)
    width = max(map(len, tried), default=5)
    print(f"\n{'group':<{width}}  tried  got through")
    for group in sorted(tried):
        print(f"{group:<{width}}  {tried[group]:5}  {through[group]:11}")
    print(f"{'all':<{width}}  {sum(tried.values()):5}  {sum(through.values()):11}")
    for group, failed in sorted(names.items()):
        print(f"through in {group}: {', '.join(failed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
