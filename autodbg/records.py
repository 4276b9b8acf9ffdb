"""The typed records that cross module boundaries: the evidence dossier, the investigation's
transcript, the diagnosis and its fix, and the whole result of a crash.

`Result.to_json()` gives the JSON report (README, "JSON report"); nothing else builds it.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from dataclasses import dataclass, field

REPORT_SCHEMA = 1


def _json(value):
    """Dataclasses become dicts in field order; fields named in `_omit_none` are left out when None."""
    if dataclasses.is_dataclass(value):
        omit = getattr(value, "_omit_none", ())
        return {f.name: _json(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not (f.name in omit and getattr(value, f.name) is None)}
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    return value


class Vocabulary(str, enum.Enum):
    """A closed set of words: compared, printed and sent to JSON as the plain strings they are."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class TrialResult(Vocabulary):
    """How the crashed program ran with a fix, in a probe (autodbg.fix.trial)."""
    PASSES = "passes"
    GUARDS = "guards"  # ran to the end, but only behind a condition or default the fix added to the line that crashed
    STILL_FAILS = "still fails"
    FAILS_DIFFERENTLY = "fails differently"
    HANGS = "hangs"
    NOT_RUN = "not run"


class Label(Vocabulary):
    """What a suggested change was shown to do, and nothing more: the one vocabulary of the
    summary, the report and the bench (autodbg.program.judge.label_of)."""
    PASSES_YOUR_TESTS = "passes your tests"  # the crash is gone and every related test that passed before still passes
    STOPS_THE_CRASH = "stops the crash"  # the crashed run went on to its end; nothing else judged it
    GUARD = "guard"  # it only adds a condition, default or try around the line that crashed
    DID_NOT_WORK = "tried, did not work"  # still fails, fails differently, hangs, or broke a test that passed
    NOT_RUN = "not run"  # nothing could run it here


class Ended(Vocabulary):
    """How one look at the program (a command) ended."""
    OK = "ok"
    ERROR = "error"
    REFUSED = "refused"
    TIMED_OUT = "timed out"
    PROBE_DIED = "probe died"


class StoppedBy(Vocabulary):
    """Why the investigation's turns ended."""
    SEARCH = "search"  # the search's changes passed a failing test: the model only chose among them
    DONE = "done"
    REPEAT = "repeat"  # the model asked again what it had seen
    TURNS = "turns"
    TOKENS = "tokens"
    TIME = "time"
    PROBE = "probe"  # no live state could be read


class Proof(Vocabulary):
    """What says a change of the search works."""
    TEST = "test"  # the failing test ran to its end
    RUN = "run"  # the crashed program did


class Purpose(Vocabulary):
    """What a completion of the model was asked for."""
    STEP = "step"  # a command
    ANSWER = "answer"  # a line's corrected code, or the final answer
    WHY = "why"  # the reason for a fix that ran
    CHOICE = "choice"  # among fixes that passed in probes


class ProbeMode(Vocabulary):
    FORK = "fork"  # sandboxed probes
    INLINE = "inline"  # in the crashed process: no fork, or AUTODBG_PROBE=0


class Record:
    def to_json(self) -> dict:
        return _json(self)

    @classmethod
    def from_json(cls, data: dict):
        """The record DATA describes (what to_json gave, possibly from another process)."""
        hints = typing.get_type_hints(cls)
        return cls(**{f.name: _from_json(hints[f.name], data[f.name]) for f in dataclasses.fields(cls) if f.name in data})


def _from_json(kind, value):
    if value is None:
        return None
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (types.UnionType, typing.Union):
        return _from_json(next(a for a in args if a is not type(None)), value)
    if origin is list:
        return [_from_json(args[0], v) for v in value]
    if origin is tuple:
        kinds = [args[0]] * len(value) if len(args) == 2 and args[1] is Ellipsis else args
        return tuple(_from_json(k, v) for k, v in zip(kinds, value))
    if origin is dict:
        return {k: _from_json(args[1], v) for k, v in value.items()}
    if isinstance(kind, type) and issubclass(kind, Record):
        return kind.from_json(value)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(value)
    if isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields"):  # a NamedTuple
        hints = typing.get_type_hints(kind)
        return kind(*(_from_json(hints[name], v) for name, v in zip(kind._fields, value)))
    return value


# --- the evidence ------------------------------------------------------------------------------

@dataclass
class SourceWindow(Record):
    first: int  # number of the first line
    lines: list[str]


