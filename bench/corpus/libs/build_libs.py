"""Build the "libs" crash corpus (format: shared/CORPUS.md): one- or two-line bugs injected into
real pure-Python libraries, each case crashing in one test of the library's own test suite.

Each case folder vendors the library's package (or the modules of it that the tests need), the
library's LICENSE, one or two of its own test modules, a `crash.py` that runs ONE of those tests
outside pytest (so an uncaught exception or AssertionError ends it), `run.sh`, and a `pytest.ini`
that keeps pytest's rootdir in the case folder. `test_cmd` runs pytest on the vendored test
module(s); it fails with the bug and passes with the recorded fix (the library's original line).

The sources are the libraries' PyPI sdists, unpacked under --src:

    pip download --no-deps --no-binary :all: cachetools==8.0.3 ... -d /tmp/libsrc
    (cd /tmp/libsrc && for f in *.tar.gz; do tar xzf "$f"; done)
    python3 bench/corpus/libs/build_libs.py --src /tmp/libsrc [-k GLOB]

The bugs are in `cases.py` beside this script. A case whose mutation does not apply, that does not
crash, or that fails verify_case is reported and left out.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO))  # so the script runs from a checkout without installing autodbg
sys.path.insert(0, str(HERE))

from autodbg.corpus import load_case, parse_traceback, run_shell, verify_case  # noqa: E402
from cases import CASES, LIBS  # noqa: E402

PYTEST = "python3 -m pytest -p no:cacheprovider -q"
EXPLORE = False


def enclosing_function(source: str, line: int) -> str | None:
    """The name of the innermost function whose body holds LINE."""
    names = [(node.lineno, node.name) for node in ast.walk(ast.parse(source))
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.lineno <= line <= node.end_lineno]
    return max(names)[1] if names else None


def frames_up(frames, buggy_file: str, buggy_function: str | None) -> int:
    """How many frames above the innermost case frame the buggy function is; -1 when it is not on
    the stack."""
    for distance, frame in enumerate(reversed(frames)):
        if frame.file == buggy_file and frame.function == buggy_function:
            return distance
    return -1


def copy_into(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        shutil.copy2(src, dst)


def mutate(path: Path, old: str, new: str, occurrence: int) -> tuple[int, int, str, str, list]:
    """Replace the OCCURRENCE-th (1-based; 0: the only) run of whole lines OLD in PATH with NEW.
    Lines that OLD and NEW share at their start and end are context, to find the place; return
    the first and last line numbers of the rest of NEW in the mutated file, that rest of NEW and
    of OLD (for a deletion, the line before it joined by the deleted lines), and the line numbers
    where a fix is right."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    old_lines, new_lines = old.split("\n"), new.split("\n")
    hits = [i for i in range(len(lines) - len(old_lines) + 1)
            if [line.rstrip("\n") for line in lines[i:i + len(old_lines)]] == old_lines]
    if len(hits) < max(occurrence, 1) or (occurrence == 0 and len(hits) != 1):
        raise ValueError(f"{path.name}: {old!r} found {len(hits)} times")
    start = hits[max(occurrence, 1) - 1]
    lines[start:start + len(old_lines)] = [line + "\n" for line in new_lines]
    path.write_text("".join(lines), encoding="utf-8")
    head = 0
    while head < min(len(old_lines), len(new_lines)) - 1 and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (tail < min(len(old_lines), len(new_lines)) - head
           and old_lines[-1 - tail] == new_lines[-1 - tail]):
        tail += 1
    deletion = len(new_lines) - head - tail == 0
    if deletion:  # the line before the deleted ones stands for them
        head -= 1
    new_core = new_lines[head:len(new_lines) - tail]
    old_core = old_lines[head:len(old_lines) - tail]
    first = start + head + 1
    # Where lines are missing, the lines on either side of the gap are equally right.
    acceptable = [first, first + 1] if deletion else list(range(first, first + len(new_core)))
    return first, first + len(new_core) - 1, "\n".join(new_core), "\n".join(old_core), acceptable


def crash_py(lib: str, spec: dict) -> str:
    test = spec["test"]  # "tests/test_ttl.py::TTLCacheTest::test_ttl" or "test_x.py::test_f"
    module_path, *names = test.split("::")
    module = module_path[:-3].replace("/", ".")
    head = (f'"""Runs one test of the {lib} test suite outside pytest, so that its failure is an\n'
            f'uncaught exception: {test}."""\n\n')
    if "call" in spec:  # hand-written: fixtures or parameters built by hand
        return head + spec["call"].strip("\n") + "\n"
    if len(names) == 2:
        cls, method = names
        return (head + f"from {module} import {cls}\n\n"
                f'test = {cls}("{method}")\ntest.setUp()\ntest.{method}()\n')
    (function,) = names
    return head + f"from {module} import {function}\n\n{function}()\n"


