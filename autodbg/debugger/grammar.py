"""GBNF grammars built from the command table and the debugger's live state.

`live_state()` reads what exists in a session right now (names, attributes, keys, sources,
frames, lines) into a `LiveState`, wherever the session's frames are (this process, a re-run).
From that data, `step_grammar()` accepts one short thought line and then exactly one command
offered to the model that can run now and shows something it has not seen: frame numbers within
the stack, expressions rooted in names the current frame has, `list` lines within its file,
`trace` calls that can be replayed from the current frame.
`answer_grammar()` accepts the final JSON, whose location must be one of the source lines the
model was shown, quoted as `FILE:N| code`, so it can be neither invented nor off by one.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass

from autodbg.debugger.commands import COMMANDS, Arg, Command, replayable_here, statement_lines
from autodbg.debugger.session import Session
from autodbg.frames.core import display_path, is_user_file
from autodbg.frames.safe_eval import SAFE_BUILTINS, in_probe
from autodbg.records import Record
from autodbg.redact import is_secret_name

THOUGHT_CHARS = 60  # a few words: longer thoughts cost seconds and only restate the evidence
ROOT_CAUSE_CHARS = 160
# A fix is the corrected line or few lines (a `return` added, a guard): a whole function rewritten
# costs seconds of generation and changes lines nobody asked about.
FIX_CHARS = 160
MAX_NAMES = 200
CHAR_RULE = '''char ::= [^"\\\\\\n] | "\\\\" ["\\\\nt]'''  # a character of a JSON string, escapes included
# What `source` and a program call in `print` may name: the frame's own names, then the functions
# and classes of its module nearest the current line. Every one of a module's hundreds would make
# the grammar, and each sampled token's check, grow with the program.
MAX_SOURCES = 40
CALLS = ("len", "type", "sorted", "repr", "sum", "min", "max", "list", "str", "bool")
BINOPS = ("==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "in", "is")


def literal(text: str) -> str:
    """TEXT as a GBNF string literal."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def alternatives(items) -> str:
    """A GBNF alternation of ITEMS; there must be at least one (an empty rule is no grammar)."""
    joined = " | ".join(items)
    if not joined:
        raise ValueError("a grammar rule with no alternatives")
    return joined


def number_range(lo: int, hi: int) -> str:
    """A GBNF alternation accepting exactly the decimal numbers LO..HI."""
    parts: list[str] = []
    for length in range(len(str(lo)), len(str(hi)) + 1):
        a = max(lo, 10 ** (length - 1) if length > 1 else 0)
        b = min(hi, 10 ** length - 1)
        if a <= b:
            parts += _same_length(str(a), str(b))
    return "(" + " | ".join(parts) + ")"


def numbers(values: list[int]) -> str:
    """A GBNF alternation accepting exactly the sorted VALUES (kept small as runs)."""
    runs: list[list[int]] = []
    for n in values:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return "(" + " | ".join(number_range(lo, hi) for lo, hi in runs) + ")"


def _same_length(a: str, b: str) -> list[str]:
    if a == b:
        return [literal(a)]
    if len(a) == 1:
        return [f"[{a}-{b}]"]
    if a[0] == b[0]:
        return [f"{literal(a[0])} ({' | '.join(_same_length(a[1:], b[1:]))})"]
    rest = len(a) - 1
    out = [f"{literal(a[0])} ({' | '.join(_same_length(a[1:], '9' * rest))})"]
    if int(a[0]) + 1 <= int(b[0]) - 1:
        out.append(f"[{int(a[0]) + 1}-{int(b[0]) - 1}]" + " [0-9]" * rest)
    out.append(f"{literal(b[0])} ({' | '.join(_same_length('0' * rest, b[1:]))})")
    return out


# --- what exists right now ---------------------------------------------------------------------

def frame_names(session: Session) -> list[str]:
    """Names an expression may start with: locals, and globals the frame's code uses."""
    entry = session.debugger.current
    names = [n for n in session.frame_locals() if n.isidentifier() and not n.startswith("__")]
    code_names = set(entry.frame.f_code.co_names)
    for const in entry.frame.f_code.co_consts:
        if inspect.iscode(const):
            code_names |= set(const.co_names)
    names += [n for n in sorted(code_names) if n in entry.frame.f_globals and n not in names]
    return [n for n in names if not is_secret_name(n)][:MAX_NAMES]


