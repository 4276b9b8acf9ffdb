"""Helpers for tests that crash real code: write a program to a file, import it, crash it, and
open the post-mortem debugger on the real traceback."""

from __future__ import annotations

import importlib.util
import itertools
import sys
import textwrap
from pathlib import Path

from autodbg.debugger.commands import Session
from autodbg.debugger.core import PostMortem

_counter = itertools.count()


def load_program(directory: Path, source: str, stem: str = "prog"):
    """Write SOURCE to DIRECTORY/STEM.py and import it as a real module (so `inspect` can find
    the source of its classes). Returns the module."""
    path = directory / f"{stem}.py"
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    name = f"_autodbg_test_{stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def line_of(module, text: str, nth: int = 0) -> int:
    """The 1-based number of the NTH line of MODULE's file that contains TEXT."""
    lines = Path(module.__file__).read_text(encoding="utf-8").splitlines()
    found = [i + 1 for i, line in enumerate(lines) if text in line]
    assert len(found) > nth, f"{text!r} not found in {module.__file__}"
    return found[nth]


def crash(fn, *args, **kwargs) -> BaseException:
    """Call FN and return the exception it raised (with its real traceback)."""
    try:
        fn(*args, **kwargs)
    except BaseException as exc:  # noqa: BLE001 - the crash under test may be anything
        return exc
    raise AssertionError(f"{fn.__name__} did not crash")


def session_for(fn, *args, **kwargs) -> Session:
    return Session(PostMortem(crash(fn, *args, **kwargs)))


def run(session: Session, line: str) -> str:
    """Execute a command that must succeed; return its output."""
    result = session.execute(line)
    assert result.ok, f"{line!r} failed: {result.output}"
    return result.output