@dataclass
class LineValue(Record):
    expr: str  # a name, attribute chain or subscript on the failing line
    value: str  # its repr (redacted, bounded), or "!Error: ..." when it could not be read


@dataclass(kw_only=True)
class CalledFunction(Record):
    """A user function called on a failing line whose frame is gone."""
    name: str
    file: str
    display_file: str
    line: int
    lines: list[str]
    lines_cut: int


@dataclass(kw_only=True)
class FrameEvidence(Record):
    index: int  # as in `where`
    file: str
    display_file: str
    function: str
    line: int
    is_crash_frame: bool
    code: str
    source: SourceWindow
    line_values: list[LineValue]
    locals: dict[str, str]
    locals_cut: int
    called_functions: list[CalledFunction]
    repeated: int = 0  # identical recursive frames folded into this one


@dataclass
class ExceptionInfo(Record):
    type: str
    message: str
    title: str


@dataclass
class ChainLink(Record):
    index: int
    title: str
    relation: str


@dataclass
class CrashSite(Record):
    file: str
    line: int
    function: str


@dataclass(kw_only=True)
class ValueOrigin(Record):
    """A line that may have made a value the failing lines used (static analysis of the source)."""
    via: str  # the name, attribute or call followed to get here
    kind: str  # assign, augassign, param, return, attribute, unbound... (autodbg.analysis.provenance)
    file: str
    display_file: str
    line: int
    code: str  # that line's source
    depth: int  # 0: it made a value the failing line read; 1: a value that one was made from...


@dataclass(kw_only=True)
class PointedLine(Record):
    """A line the program's failing tests ran more than its passing ones (spectrum-based fault
    localization, Ochiai's score, autodbg.program.spectrum): where a bug may be that the crash's
    own frames do not show (a test that fails in an assert after using the program)."""
    file: str
    display_file: str
    line: int
    code: str
    score: float


@dataclass(kw_only=True)
class Replay(Record):
    """A call the failing line made, whose frame is gone, run again in a probe under a line tracer
    (autodbg.analysis.replay): what each of its lines assigned and returned."""
    call: str  # as the failing line writes it
    file: str  # the called function's
    function: str
    history: str  # one line: "line 6: scores = [42] · line 7: return scores[1:] → [] · ⇒ returned []"
    lines: list[int]  # the function's own lines that ran, the last to run first


@dataclass(kw_only=True)
class Dossier(Record):
    exception: ExceptionInfo
    chain: list[ChainLink]
    crash_site: CrashSite
    frames: list[FrameEvidence]
    folded_user_frames: int
    library_frames: int
    assertion: bool  # the crash is a failing assert: the assert is the specification
    origins: list[ValueOrigin] = field(default_factory=list)
    replays: list[Replay] = field(default_factory=list)  # only where probes run
    hang: Hang | None = None  # the program was interrupted while stuck: where, and why it is stuck
    pointed: list[PointedLine] = field(default_factory=list)  # only where the program's tests ran
    _omit_none = ("hang",)



# --- a hang: a program interrupted (Ctrl-C, or the watchdog) while it ran --------------------

@dataclass(kw_only=True)
class ThreadStack(Record):
    """One thread where it was interrupted: its user frames, innermost first ("file:line in f")."""
    thread: str  # or an asyncio task: "task Task-2"
    frames: list[str]
    code: str  # the source of its innermost user frame's line
    awaits: str = ""  # a task's: what it awaited (safe repr)


@dataclass(kw_only=True)
class Loop(Record):
    """The innermost loop of the program's own code around the interrupted line."""
    file: str
    display_file: str
    line: int
    header: str  # `while i < n:`, `for row in rows:`
    condition_names: list[str]  # the names the header reads, those the loop assigns first
    values: dict[str, str]  # the names the header and body use, at the interruption (safe reprs)
    iteration: int | None = None  # of a `for` over a range, where its target tells
    total: int | None = None  # that range's length


@dataclass(kw_only=True)
class Recursion(Record):
    """The same function calling itself on the interrupted stack, and how its arguments went."""
    function: str
    depth: int
    unchanged: dict[str, str]  # arguments equal in every one of its frames
    repeated: bool  # some frame's arguments are all equal to an outer frame's