def attribute_names(session: Session) -> list[str]:
    """Attribute names of the current frame's values (instance fields, user class members)."""
    found: dict[str, None] = {}
    for value in session.frame_locals().values():
        try:
            fields = object.__getattribute__(value, "__dict__")
        except Exception:
            fields = None
        if isinstance(fields, dict) and not inspect.ismodule(value):
            found.update(dict.fromkeys(k for k in list(fields)[:100] if isinstance(k, str) and k.isidentifier()))
        cls = type(value)
        if is_user_file(getattr(inspect.getmodule(cls), "__file__", None) or "<builtin>"):
            found.update(dict.fromkeys(k for k in vars(cls) if not k.startswith("__")))
    return [n for n in found if not n.startswith("__") and not is_secret_name(n)][:MAX_NAMES]


def dict_keys(session: Session) -> list[str]:
    keys: dict[str, None] = {}
    for value in session.frame_locals().values():
        if isinstance(value, dict):
            keys.update(dict.fromkeys(k for k in list(value)[:50] if isinstance(k, str) and len(k) <= 40))
    return [k for k in keys if not is_secret_name(k)][:MAX_NAMES]


def source_names(session: Session) -> list[str]:
    """Functions and classes (and methods of user objects) whose source `source` can show: the
    frame's own names, then those of its module nearest the current line (the function that made
    a bad value is often one this frame never calls, and most often one defined near it)."""
    out: dict[str, None] = {}
    entry = session.debugger.current
    names = frame_names(session)
    defined = [(abs(_first_line(v) - entry.lineno), n) for n, v in list(entry.frame.f_globals.items())[:MAX_NAMES * 5]
               if n not in names and not n.startswith("__") and (inspect.isfunction(v) or inspect.isclass(v))
               and not is_secret_name(n)]
    names += [n for _, n in sorted(defined)]
    for name in names:
        value = session.frame_locals().get(name, entry.frame.f_globals.get(name))
        if (inspect.isfunction(value) or inspect.isclass(value)) and _defined_by_user(value):
            out[name] = None
            if inspect.isclass(value):
                out.update(dict.fromkeys(_methods(name, value)))
        elif not inspect.ismodule(value) and _defined_by_user(type(value)):
            out.update(dict.fromkeys(_methods(name, type(value))))
        if len(out) >= MAX_SOURCES:
            break
    return list(out)[:MAX_SOURCES]


def _first_line(obj) -> int:
    """Where OBJ (a function or class) is defined, without running any of its code; 0 if unknown."""
    if inspect.isfunction(obj):
        return obj.__code__.co_firstlineno
    return next((m.__code__.co_firstlineno for m in vars(obj).values() if inspect.isfunction(m)), 0)


def _methods(prefix: str, cls: type) -> list[str]:
    return [f"{prefix}.{m}" for m, member in vars(cls).items()
            if not m.startswith("__") and (inspect.isfunction(member) or isinstance(member, (staticmethod, classmethod)))]


def _defined_by_user(obj) -> bool:
    try:
        return is_user_file(inspect.getsourcefile(obj) or "<builtin>")
    except Exception:  # a built-in, or a class whose module is gone: nothing `source` could show
        return False


def break_lines(session: Session) -> list[tuple[str, list[int]]]:
    """(display file, code lines) of the user files on the stack: where `break FILE:LINE` can stop."""
    files = dict.fromkeys(e.filename for e in session.debugger.stack if e.is_user and not e.filename.startswith("<"))
    budget = MAX_NAMES * 2
    out = []
    for path in files:
        lines = sorted(statement_lines(path))[:budget]
        budget -= len(lines)
        if lines:
            out.append((display_path(path), lines))
    return out