def build_case(spec: dict, src: Path, out: Path) -> list[str]:
    """Write the case for SPEC under OUT; return its problems (empty when it verified)."""
    lib = LIBS[spec["lib"]]
    name = spec["name"]
    case_dir = out / name
    shutil.rmtree(case_dir, ignore_errors=True)
    case_dir.mkdir(parents=True)
    root = src / lib["sdist"]
    for src_rel, dst_rel in lib["license"]:
        copy_into(root / src_rel, case_dir / dst_rel)
    for item in lib["extra_sources"]:
        extra_root = src / item["sdist"]
        for src_rel, dst_rel in item["files"]:
            copy_into(extra_root / src_rel, case_dir / dst_rel)
    for src_rel, dst_rel in lib["package"]:
        copy_into(root / src_rel, case_dir / dst_rel)
    for rel in spec.get("modules", []) + lib.get("always", []) + spec["files"]:
        copy_into(root / rel, case_dir / rel)
    for rel, text in lib.get("added", {}).items():
        (case_dir / rel).write_text(text, encoding="utf-8")
    (case_dir / "pytest.ini").write_text(lib.get("pytest_ini", "[pytest]\n"), encoding="utf-8")
    (case_dir / "crash.py").write_text(crash_py(spec["lib"], spec), encoding="utf-8")
    (case_dir / "run.sh").write_text('cd "$(dirname "$0")"\npython3 crash.py\n', encoding="utf-8")

    buggy_file = spec["file"]
    try:
        line, line_end, buggy_code, fixed_code, acceptable = mutate(
            case_dir / buggy_file, spec["old"], spec["new"], spec.get("nth", 0))
    except ValueError as exc:
        return [str(exc)]
    if EXPLORE:
        test_run = run_shell(" ".join([PYTEST, "-rf", "--tb=line", *spec.get("pytest", spec["files"][-1:])]),
                             case_dir, None, 120)
        print("\n".join(line for line in test_run.stdout.splitlines()
                        if line.startswith(("FAILED", "ERROR", "E ", "/")) or " passed" in line
                        or " failed" in line)[-3000:])
    run = run_shell("sh run.sh", case_dir, None, 60)
    frames, exception = parse_traceback(run.stderr, case_dir)
    case_frames = [f for f in frames if not Path(f.file).is_absolute() and not f.file.startswith("<")]
    if run.returncode == 0 or exception is None or not case_frames:
        return [f"does not crash (exit {run.returncode}): {run.stderr[-300:]}"]
    site = case_frames[-1]
    if site.file == "crash.py":  # e.g. a test name that does not exist
        return [f"crash.py itself fails: {run.stderr.strip().splitlines()[-1]}"]
    tested = set(lib.get("always", [])) | set(spec["files"])
    crash_kind = "assertion" if exception == "AssertionError" and site.file in tested else "exception"
    if crash_kind != spec["kind"]:
        return [f"crash kind is {crash_kind} ({exception} at {site.file}:{site.line}), "
                f"not {spec['kind']}"]
    source = (case_dir / buggy_file).read_text(encoding="utf-8")
    test_cmd = " ".join([PYTEST, *spec.get("pytest", spec["files"][-1:])])
    truth = {
        "case": name,
        "corpus": "libs",
        "source": f"{lib['name']} {lib['version']} ({lib['license_name']}) from its PyPI sdist, "
                  f"with an injected bug",
        "buggy_file": buggy_file,
        "buggy_line": line,
        "buggy_line_end": line_end,
        "buggy_code": buggy_code,
        "fixed_code": fixed_code,
        "acceptable_lines": acceptable,
        "exception": exception,
        "crash_kind": crash_kind,
        "crash_cmd": "sh run.sh",
        "test_cmd": test_cmd,
        "crash_site": {"file": site.file, "line": site.line},
        "crash_at_buggy_line": site.file == buggy_file and line <= site.line <= line_end,
        "root_cause_frames_up": frames_up(case_frames, buggy_file,
                                          enclosing_function(source, line)),
        "description": spec["description"],
    }
    # One key a line, as in the dev cases.
    body = ",\n".join(f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in truth.items())
    (case_dir / "truth.json").write_text("{\n" + body + "\n}\n", encoding="utf-8")
    problems = verify_case(load_case(case_dir, out))
    for junk in case_dir.rglob("__pycache__"):
        shutil.rmtree(junk)
    for pattern in (".hypothesis", ".benchmarks", ".pytest_cache"):
        for junk in case_dir.rglob(pattern):
            shutil.rmtree(junk)
    return problems


def distance(truth: dict, case_dir: Path) -> str:
    """Where the crash site is, seen from the buggy line."""
    site = truth["crash_site"]
    up = truth.get("root_cause_frames_up", -1)
    stack = "the buggy function has returned" if up < 0 else f"the buggy function is {up} up"
    if truth["crash_at_buggy_line"]:
        return "at the buggy line"
    if site["file"] != truth["buggy_file"]:
        where = "in the test" if truth["crash_kind"] == "assertion" else f"in {site['file']}"
        return f"{where}; {stack}"
    source = (case_dir / site["file"]).read_text(encoding="utf-8")
    lines = abs(site["line"] - truth["buggy_line"])
    if enclosing_function(source, site["line"]) == enclosing_function(source, truth["buggy_line"]):
        return f"same function, {lines} line{'s' if lines != 1 else ''} away"
    return f"same module, another function ({lines} lines away); {stack}"