@dataclass(kw_only=True)
class LoopCheck(Record):
    """The interrupted loop run on in a probe under a line tracer (autodbg.analysis.hang)."""
    iterations: int
    seconds: float
    ended: bool  # the loop finished (or left the function): its condition changed
    changed: dict[str, list[str]]  # names whose value changed: their first few values
    unchanged: dict[str, str]  # names whose value never changed
    repeated: bool  # a whole state (every name's value) came back
    detail: str = ""  # why it could not run on, when it could not


@dataclass(kw_only=True)
class LockWait(Record):
    """A thread of an interrupted program: the locks its frames held (the `with` blocks its lines
    were in) and what its innermost line waited on (a lock, a queue, an event, a condition)."""
    thread: str
    holds: list[str]  # "`first.lock` (with at rebalance.py:20)"
    waits_for: str = ""  # "`second.lock` (rebalance.py:22)"


@dataclass(kw_only=True)
class Hang(Record):
    """Where an interrupted program was, and whether it was stuck there."""
    interrupted_by: str  # "Ctrl-C", or the watchdog's "--hang-after 1"
    ran_seconds: float | None  # since the process started
    threads: list[ThreadStack]  # the interrupted thread first
    loop: Loop | None = None
    recursion: Recursion | None = None
    check: LoopCheck | None = None
    locks: list[LockWait] = field(default_factory=list)  # the threads that held or waited on one
    blocked: str = ""  # why no thread could go on: a cycle of lock waits, or a wait no thread could end
    stuck: bool = False
    verdict: str = ""  # one line: "stuck: `i` stays 3 and `while i < n` never changes over 4,000 iterations"

# --- the investigation -------------------------------------------------------------------------

@dataclass(kw_only=True)
class Turn(Record):
    thought: str
    command: str
    valid: bool  # a command of the language
    output: str
    tokens: int
    seconds: float
    ended: Ended = Ended.OK  # how the look at the program ended


@dataclass
class FixTrial(Record):
    """How the crashed program ran with the fix, in a probe (autodbg.fix.trial)."""
    result: TrialResult
    detail: str  # one line: the exception it still raises, or why it was not run
    # It failed, but neither in the fixed lines nor as before where it crashed: the fix changed
    # how the program ran, so its line has a part in the failure.
    moved_on: bool = False
    # Not run because this fix kept the check from happening (another fix may well run), not
    # because the program cannot run again here.
    stopped_by_fix: bool = False
    # What the sandbox refused it (its first refusal): a change that tried that is never run again outside a probe.
    refused: str | None = None

    @property
    def passes(self) -> bool:
        return self.result == TrialResult.PASSES


@dataclass(kw_only=True)
class Judgement(Record):
    """The program's own tests run on a copy with a change applied (autodbg.program.judge)."""
    tests: list[str]  # the test files run, as shown
    passed_before: int  # their tests that passed without the change
    kept: int  # of those, how many still pass with it
    broken: list[str]  # tests that passed before and fail with it (the first few)
    fixed: list[str]  # tests that failed before and pass with it (the first few)
    still_failing: list[str]  # tests that failed before and still fail (the first few)
    detail: str = ""  # why the tests could not judge it, when they could not

    @property
    def holds(self) -> bool:
        """Nothing that passed before fails now, and the tests did run."""
        return not self.detail and not self.broken and self.passed_before + len(self.fixed) > 0


@dataclass(frozen=True, kw_only=True)
class Edit(Record):
    """Lines FIRST..LAST of FILE replaced by REPLACEMENT (its lines, each ending in a newline; ""
    deletes them): every change autodbg tries or suggests, from the search's to the model's."""
    file: str
    first: int
    last: int
    replacement: str
    origin: str  # what made it: a kind of change of autodbg.fix.mutate, "key" (autodbg.fix.keys) or "model"


@dataclass(kw_only=True)
class Fix(Record):
    edit: Edit  # as applied: re-indented, its lines shrunk to those it changes
    diff: str
    applies: bool
    compiles: bool
    problem: str | None  # why the fix is not usable, one line
    verified: bool | None = None  # under `autodbg run`: the fix re-run on a copy
    outcome: str | None = None
    trial: FixTrial | None = None  # the crashed program run again with the fix, in a probe
    judgement: Judgement | None = None  # the program's tests run with the fix, where it has tests
    label: Label | None = None  # what all that showed
    _omit_none = ("verified", "outcome", "trial", "judgement", "label")

    @property
    def usable(self) -> bool:
        return self.problem is None


@dataclass
class Candidate(Record):
    """A change tried on the crashed program, in a probe."""
    edit: Edit
    display_file: str
    code: str  # the lines it replaces, as they are
    trial: FixTrial