@dataclass(frozen=True, kw_only=True)
class LiveState(Record):
    """What exists in a session right now, as plain data (it may come from another process):
    the step grammar is built from it, and names only what it holds."""
    names: list[str]  # names an expression may start with
    attributes: list[str]
    keys: list[str]  # string keys of the frame's dicts
    sources: list[str]  # what `source` can show
    exception_classes: list[str]  # those of SOURCES that only carry an error
    callables: list[str]  # program functions, classes and methods `print` may call (in a probe only)
    break_lines: list[tuple[str, list[int]]]  # (display file, code lines) for `break FILE:LINE`
    frames: int  # frames in the stack
    current: int  # the current frame
    exceptions: list[int]  # other exceptions of the chain that have frames
    chain: int  # exceptions in the chain
    file_lines: int  # lines of the current frame's file
    file: str  # the current frame's file
    exception: int  # the selected exception of the chain (-1: a live stop, no exception)
    on_crash: bool  # the crash's own exception is selected
    stack: list[tuple[str, int, str]]  # (file, line, function) of each frame, outermost first
    calls: list[str]  # what `trace` can replay from the current frame (none where probes are off)


def live_state(session: Session) -> LiveState:
    """Read SESSION's current state (this touches the program's objects)."""
    d = session.debugger
    sources = source_names(session)
    exception_classes = [n for n in sources if _is_exception_class(session, n)]
    return LiveState(
        names=frame_names(session), attributes=attribute_names(session), keys=dict_keys(session),
        sources=sources, exception_classes=exception_classes,
        callables=[n for n in sources if n not in exception_classes] if in_probe() else [],
        break_lines=break_lines(session), frames=len(d.stack), current=d.curindex,
        exceptions=[i for i, c in enumerate(d.chain) if c.exc.__traceback__ is not None and i != d.exception_index],
        chain=len(d.chain), file_lines=len(d.source_lines()), file=d.current.filename,
        exception=d.exception_index, on_crash=0 <= d.exception_index == d.top_exception,
        stack=[(e.filename, e.lineno, e.function) for e in d.stack], calls=list(replayable_here(session)),
    )


def _is_exception_class(session: Session, name: str) -> bool:
    frame = session.debugger.current.frame
    value = frame.f_locals.get(name, frame.f_globals.get(name))
    return inspect.isclass(value) and issubclass(value, BaseException)


# --- grammars (pure: built from a LiveState and what the model has seen) -----------------------

@dataclass(frozen=True, kw_only=True)
class Known:
    """What the model has already seen, or may not use again, so the grammar does not offer it."""
    commands: frozenset[str] = frozenset()  # commands not to offer (output known here, or used up)
    sources: frozenset[str] = frozenset()  # names whose source was shown
    frames: frozenset[int] = frozenset()  # frames whose lines and locals were shown
    lines: frozenset[tuple[str, int]] = frozenset()  # (file, line) source lines shown
    traced: frozenset[str] = frozenset()  # calls replayed from the current frame
    changeable: frozenset[tuple[str, int]] = frozenset()  # (file, line) of LINES a fix may change: what `try` may name


def step_grammar(state: LiveState, known: Known = Known(), available: frozenset[str] | None = None,
                 commands: tuple[Command, ...] = COMMANDS) -> str:
    """Thought line, then one command that can run in STATE and shows something not KNOWN;
    AVAILABLE names the commands the session can run now (None: those that need no re-run)."""
    if available is None:
        available = frozenset(c.name for c in commands if c.needs == "crash")
    rules: dict[str, str] = {}
    if state.names:
        rules["name"] = alternatives(literal(n) for n in state.names)
        suffix = ['"[" index "]"'] + (['"." attr'] if state.attributes else [])
        if state.attributes:
            rules["attr"] = alternatives(literal(a) for a in state.attributes)
        rules["ref"] = f"name ({' | '.join(suffix)}){{0,3}}"
        key_literals = [literal(json.dumps(k)) for k in state.keys]
        rules["string"] = alternatives(key_literals + ['"\\"" [a-zA-Z0-9_ .:/-]{0,30} "\\""'])
        rules["number"] = '"-"? [0-9]{1,6}'
        rules["index"] = "number | string | name"
        rules["term"] = "ref | number | string"
        rules["call"] = f"({alternatives(literal(c) for c in CALLS if c in SAFE_BUILTINS)}) \"(\" ref \")\""
        start = "call | ref"
        if state.callables:  # to test a hypothesis: the program's own code on values at hand
            rules["program-call"] = f"({alternatives(literal(c) for c in state.callables)}) \"(\" args? \")\""
            rules["args"] = 'term (", " term){0,3}'
            start = "call | program-call | ref"
        # An expression starts from something in the frame: a bare literal tells nothing.
        rules["expr"] = f"({start}) (\" \" ({alternatives(literal(o) for o in BINOPS)}) \" \" term)?"
    command_rules = []
    for command in commands:
        if command.name in known.commands or not command.for_model or command.name not in available:
            continue
        body = _command_rule(command, state, rules, known)
        if body is not None:
            rule = f"cmd-{command.name}"
            rules[rule] = body
            command_rules.append(rule)
    header = [
        'root ::= "Thought: " thought "\\nCommand: " command',
        f"thought ::= [^\\n]{{1,{THOUGHT_CHARS}}}",
        f"command ::= {' | '.join(command_rules)}",
    ]
    return "\n".join(header + [f"{name} ::= {body}" for name, body in rules.items()]) + "\n"