def write_cases_md(out: Path) -> None:
    """CASES.md: one row a case, then the libraries."""
    specs = {spec["name"]: spec for spec in CASES}
    rows, counts = [], {}
    for truth_file in sorted(out.glob("*/truth.json")):
        truth = json.loads(truth_file.read_text(encoding="utf-8"))
        spec = specs[truth["case"]]
        counts.setdefault(spec["lib"], {"exception": 0, "assertion": 0})[truth["crash_kind"]] += 1
        rows.append(f"| `{truth['case']}` | {spec['lib']} | `{truth['buggy_file']}` | {spec['bug']} | "
                    f"{truth['crash_kind']}: `{truth['exception']}` | "
                    f"{distance(truth, truth_file.parent)} |")
    total = {kind: sum(c[kind] for c in counts.values()) for kind in ("exception", "assertion")}
    text = [
        "# libs corpus: cases",
        "",
        "Written by `build_libs.py` (the bugs are in `cases.py`). Each case vendors one real",
        "pure-Python library, injects a one- or two-line bug into it, and crashes in one test of the",
        "library's own test suite, run by `crash.py` outside pytest; `test_cmd` runs pytest on that",
        "test module. The last column says where the crash site (the innermost frame in the case",
        "folder) is, seen from the buggy line.",
        "",
        f"{len(rows)} cases: {total['exception']} end in an exception raised inside the library, "
        f"{total['assertion']} in an `AssertionError` of the library's own tests.",
        "",
        "| case | library | buggy file | bug | crash | crash site |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "## Libraries",
        "",
        "Every case folder keeps the library's licence file (jsonpatch cases also jsonpointer's, as",
        "`LICENSE-jsonpointer.txt`). All are permissive.",
        "",
        "| library | version | licence | cases (exception / assertion) | vendored | test modules used |",
        "|---|---|---|---|---|---|",
    ]
    for name, lib in LIBS.items():
        if name not in counts:
            continue
        used = sorted({f"`{spec['files'][-1]}`" for spec in CASES if spec["lib"] == name})
        vendored = ", ".join(f"`{dst}`" for _, dst in lib["package"])
        if name == "boltons":
            vendored += " and the modules each test imports"
        c = counts[name]
        text.append(f"| {lib['name']} | {lib['version']} | {lib['license_name']} | "
                    f"{c['exception'] + c['assertion']} ({c['exception']} / {c['assertion']}) | "
                    f"{vendored} | {', '.join(used)} |")
    text += ["", NOTES.strip(), ""]
    (out / "CASES.md").write_text("\n".join(text), encoding="utf-8")


NOTES = """
## Notes

- Sources: the PyPI sdists (`pip download --no-deps --no-binary :all: NAME==VERSION`). Only the
  package and the test modules (with the helpers they import: `tests/__init__.py`, natsort's
  `tests/conftest.py`, mistune's `tests/fixtures/` loader and `commonmark.json`, jsonpatch's
  `tests.js`) are vendored; each case also has a `pytest.ini`, so that pytest's rootdir is the
  case folder even inside this repository.
- Tests left out because they fail without the bug, for reasons of this environment: natsort's
  locale tests (no en_US locale here; `-k 'not locale'`) and modules that need pytest-mock;
  jsonpointer's `CommandLineTests` and `DocExampleTests`, which need the sdist's `bin/` and `doc/`
  folders. schedule skips its pytz tests when pytz is not installed.
- jmespath 1.1.0's sdist has no `tests/__init__.py`, from which its test modules import
  `unittest`, `json` and `OrderedDict`; the cases add a three-line one.
- Cases of one library share the crash test in a few places (e.g. two schedule bugs both fail
  `test_at_time_hour`), but each case folder is self-contained.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=Path("/tmp/libsrc"),
                        help="folder holding the unpacked sdists")
    parser.add_argument("--out", type=Path, default=HERE, help="folder the cases go in")
    parser.add_argument("-k", dest="pattern", help="only cases whose name matches this glob")
    parser.add_argument("--explore", action="store_true",
                        help="also print which tests of the module fail with the bug")
    args = parser.parse_args()
    global EXPLORE
    EXPLORE = args.explore
    specs = [spec for spec in CASES
             if not args.pattern or fnmatch.fnmatchcase(spec["name"], args.pattern)]
    names = [spec["name"] for spec in CASES]
    dupes = {name for name in names if names.count(name) > 1}
    if dupes:
        parser.error(f"duplicate case names: {', '.join(sorted(dupes))}")
    failed = 0
    for spec in specs:
        problems = build_case(spec, args.src, args.out)
        if problems:
            failed += 1
            shutil.rmtree(args.out / spec["name"], ignore_errors=True)
            print(f"FAIL {spec['name']}: {'; '.join(problems)}", flush=True)
        else:
            print(f"ok   {spec['name']}", flush=True)
    if not args.pattern:
        write_cases_md(args.out)
    print(f"{len(specs) - failed} cases written to {args.out}, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
