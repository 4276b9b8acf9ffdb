"""Helpers for tests that crash real code: write a program to a file, import it, crash it, and
open the post-mortem debugger on the real traceback."""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
import textwrap
from pathlib import Path

from autodbg.frames.core import PostMortem
from autodbg.debugger.session import Session
from autodbg.llm.model import Completion, Model
from conftest import clean_env, run_py

_counter = itertools.count()

# A test of a function with a wrong condition, as HumanEvalFix cases are: `check` fails at line 12.
BELOW_ZERO = '''\
def below_zero(operations):
    balance = 0
    for op in operations:
        balance += op
        if balance == 0:
            return True
    return False


def check(below_zero):
    assert below_zero([]) == False
    assert below_zero([1, 2, -3, 1, 2, -3]) == False
    assert below_zero([1, 2, -4, 5, 6]) == True


check(below_zero)
'''


# Installed as the crashed program's excepthook through sitecustomize, like autodbg's own hook.
TRIAL_HOOK = '''\
import json, os, sys, threading

def tried(exc):
    from autodbg.crash import CrashSession
    from autodbg.records import Edit
    fix = json.loads(os.environ["TRIAL_FIX"])
    session = CrashSession.of_crash(exc, probes=os.environ.get("TRIAL_PROBES", "1") == "1")
    trial = session.try_fix(Edit(file=fix["file"], first=fix["first"], last=fix["last"], replacement=fix["new"], origin="model"),
                            type(exc).__name__)
    sys.__stdout__.write("TRIAL " + json.dumps(trial.to_json()) + "\\n")
    sys.__stdout__.flush()

sys.excepthook = lambda t, exc, tb: (sys.__excepthook__(t, exc, tb), tried(exc))
threading.excepthook = lambda args: (sys.__excepthook__(args.exc_type, args.exc_value, args.exc_traceback),
                                     tried(args.exc_value))
'''


def try_fix_in_crash(hook_dir: Path, program: Path, argv: list[str], fix: dict, probes: bool = True) -> dict:
    """Run `python ARGV` in PROGRAM; when it crashes, its excepthook tries FIX {file, first, last,
    new} in a probe (CrashSession.try_fix, as the crash hook does). The trial's record."""
    hook_dir.mkdir(exist_ok=True)
    (hook_dir / "sitecustomize.py").write_text(TRIAL_HOOK)
    run = run_py(argv, cwd=program, timeout=60,
                 env=clean_env(PYTHONPATH=str(hook_dir), TRIAL_FIX=json.dumps(fix), TRIAL_PROBES="1" if probes else "0"))
    assert run.returncode == 1, run.stderr
    assert "Traceback" in run.stderr
    lines = [line for line in run.stdout.splitlines() if line.startswith("TRIAL ")]
    assert len(lines) == 1, run.stdout + run.stderr
    return json.loads(lines[0].removeprefix("TRIAL "))


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


class ScriptedStandInModel(Model):
    """Not a model: replays fixed replies, recording what it was asked (for loop-logic tests)."""

    def __init__(self, replies: list[str], tokens_per_reply: int = 10, context: int = 100_000) -> None:
        self.replies = list(replies)
        self.tokens = tokens_per_reply
        self.context = context
        self.calls: list[dict] = []

    def wait_loaded(self, deadline):
        return {"load_seconds": 0.0}

    def context_size(self, deadline):
        return self.context

    def count_tokens(self, messages, deadline):
        return sum(len(m["content"]) for m in messages) // 4  # a stand-in's estimate, not a tokenizer

    def complete(self, messages, *, grammar, max_tokens, deadline, seed=0, cache_prefix_messages=0):
        self.calls.append({"messages": [dict(m) for m in messages], "grammar": grammar, "max_tokens": max_tokens})
        text = self.replies.pop(0)
        return Completion(text, "stop", 100, 10, 90, self.tokens, 0, 0, False, 0, 0, 0.01, 0.005)


def fixed(code: str) -> str:
    """A reply with the corrected code of the line asked about, as the code grammar has it."""
    return f"```python\n{code}\n```"


def rewrite_replies(session, dossier, quote: str, new_code: str | None, root_cause: str) -> list[str]:
    """The answer's scripted replies for SESSION's crash: `null` for each line offered before the one
    quoted as QUOTE (the end of its `FILE:N| code`), NEW_CODE for it (None: null too), then ROOT_CAUSE
    as the reason asked for a fix that passed."""
    import time

    from autodbg.investigate.loop import Investigation
    from autodbg.investigate.plan import Budget

    answers = Investigation(session, dossier, None, Budget(time.monotonic() + 60)).answers
    options = answers.options(answers.seen.answerable(), answers.suspects())
    matching = [i for i, option in enumerate(options) if option.endswith(quote)]
    assert len(matching) == 1, options
    return ["null"] * matching[0] + [fixed(new_code) if new_code is not None else "null",
                                     json.dumps({"root_cause": root_cause})]


def uncaught_assertion(script: Path):
    """Run SCRIPT as __main__; the CrashSession of the AssertionError it ends in, as sys.excepthook
    gets it (its traceback starts at the script's own frames, not at this helper)."""
    import runpy

    from autodbg.crash import CrashSession

    try:
        runpy.run_path(str(script), run_name="__main__")
    except AssertionError as exc:
        return CrashSession.of_crash(exc.with_traceback(exc.__traceback__.tb_next))
    raise AssertionError(f"{script} did not fail an assert")