def _command_rule(command: Command, state: LiveState, rules: dict[str, str], known: Known) -> str | None:
    head = literal(command.name)
    if not command.args:
        return None if command.needs_chain and state.chain < 2 else head
    arg = command.args[0]
    value = _arg_rule(arg, state, rules, known)
    if value is None:  # no value is valid now, and neither is the bare command
        return None
    if len(command.args) == 2:  # list FIRST [LAST]: starting at a line not shown yet, when some were
        shown = {line for file, line in known.lines if file == state.file}
        if not shown:
            return f'{head} (" " {value} (" " {value})?)?'
        unseen = [n for n in range(1, state.file_lines + 1) if n not in shown]
        return f'{head} " " {numbers(unseen)} (" " {value})?' if unseen else None
    return f'{head} (" " {value})?' if arg.optional else f'{head} " " {value}'


def _arg_rule(arg: Arg, state: LiveState, rules: dict[str, str], known: Known) -> str | None:
    if arg.kind == "frame":  # frames with something new to see: not the current one, nor ones shown
        frames = [i for i in range(state.frames) if i not in known.frames | {state.current}]
        return numbers(frames) if frames else None
    if arg.kind == "exception":
        return f"({alternatives(literal(str(i)) for i in state.exceptions)})" if state.exceptions else None
    if arg.kind == "line":
        return number_range(1, state.file_lines) if state.file_lines else None
    if arg.kind == "expr":
        return "expr" if "expr" in rules else None
    if arg.kind == "name":
        names = [n for n in state.sources if n not in known.sources]
        return f"({alternatives(literal(n) for n in names)})" if names else None
    if arg.kind == "call":
        calls = [c for c in state.calls if c not in known.traced]
        return f"({alternatives(literal(c) for c in calls)})" if calls else None
    if arg.kind == "breakpoint":  # at a function, or at a line of code the model was shown
        places = [literal(name) for name in state.sources]
        shown = {(display_path(file), line) for file, line in known.lines}
        for file, lines in state.break_lines:
            seen = [n for n in lines if (file, n) in shown]
            if seen:
                places.append(f"{literal(file + ':')} {numbers(seen)}")
        if not places:
            return None
        condition = ' (" if " expr)?' if "expr" in rules else ""
        return f"({alternatives(places)}){condition}"
    if arg.kind == "change":  # a line shown that a fix may change, then its new code
        by_file: dict[str, list[int]] = {}
        for file, line in sorted(known.changeable):
            by_file.setdefault(display_path(file), []).append(line)
        if not by_file:
            return None
        rules["new-code"] = f"[^ \\t\\n] [^\\n]{{0,{FIX_CHARS - 1}}}"
        places = alternatives(f"{literal(file + ':')} {numbers(lines)}" for file, lines in by_file.items())
        return f'({places}) " " new-code'
    raise ValueError(f"no grammar for argument kind {arg.kind}")


def answer_max_chars(shown_lines: list[str], root_cause_chars: int = ROOT_CAUSE_CHARS) -> int:
    """The longest answer the answer grammar accepts, to size max_tokens so none is cut."""
    longest = max((len(json.dumps(line)) for line in shown_lines), default=0)
    return root_cause_chars + FIX_CHARS + 2 * longest + 80


