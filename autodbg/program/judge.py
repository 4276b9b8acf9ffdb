"""The judge of a change: the program's own tests, run with pytest on a confined copy of its project
with the change applied, against a run without it; and the label that says what all that showed.

The tests are those that import the changed module, and the test files the crash ran through (a
failing test, or the test a driver called). No tests: the crashed run alone judges, and the label
says so (autodbg.fix.label).
"""

from __future__ import annotations

import ast
import os
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

from autodbg.frames.core import display_path, is_test_file
from autodbg.probe import confine
from autodbg.program.verify import MAX_COPY_FILES, confined_env, patched_copy, run_confined
from autodbg.records import Edit, Judgement

PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini", ".git")
SKIPPED_DIRS = {"__pycache__", "node_modules", "site-packages", "build", "dist"}
MAX_TEST_FILES = 20
MAX_TEST_FILE_BYTES = 1_000_000
NAMED_TESTS = 3  # broken / fixed / still failing tests named in a judgement


@dataclass(frozen=True)
class Tests:
    """Test files (absolute paths) of the project at ROOT that judge a change."""
    root: str
    files: tuple[str, ...]


def project_root(start: str) -> str:
    """The nearest folder above START that holds a project's files (pyproject.toml, .git, ...), or
    START itself where there is none below the home folder."""
    here = start = os.path.abspath(start)
    home = os.path.expanduser("~")
    while not any(os.path.exists(os.path.join(here, marker)) for marker in PROJECT_MARKERS):
        parent = os.path.dirname(here)
        if parent == here or here == home:
            return start
        here = parent
    return here


def find_tests(changed_file: str, crash_files: list[str]) -> Tests | None:
    """The tests that judge a change of CHANGED_FILE: its project's test files that import it, and
    those of CRASH_FILES (the crash's frames) inside the project; None where there are none."""
    root = project_root(os.path.dirname(os.path.abspath(changed_file)))
    module = os.path.splitext(os.path.relpath(os.path.abspath(changed_file), root))[0].replace(os.sep, ".")
    found = [f for f in dict.fromkeys(os.path.abspath(f) for f in crash_files)
             if is_test_file(f) and os.path.isfile(f) and os.path.commonpath([root, f]) == root
             and not f.endswith("conftest.py")]
    walked = 0
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(d for d in folders if not d.startswith(".") and d not in SKIPPED_DIRS
                            and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg")))
        walked += len(names)
        if walked > MAX_COPY_FILES or len(found) >= MAX_TEST_FILES:
            break
        for name in sorted(names):
            path = os.path.join(folder, name)
            if (name.endswith(".py") and name != "conftest.py" and is_test_file(path) and path not in found
                    and imports_module(path, module)):
                found.append(path)
    return Tests(root, tuple(found[:MAX_TEST_FILES])) if found else None


def imports_module(path: str, module: str) -> bool:
    """Whether the file PATH imports MODULE (dotted, from the project's root) or a module of its name."""
    try:
        if os.path.getsize(path) > MAX_TEST_FILE_BYTES:
            return False
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return False
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    stem = module.rsplit(".", 1)[-1]
    return any(name == module or module.endswith("." + name) or name.endswith("." + stem) or name == stem
               for name in names)


def run_tests(tests: Tests, change: Edit | None, budget: float) -> dict[str, bool] | str:
    """{test id: passed} of TESTS run on a confined copy of their project with CHANGE applied
    (None: as it is), or why they could not run."""
    unconfined = confine.available()
    if unconfined is not None:
        return f"not run: {unconfined}"
    with tempfile.TemporaryDirectory(prefix="autodbg-judge-") as tmp:
        copy, problem = patched_copy(tests.root, change, tmp)
        if problem is not None:
            return problem
        report = os.path.join(tmp, "junit.xml")
        files = [os.path.relpath(f, tests.root) for f in tests.files]
        run = run_confined(tmp, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                                 f"--junit-xml={report}", *files], copy, None, confined_env(tmp), budget)
        if isinstance(run, str):
            return run if run.startswith("not run") else f"the tests {run}"
        try:
            cases = ElementTree.parse(report).getroot().iter("testcase")
        except (OSError, ElementTree.ParseError):
            return "pytest gave no results (is pytest installed where the program runs?)"
        return {f"{case.get('classname')}::{case.get('name')}":
                not any(child.tag in ("failure", "error") for child in case) for case in cases}


def judge_change(tests: Tests, change: Edit, before: dict[str, bool] | str, budget: float) -> Judgement:
    """How TESTS ran with CHANGE, against BEFORE (how they ran without it)."""
    shown = [display_path(f) for f in tests.files]
    after = run_tests(tests, change, budget) if isinstance(before, dict) else before
    if isinstance(after, str):
        return Judgement(tests=shown, passed_before=0, kept=0, broken=[], fixed=[], still_failing=[], detail=after)
    passed = [t for t, ok in before.items() if ok]
    failed = [t for t, ok in before.items() if not ok]
    now = {t: passes_after(t, after) for t in before}
    name = lambda test: test.rsplit("::", 1)[-1]  # noqa: E731
    return Judgement(tests=shown, passed_before=len(passed), kept=sum(now[t] for t in passed),
                     broken=[name(t) for t in passed if not now[t]][:NAMED_TESTS],
                     fixed=[name(t) for t in failed if now[t]][:NAMED_TESTS],
                     still_failing=[name(t) for t in failed if not now[t]][:NAMED_TESTS])


def passes_after(test: str, after: dict[str, bool]) -> bool:
    """Whether TEST (an id of the run before the change) passed in AFTER. A module that could not
    be collected before is "::module" (pytest's junit entry for it); collected now, its entry is
    gone and its tests are there instead: it passes when they all do."""
    if test in after:
        return after[test]
    classname, module = test.rsplit("::", 1)
    if classname:
        return False
    held = [ok for t, ok in after.items() if t.split("::")[0] == module or t.startswith(module + ".")]
    return bool(held) and all(held)