@dataclass(kw_only=True)
class Search(Record):
    """The search for a fix without a model (autodbg.investigate.search): small changes of the
    lines that made the failing values, each run on the crashed program in a probe."""
    proof: Proof
    lines: int  # lines whose changes were tried
    tried: int  # changes run
    outcomes: dict[str, int]  # how many ended how: passes, still fails, fails differently, hangs, not run
    seconds: float
    passing: list[Candidate]  # the changes with which it passed, likeliest first


@dataclass(kw_only=True)
class Diagnosis(Record):
    file: str
    display_file: str
    line: int
    line_end: int  # the lines a usable fix changes
    root_cause: str
    fix: Fix | None
    source_window: SourceWindow


@dataclass
class Tokens(Record):
    prompt_tokens_evaluated: int = 0
    prompt_tokens_reused: int = 0
    generated: int = 0
    system_prompt_from_disk: bool | None = None


@dataclass(kw_only=True)
class ModelCall(Record):
    """One completion of the model: what it cost, to see where a crash's time goes."""
    purpose: Purpose
    seconds: float
    prompt_seconds: float  # of them, evaluating the prompt (0 from a server that does not say)
    prompt_tokens: int
    prompt_tokens_evaluated: int  # of them, not reused from the cache
    generated: int
    accepted: int  # of them, drafted from the context and taken in a batch (autodbg.llm.lookup)
    grammar_refusals: int  # sampled tokens the grammar refused: each one matched the whole vocabulary
    grammar_bytes: int


@dataclass
class Rates(Record):
    """How fast a model worked on this machine: seconds to make one token, and to read one of a prompt."""
    per_token: float
    per_prompt_token: float


@dataclass(kw_only=True)
class Timings(Record):
    """Seconds; a step that did not happen is left out of the report."""
    worker_start: float | None = None
    evidence: float | None = None
    search: float | None = None
    model_load: float | None = None
    trials: list[float] | None = None  # each fix tried in a probe
    verify: float | None = None
    judge: float | None = None  # the program's tests run for the fix (autodbg.program.judge)
    total: float | None = None
    _omit_none = ("worker_start", "evidence", "search", "model_load", "trials", "verify", "judge", "total")


@dataclass
class ModelInfo(Record):
    id: str
    path: str
    sha256: str | None


@dataclass
class Probe(Record):
    """Where the program's objects were looked at."""
    mode: ProbeMode
    evidence: str  # how reading the evidence ended: "ok", or which probes failed and how


@dataclass
class Step(Record):
    """What autodbg is doing now, for the progress line: "trying changes in a sandbox", 3 of 12."""
    doing: str
    done: int | None = None
    total: int | None = None


@dataclass(kw_only=True)
class Patch(Record):
    """The suggested change as a unified diff, for `autodbg fix`: only a change that ran gets one."""
    file: str  # absolute
    root: str  # the folder PATH is relative to (the working directory, or the file's project): `patch -p1` there
    path: str  # as the diff's headers name it (`a/PATH`, `b/PATH`)
    diff: str
    sha256: str  # of FILE's content at the crash: a file changed since is not patched
    label: Label
    edit: Edit


@dataclass(kw_only=True)
class Result(Record):
    """Everything autodbg concluded about one crash."""
    autodbg_version: str
    python: str
    argv: list[str]
    cwd: str
    thread: str | None  # the thread's name, for thread crashes
    dossier: Dossier
    schema_version: int = REPORT_SCHEMA
    search: Search | None = None
    transcript: list[Turn] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)  # the model's fixes run in probes, in order
    diagnosis: Diagnosis | None = None
    model: ModelInfo | None = None
    timings: Timings = field(default_factory=Timings)
    model_calls: list[ModelCall] = field(default_factory=list)
    tokens: Tokens | None = None
    stopped_by: StoppedBy | None = None
    reruns: int = 0
    probe: Probe | None = None
    fallback_reason: str | None = None
    patch: Patch | None = None  # the change the summary suggests

    def to_json(self) -> dict:
        data = _json(self)
        data["tokens"] = data["tokens"] or {}
        order = ("schema_version", "autodbg_version", "python", "argv", "cwd", "thread", "dossier", "search", "transcript",
                 "candidates", "diagnosis", "model", "timings", "model_calls", "tokens", "stopped_by", "reruns", "probe", "fallback_reason", "patch")
        return {key: data[key] for key in order}