def answer_grammar(shown_lines: list[str], root_cause_chars: int = ROOT_CAUSE_CHARS) -> str:
    """The final answer: JSON naming a first and last line among SHOWN_LINES (`FILE:N| code`),
    with a root cause of at most ROOT_CAUSE_CHARS characters."""
    locations = alternatives(literal(json.dumps(line)) for line in dict.fromkeys(shown_lines))
    return "\n".join([
        'root ::= "{\\"root_cause\\": \\"" text "\\", \\"first_line\\": " loc ", \\"last_line\\": " loc '
        '", \\"new_code\\": " fix "}"',
        f"text ::= char{{1,{root_cause_chars}}}",
        CHAR_RULE,
        f"loc ::= {locations}",
        f'fix ::= "null" | "\\"" char{{1,{FIX_CHARS}}} "\\""',
    ]) + "\n"


def choice_grammar(choices: list[str], root_cause_chars: int = ROOT_CAUSE_CHARS, key: str = "fix") -> str:
    """A root cause of at most ROOT_CAUSE_CHARS characters, then one of CHOICES under KEY:
    `{"root_cause": "...", "fix": "A"}`."""
    choices = alternatives(literal(json.dumps(choice)) for choice in choices)
    return "\n".join([
        f'root ::= "{{\\"root_cause\\": \\"" text "\\", \\"{key}\\": " choice "}}"',
        f"text ::= char{{1,{root_cause_chars}}}",
        CHAR_RULE,
        f"choice ::= {choices}",
    ]) + "\n"


FENCE = "```"
CODE_LINES = 3  # of a line's corrected code: the line, or a few lines in its place
CODE_SLACK = 40  # characters a corrected line may have beyond the line it replaces
CODE_INDENT = 40  # characters of a line's indentation, apart from its length


def code_line_chars(replaced: str) -> int:
    """The longest line of a rewrite of the line REPLACED: a corrected line is about as long as the
    line it corrects, so a small model's rambling is cut where it costs little."""
    return min(FIX_CHARS, len(replaced.strip()) + CODE_SLACK)


def code_grammar(replaced: str) -> str:
    """The corrected code of the line REPLACED (its code, already chosen), as a fenced block of at
    most CODE_LINES lines of `code_line_chars` characters, or `null` when the line is right. Code
    is written as code: a JSON string would make a small model escape quotes and close brackets it
    never opened."""
    return "\n".join([
        f'root ::= "null" | "{FENCE}python\\n" line ("\\n" line){{0,{CODE_LINES - 1}}} "\\n{FENCE}"',
        f"line ::= [ \\t]{{0,{CODE_INDENT}}} [^ \\t\\n`] [^\\n]{{0,{code_line_chars(replaced) - 1}}}",
    ]) + "\n"


def code_max_chars(replaced: str) -> int:
    """The longest reply code_grammar(REPLACED) accepts, to size max_tokens so none is cut."""
    return CODE_LINES * (CODE_INDENT + code_line_chars(replaced) + 1) + 20


def fenced_code(text: str) -> str | None:
    """The code of a reply under code_grammar (None for `null`, or a reply cut before its code)."""
    start = f"{FENCE}python\n"
    if not text.startswith(start):
        return None
    return text[len(start):].removesuffix(FENCE).removesuffix("\n") or None


def reason_grammar(root_cause_chars: int = ROOT_CAUSE_CHARS) -> str:
    """Why a line already chosen is wrong: `{"root_cause": "..."}`."""
    return "\n".join([
        'root ::= "{\\"root_cause\\": \\"" text "\\"}"',
        f"text ::= char{{1,{root_cause_chars}}}",
        CHAR_RULE,
    ]) + "\n"


def reason_max_chars(root_cause_chars: int = ROOT_CAUSE_CHARS) -> int:
    return root_cause_chars + 20


def choice_max_chars(choices: list[str], root_cause_chars: int = ROOT_CAUSE_CHARS) -> int:
    """The longest reply choice_grammar accepts, to size max_tokens so none is cut."""
    return root_cause_chars + max(len(json.dumps(choice)) for choice in choices) + 40
