"""Scaling benchmark: does crash -> summary grow with the size of the program? (issue 12, item 1)

The same crash -- `in_stock_prices()` compares prices the wrong way round, so it returns no
prices and `average_price()` divides by zero nine lines further down -- embedded in programs of
about 30, 100, 300, 1000 and 3000 lines, padded with varied, valid helper functions and classes
(some of them called), and in a package of four modules of 400-800 lines that import each other,
where the crash in shop/report.py comes from shop/catalog.py. Each program is written as a
crash case (shared/CORPUS.md: run.sh, truth.json), so `autodbg bench` and
`python3 -m autodbg.corpus verify` read them too.

    python bench/scaling.py --no-model                     # grammar, prompt and dossier sizes only; fast
    python bench/scaling.py --model A.gguf [--model B.gguf] [--repeat 3] [--sizes 30,300] [--package/--no-package]

Without a model it prints, per program: the dossier prompt's characters, seconds to build the
dossier and the live state in this process, and the size of the first turn's step grammar and of
the answer grammar (rules / alternatives / bytes). With models it also runs each crash REPEAT
times per model under the real hook (AUTODBG=1, AUTODBG_MODEL, AUTODBG_REPORT; a subprocess of
this interpreter), reads the JSON report and prints per run: crash -> summary seconds, each
completion's seconds, tokens and tokens/s, prompt tokens evaluated, tokens generated, how it
stopped, whether the root-cause line was found, and each turn's step grammar size, got by
replaying the run's commands on the same crash in this process. Run it alone on a quiet machine:
two model benchmarks at once make both wrong. Cases are written under bench/results/scaling/.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's autodbg, for the in-process measurements

from autodbg.frames.core import is_user_file  # noqa: E402
from autodbg.debugger.grammar import answer_grammar, step_grammar  # noqa: E402
from autodbg.investigate.seen import Seen, place  # noqa: E402
from autodbg.investigate.prompt import dossier_text  # noqa: E402
from autodbg.crash import CrashSession  # noqa: E402

SIZES = (30, 100, 300, 1000, 3000)
TIMED_OUT = "model did not answer in time"

# --- the programs ------------------------------------------------------------------------------

HEADER = '''"""{doc}"""

from __future__ import annotations

{imports}
'''

CORE_ITEMS = '''@dataclass
class Item:
    sku: str
    price: float
    stock: int


def load_items() -> list[Item]:
    return [Item("A-1", 12.0, 3), Item("B-2", 8.5, 0), Item("C-3", 13.0, 5), Item("D-4", 25.0, 1)]


def in_stock_prices(items: list[Item], min_price: float) -> list[float]:
    """Prices of the items in stock that cost at least MIN_PRICE."""
    prices = []
    for item in items:
        if item.stock > 0 and item.price < min_price:
            prices.append(item.price)
    return prices
'''

CORE_AVERAGE = '''def average_price(items: list[Item], min_price: float = 10.0) -> float:
    prices = in_stock_prices(items, min_price)
    total = sum(prices)
    count = len(prices)
    return total / count
'''

BUGGY_CODE = "        if item.stock > 0 and item.price < min_price:"
FIXED_CODE = "        if item.stock > 0 and item.price >= min_price:"
CRASH_CODE = "    return total / count"
EXPECTED = "average price: 16.67"

NOUNS = ("order", "invoice", "customer", "parcel", "coupon", "voucher", "shipment", "refund", "ticket",
         "review", "warehouse", "supplier", "basket", "receipt", "payment", "region", "carrier", "batch",
         "pallet", "subscription", "account", "ledger", "budget", "rating", "promo", "bundle", "variant",
         "store", "courier", "quote", "lead", "booking", "tariff", "fee", "wallet", "catalogue", "brand",
         "discount", "delivery", "return", "vendor", "route", "zone", "shelf", "aisle", "label", "tax",
         "currency", "employee", "shift", "rota", "contract", "claim", "stocktake", "barcode", "sample")

# Helper templates: (source, a call that runs without error). {n} snake noun, {N} CamelNoun,
# {U} UPPER noun, {k} a small number, {w} a wider one, {s} a word.
HELPERS = (
    ('''def format_{n}_label(code: int, prefix: str = "{U3}") -> str:
    """A printable label such as {U3}-000123 for a {n}."""
    return f"{{prefix}}-{{code:06d}}"
''', 'format_{n}_label({w})'),
    ('''def parse_{n}_fields(line: str) -> dict[str, str]:
    fields = {{}}
    for part in line.split(";"):
        key, sep, value = part.partition("=")
        if sep:
            fields[key.strip()] = value.strip()
    return fields
''', 'parse_{n}_fields("id={k}; name={s}")'),
    ('''def clamp_{n}_quantity(value: int, low: int = 0, high: int = {w}) -> int:
    if value < low:
        return low
    if value > high:
        return high
    return value
''', 'clamp_{n}_quantity({k})'),
    ('''def {n}_batches(items: list, size: int = {k}) -> list[list]:
    """ITEMS split into lists of at most SIZE, in order."""
    return [items[i:i + size] for i in range(0, len(items), size)]
''', '{n}_batches(list(range({w})))'),
    ('''def {n}_slug(title: str) -> str:
    kept = [ch.lower() if ch.isalnum() else "-" for ch in title.strip()]
    slug = "".join(kept)
    while "--" in slug:
        slug = slug.replace("--", "-")
    return slug.strip("-")
''', '{n}_slug("New {N} {s}!")'),
    ('''@dataclass
class {N}Note:
    author: str
    text: str
    pinned: bool = False

    def summary(self, width: int = {w}) -> str:
        head = self.text if len(self.text) <= width else self.text[:width - 3] + "..."
        return f"{{self.author}}: {{head}}"
''', '{N}Note("ana", "checked the {n} for {s}").summary()'),
    ('''class {N}Counter:
    """Counts {n} events by kind."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {{}}

    def add(self, kind: str, amount: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + amount

    def most_common(self) -> str | None:
        if not self.counts:
            return None
        return max(self.counts, key=self.counts.__getitem__)
''', '{N}Counter().most_common()'),
    ('''def {n}_share(part: float, whole: float) -> float:
    # An empty whole is no share rather than an error: the reports show 0%.
    if whole == 0:
        return 0.0
    return round(100 * part / whole, 1)
''', '{n}_share({k}, {w})'),
    ('''def {n}_due_date(start: date, days: int = {k}) -> date:
    due = start + timedelta(days=days)
    if due.weekday() >= 5:  # weekends move to the Monday after
        due += timedelta(days=7 - due.weekday())
    return due
''', '{n}_due_date(date(2024, 3, {k}))'),
    ('''def is_valid_{n}_code(code: str) -> bool:
    if len(code) != {k} + 2:
        return False
    letters, digits = code[:2], code[2:]
    return letters.isalpha() and letters.isupper() and digits.isdigit()
''', 'is_valid_{n}_code("AB{k}")'),
    ('''def merge_{n}_settings(defaults: dict, overrides: dict) -> dict:
    merged = dict(defaults)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_{n}_settings(merged[key], value)
        else:
            merged[key] = value
    return merged
''', 'merge_{n}_settings({{"{s}": {{"a": 1}}}}, {{"{s}": {{"b": {k}}}}})'),
    ('''class {N}Cache:
    """The last LIMIT {n} lookups, oldest dropped first."""

    def __init__(self, limit: int = {w}) -> None:
        self.limit = limit
        self.entries: dict = {{}}

    def get(self, key, default=None):
        return self.entries.get(key, default)

    def put(self, key, value) -> None:
        if len(self.entries) >= self.limit:
            del self.entries[next(iter(self.entries))]
        self.entries[key] = value
''', '{N}Cache().get("{s}", {k})'),
    ('''def {n}_retry_delays(attempts: int = {k}, base: float = 0.5) -> list[float]:
    """Back-off delays in seconds: BASE, twice that, and so on, at most {w} s."""
    return [min(base * 2 ** i, {w}) for i in range(attempts)]
''', '{n}_retry_delays()'),
    ('''def read_{n}_rows(text: str) -> list[dict[str, str]]:
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if not lines:
        return []
    header = [name.strip() for name in lines[0].split(",")]
    return [dict(zip(header, (cell.strip() for cell in row.split(",")))) for row in lines[1:]]
''', 'read_{n}_rows("sku,qty\\n{s},{k}")'),
    ('''{U}_STATES = ("draft", "open", "{s}", "closed")


def next_{n}_state(state: str) -> str:
    position = {U}_STATES.index(state)
    return {U}_STATES[min(position + 1, len({U}_STATES) - 1)]
''', 'next_{n}_state("open")'),
    ('''def {n}_totals_by(rows: list[dict], key: str, field: str = "amount") -> dict[str, float]:
    totals: dict[str, float] = {{}}
    for row in rows:
        totals[row[key]] = totals.get(row[key], 0.0) + float(row.get(field, 0))
    return totals
''', '{n}_totals_by([{{"kind": "{s}", "amount": {k}}}], "kind")'),
    ('''class {N}Window:
    """A sliding window of the last SIZE {n} amounts."""

    def __init__(self, size: int = {k}) -> None:
        self.size = size
        self.values: list[float] = []

    def push(self, value: float) -> float:
        self.values = (self.values + [value])[-self.size:]
        return self.mean()

    def mean(self) -> float:
        return sum(self.values) / len(self.values) if self.values else 0.0
''', '{N}Window().push({w})'),
    ('''def group_{n}s(names: list[str]) -> dict[str, list[str]]:
    """NAMES grouped by first letter, each group sorted."""
    groups: dict[str, list[str]] = {{}}
    for name in names:
        groups.setdefault(name[:1].upper(), []).append(name)
    return {{letter: sorted(group) for letter, group in sorted(groups.items())}}
''', 'group_{n}s(["{s}", "{n}", "ana"])'),
)

WORDS = ("north", "spring", "green", "rapid", "harbour", "maple", "silver", "corner", "summit", "market")


class Padding:
    """Unique helper definitions, drawn in a fixed pseudo-random order."""

    def __init__(self, seed: int = 12) -> None:
        self.rng = random.Random(seed)
        self.pairs = [(t, n) for n in NOUNS for t in range(len(HELPERS))]
        self.rng.shuffle(self.pairs)

    def next(self) -> tuple[str, str]:
        """(definition, a call of it)."""
        template, noun = self.pairs.pop()
        fill = {"n": noun, "N": noun.capitalize(), "U": noun.upper(), "U3": noun[:3].upper(),
                "k": self.rng.randint(2, 9), "w": self.rng.choice((12, 40, 60, 250, 1000)),
                "s": self.rng.choice(WORDS)}
        source, call = HELPERS[template]
        return source.format(**fill), call.format(**fill)

    def block(self, lines: int) -> tuple[list[str], list[str]]:
        """Definitions of about LINES lines in all, and their calls."""
        defs, calls, total = [], [], 0
        while total < lines:
            source, call = self.next()
            defs.append(source)
            calls.append(call)
            total += source.count("\n") + 2
        return defs, calls


def module(doc: str, imports: str, parts: list[str]) -> str:
    return HEADER.format(doc=doc, imports=imports) + "\n" + "\n\n".join(p.rstrip("\n") + "\n" for p in parts)


def main_function(calls: list[str], report: str) -> str:
    shown = calls[::max(1, len(calls) // 6)][:6]  # some helpers run, most are only defined
    body = [f"    print({call!r}, {call})" for call in shown]
    return "def main() -> None:\n" + "".join(line + "\n" for line in body) + f"    {report}\n"


STDLIB = "from dataclasses import dataclass\nfrom datetime import date, timedelta\n"
REPORT = 'print(f"average price: {average_price(load_items()):.2f}")'
RUN_MAIN = 'if __name__ == "__main__":\n    main()\n'


PRICE_TEXT = 'def price_text(value: float) -> str:\n    return f"{value:.2f}"\n'
ITEM_LINE = ('def item_line(item: Item) -> str:\n'
             '    return f"{item.sku}: {price_text(item.price)} ({item.stock} in stock)"\n')
RESTOCK = ('def restock_list(items: list[Item], threshold: int = 2) -> list[str]:\n'
           '    return [item.sku for item in items if item.stock < threshold]\n')
PACKAGE_REPORT = ('print(f"restock: {inventory.restock_list(load_items())}")\n'
                  '    print(f"average price: {formatting.price_text(average_price(load_items()))}")')


def around(defs: list[str], core: list[str]) -> list[str]:
    """CORE in the middle of the helpers DEFS."""
    return defs[:len(defs) // 2] + core + defs[len(defs) // 2:]


def single_file(lines: int) -> dict[str, str]:
    """shop.py of about LINES lines: helpers, the crash, helpers, main()."""
    doc = "Shop report: the average price of the items in stock."
    core = module(doc, STDLIB, [CORE_ITEMS, CORE_AVERAGE, main_function([], REPORT), RUN_MAIN])
    defs, calls = Padding().block(max(0, lines - core.count("\n")))
    return {"shop.py": module(doc, STDLIB, around(defs, [CORE_ITEMS, CORE_AVERAGE])
                              + [main_function(calls, REPORT), RUN_MAIN])}


def package() -> dict[str, str]:
    """A package whose crash in shop/report.py comes from shop/catalog.py."""
    padding = Padding(seed=34)
    fmt_defs, fmt_calls = padding.block(400)
    cat_defs, _ = padding.block(700)
    inv_defs, inv_calls = padding.block(500)
    rep_defs, rep_calls = padding.block(800)
    calls = [f"formatting.{c}" for c in fmt_calls[:2]] + [f"inventory.{c}" for c in inv_calls[:2]] + rep_calls[:2]
    report_imports = ("\nfrom shop import formatting, inventory\n"
                      "from shop.catalog import Item, in_stock_prices, load_items\n")
    return {
        "shop/__init__.py": '"""The shop\'s reporting package."""\n',
        "shop/formatting.py": module("Text formatting for the shop's reports.", STDLIB, fmt_defs + [PRICE_TEXT]),
        "shop/catalog.py": module("The shop's catalogue: items, prices and stock.",
                                  STDLIB + "\nfrom shop.formatting import price_text\n",
                                  around(cat_defs, [CORE_ITEMS, ITEM_LINE])),
        "shop/inventory.py": module("Stock levels and restocking.", STDLIB + "\nfrom shop.catalog import Item\n",
                                    inv_defs + [RESTOCK]),
        "shop/report.py": module("The shop's daily report.", STDLIB + report_imports,
                                 around(rep_defs, [CORE_AVERAGE]) + [main_function(calls, PACKAGE_REPORT)]),
        "main.py": '"""Print the shop\'s daily report."""\n\nfrom shop.report import main\n\nmain()\n',
    }


@dataclass
class Case:
    name: str
    folder: Path
    entry: str  # the script run.sh runs
    buggy_file: str
    buggy_line: int
    crash_file: str
    crash_line: int
    lines: int  # in all its .py files


def line_of(text: str, code: str) -> int:
    numbers = [i for i, line in enumerate(text.splitlines(), 1) if line == code]
    assert len(numbers) == 1, (code, numbers)
    return numbers[0]


def write_case(root: Path, name: str, files: dict[str, str], entry: str, buggy_file: str, crash_file: str) -> Case:
    folder = root / name
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    (folder / "run.sh").write_text(f'cd "$(dirname "$0")"\npython3 {entry}\n')
    case = Case(name, folder, entry, buggy_file, line_of(files[buggy_file], BUGGY_CODE),
                crash_file, line_of(files[crash_file], CRASH_CODE), sum(t.count("\n") for t in files.values()))
    truth = {
        "case": name, "corpus": "scaling", "source": "generated by bench/scaling.py",
        "buggy_file": buggy_file, "buggy_line": case.buggy_line, "buggy_line_end": case.buggy_line,
        "buggy_code": BUGGY_CODE, "fixed_code": FIXED_CODE, "acceptable_lines": [case.buggy_line],
        "exception": "ZeroDivisionError", "crash_kind": "exception", "crash_cmd": "sh run.sh",
        "test_cmd": f"sh run.sh | grep -qxF '{EXPECTED}'",
        "crash_site": {"file": crash_file, "line": case.crash_line}, "crash_at_buggy_line": False,
        "root_cause_frames_up": -1,
        "description": "in_stock_prices() keeps the items cheaper than min_price instead of the others, "
                       "so it returns no prices and average_price() divides by zero.",
    }
    (folder / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    return case


def generate(root: Path, sizes: list[int], with_package: bool) -> list[Case]:
    cases = [write_case(root, f"lines-{n}", single_file(n), "shop.py", "shop.py", "shop.py") for n in sizes]
    if with_package:
        cases.append(write_case(root, "package", package(), "main.py", "shop/catalog.py", "shop/report.py"))
    return cases


# --- in-process measurements (no model) --------------------------------------------------------

@dataclass
class GrammarSize:
    rules: int
    alternatives: int  # `|` outside literals and character classes, plus one per rule
    bytes: int

    def __str__(self) -> str:
        return f"{self.rules}/{self.alternatives}/{self.bytes}"


def largest_rules(grammar: str, count: int = 2) -> str:
    """The COUNT biggest rules of GRAMMAR, with their bytes: what makes it grow."""
    sizes = sorted(((len(line.encode()), line.split(" ::=")[0]) for line in grammar.splitlines()), reverse=True)
    return " ".join(f"{name}:{size}" for size, name in sizes[:count])


def grammar_size(grammar: str) -> GrammarSize:
    bars, quoted, in_class, escaped = 0, False, False, False
    for ch in grammar:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif quoted:
            quoted = ch != '"'
        elif in_class:
            in_class = ch != "]"
        elif ch == '"':
            quoted = True
        elif ch == "[":
            in_class = True
        elif ch == "|":
            bars += 1
    rules = sum(1 for line in grammar.splitlines() if "::=" in line)
    return GrammarSize(rules, bars + rules, len(grammar.encode()))


@dataclass
class Crash:
    """A case's program crashed in this process: its frames stay alive in the exception."""
    exc: BaseException
    modules: dict[str, types.ModuleType]  # the program's own: __main__, and those it imported
    folder: Path


@contextlib.contextmanager
def inside(crash: Crash):
    """As in the crashed program itself: its folder the working directory (display paths) and
    first on sys.path, its modules loaded (inspect finds a class's file through sys.modules) and
    no other case's (autodbg reads every loaded user module)."""
    saved = os.getcwd(), sys.modules["__main__"], list(sys.path)
    os.chdir(crash.folder)
    sys.path.insert(0, str(crash.folder))
    sys.modules.update(crash.modules)
    try:
        yield
    finally:
        for name in crash.modules:
            del sys.modules[name]
        sys.modules["__main__"] = saved[1]
        os.chdir(saved[0])
        sys.path[:] = saved[2]


def crash_here(case: Case) -> Crash:
    """Run CASE's program in this process until it raises."""
    entry = case.folder / case.entry
    main = types.ModuleType("__main__")
    main.__file__ = str(entry)
    crash = Crash(RuntimeError(), {"__main__": main}, case.folder)
    with inside(crash), contextlib.redirect_stdout(io.StringIO()):
        before = set(sys.modules)
        try:
            exec(compile(entry.read_text(), str(entry), "exec"), main.__dict__)
        except Exception as exc:  # the crash under test
            crash.modules.update((name, sys.modules[name]) for name in set(sys.modules) - before
                                 if is_user_file(getattr(sys.modules[name], "__file__", None) or "<builtin>"))
            tb = exc.__traceback__  # from the program's module frame on, as when Python runs it
            while tb is not None and tb.tb_frame.f_code.co_filename != str(entry):
                tb = tb.tb_next
            crash.exc = exc.with_traceback(tb)
            return crash
    raise SystemExit(f"{case.name}: the program did not crash")


@dataclass
class Static:
    """What a case costs before any model runs."""
    prompt_chars: int
    dossier_seconds: float  # a fresh session and its dossier (median of 3)
    state_seconds: float  # the live state, in a probe of its own (median of 3)
    step: GrammarSize  # the first turn's step grammar
    step_largest: str  # its biggest rules
    answer: GrammarSize  # the answer grammar, were the model to answer from the evidence alone
    frames: int


def measure(crash: Crash) -> Static:
    dossier_times, state_times = [], []
    for _ in range(3):
        started = time.perf_counter()
        session = CrashSession.of_crash(crash.exc)
        dossier = session.dossier()
        dossier_times.append(time.perf_counter() - started)
        session.last_state = None  # the dossier's probe read one: time a probe of its own
        started = time.perf_counter()
        state = session.state()
        state_times.append(time.perf_counter() - started)
    seen = Seen(state, dossier)
    step = step_grammar(state, seen.known(state, place(session, state)), session.available_commands())
    return Static(len(dossier_text(dossier)), statistics.median(dossier_times), statistics.median(state_times),
                  grammar_size(step), largest_rules(step), grammar_size(answer_grammar(list(seen.lines))), state.frames)


def replay_grammars(crash: Crash, transcript: list[dict]) -> tuple[list[GrammarSize], GrammarSize]:
    """Each turn's step grammar and the answer grammar of a run, rebuilt by running its commands
    on the same crash here, as autodbg.investigate.loop.Investigation.turn does."""
    session = CrashSession.of_crash(crash.exc)
    dossier = session.dossier()
    seen = Seen(session.state(), dossier)
    steps = []
    for turn in transcript:
        state = session.state()
        known = seen.known(state, place(session, state))
        steps.append(grammar_size(step_grammar(state, known, session.available_commands())))
        command = turn["command"]
        outcome = session.execute(command) if command else None
        ok = outcome is not None and outcome.ok
        seen.add_command(f"{place(session, session.state())}/{command}", command,
                         outcome.lines if ok else (), ok and command.startswith("source "))
    return steps, grammar_size(answer_grammar(list(seen.lines)))


# --- runs under the real hook ------------------------------------------------------------------

@dataclass
class Run:
    total: float | None  # crash -> summary (timings.total)
    evidence: float | None
    model_load: float | None
    calls: list[dict]  # the report's model_calls: each completion's purpose, seconds, tokens, refusals
    prompt_tokens: int
    generated: int
    stopped_by: str
    fallback: str
    hit: bool
    commands: list[str]
    steps: list[GrammarSize]
    answer: GrammarSize


def run_hooked(case: Case, model: Path, timeout: float) -> dict:
    """One crash of CASE under the installed hook with MODEL; the JSON report."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("AUTODBG") and k not in ("CI", "PYTHONPATH")}
        env.update(AUTODBG="1", AUTODBG_MODEL=str(model), AUTODBG_REPORT=str(report), AUTODBG_DOWNLOAD="0",
                   AUTODBG_TIMEOUT=str(timeout),
                   NO_COLOR="1", PYTHONPATH=str(REPO), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}")
        subprocess.run(["sh", "run.sh"], cwd=case.folder, env=env, capture_output=True, timeout=timeout + 120)
        if not report.exists():
            raise SystemExit(f"{case.name}: no JSON report from the hook (is {model} a model?)")
        return json.loads(report.read_text())


def read_run(report: dict, case: Case, crash: Crash) -> Run:
    timings, tokens, transcript = report.get("timings", {}), report.get("tokens", {}), report.get("transcript", [])
    diagnosis = report.get("diagnosis") or {}
    with inside(crash):
        steps, answer = replay_grammars(crash, transcript)
    return Run(total=timings.get("total"), evidence=timings.get("evidence"), model_load=timings.get("model_load"),
               calls=report.get("model_calls", []), prompt_tokens=tokens.get("prompt_tokens_evaluated", 0),
               generated=tokens.get("generated", 0), stopped_by=report.get("stopped_by", ""),
               fallback=report.get("fallback_reason") or "",
               hit=diagnosis.get("file") == case.buggy_file and diagnosis.get("line") == case.buggy_line,
               commands=[t["command"] for t in transcript], steps=steps, answer=answer)


def call_text(call: dict) -> str:
    """One completion: its purpose, seconds, prompt tokens evaluated and how long that took, tokens
    made and their rate (and how many of them were drafts the model took: autodbg.llm.lookup),
    sampled tokens the grammar refused (each a whole-vocabulary match)."""
    making = call["seconds"] - call["prompt_seconds"]
    rate = f" {call['generated'] / making:.1f}t/s" if making > 0 else ""
    return (f"{call['purpose']} {call['seconds']:.1f}s: prompt {call['prompt_tokens_evaluated']} of"
            f" {call['prompt_tokens']} tokens evaluated in {call['prompt_seconds']:.1f}s, {call['generated']} made"
            f" in {making:.1f}s{rate} ({call['accepted']} drafted from the context), {call['grammar_refusals']} refused,"
            f" grammar {call['grammar_bytes']} B")


# --- printing ----------------------------------------------------------------------------------

def print_static(rows: list[tuple[Case, Static]]) -> None:
    print("grammar sizes are rules/alternatives/bytes; step: the first turn's; answer: from the evidence alone")
    head = f"{'program':<11} {'lines':>5} {'frames':>6} {'prompt chars':>12} {'dossier s':>9} {'state s':>8}" \
           f" {'step grammar':>13} {'its largest rules (bytes)':<27} {'answer grammar':>14}"
    print(head)
    print("-" * len(head))
    for case, s in rows:
        print(f"{case.name:<11} {case.lines:>5} {s.frames:>6} {s.prompt_chars:>12} {s.dossier_seconds:>9.3f}"
              f" {s.state_seconds:>8.3f} {str(s.step):>13} {s.step_largest:<27} {str(s.answer):>14}")


def print_runs(case: Case, static: Static, model: Path, runs: list[Run]) -> None:
    totals = [r.total for r in runs if r.total is not None]
    median = f"{statistics.median(totals):.1f}" if totals else "-"
    timed_out = sum(r.fallback == TIMED_OUT for r in runs)
    print(f"\n{case.name} ({case.lines} lines; crash {case.crash_file}:{case.crash_line}, root cause"
          f" {case.buggy_file}:{case.buggy_line}; prompt {static.prompt_chars} chars) -- {model.name}:"
          f" crash->summary median {median} s, {timed_out}/{len(runs)} '{TIMED_OUT}',"
          f" {sum(r.hit for r in runs)}/{len(runs)} root-cause line")
    for i, r in enumerate(runs, 1):
        total = f"{r.total:.1f}" if r.total is not None else "-"
        print(f"  run {i}: {total} s (evidence {r.evidence} s, model load {r.model_load} s),"
              f" prompt tokens evaluated {r.prompt_tokens}, generated {r.generated}, stopped by {r.stopped_by or '-'}"
              + (f", fallback: {r.fallback}" if r.fallback else "") + (", root cause found" if r.hit else ""))
        for call in r.calls:
            print(f"    {call_text(call)}")
        for command, step in zip(r.commands, r.steps):
            print(f"    step grammar {step} -> {command}")
        print(f"    answer grammar {r.answer}")


def print_summary(model: Path, rows: list[tuple[Case, list[Run]]]) -> None:
    """One line per program: medians over the runs. Where a crash's time goes: the prompt's
    evaluation (s), the tokens made and their rate under the live grammars, the grammar refusals."""
    def median(values) -> str:
        values = [v for v in values if v is not None]
        return f"{statistics.median(values):g}" if values else "-"

    def prompt_seconds(run: Run) -> float:
        return round(sum(c["prompt_seconds"] for c in run.calls), 1)

    def making_rate(run: Run) -> float | None:
        making = sum(c["seconds"] - c["prompt_seconds"] for c in run.calls)
        return round(sum(c["generated"] for c in run.calls) / making, 1) if making > 0 else None

    print(f"\n{model.name}: medians over the runs")
    head = f"{'program':<11} {'lines':>5} {'crash->summary s':>16} {'completions':>11} {'prompt tokens':>13}" \
           f" {'prompt s':>8} {'generated':>9} {'gen t/s':>7} {'refused':>7} {'max grammar B':>13}" \
           f" {'timed out':>9} {'root cause':>10}"
    print(head)
    print("-" * len(head))
    for case, runs in rows:
        print(f"{case.name:<11} {case.lines:>5} {median(r.total for r in runs):>16}"
              f" {median(len(r.calls) for r in runs):>11} {median(r.prompt_tokens for r in runs):>13}"
              f" {median(prompt_seconds(r) for r in runs):>8} {median(r.generated for r in runs):>9}"
              f" {median(making_rate(r) for r in runs):>7}"
              f" {median(sum(c['grammar_refusals'] for c in r.calls) for r in runs):>7}"
              f" {median(max((c['grammar_bytes'] for c in r.calls), default=0) for r in runs):>13}"
              f" {sum(r.fallback == TIMED_OUT for r in runs):>6}/{len(runs):<2}"
              f" {sum(r.hit for r in runs):>7}/{len(runs):<2}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--model", type=Path, action="append", help="a .gguf to run the crashes with (repeatable)")
    mode.add_argument("--no-model", action="store_true", help="only the grammar, prompt and dossier columns")
    parser.add_argument("--repeat", type=int, default=3, help="crashes per program and model (default 3)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="program sizes in lines, comma-separated")
    parser.add_argument("--package", action=argparse.BooleanOptionalAction, default=True,
                        help="also the package of several modules (default: yes)")
    parser.add_argument("--timeout", type=float, default=60, help="AUTODBG_TIMEOUT for the crashes (default 60,"
                        " the product's)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "scaling",
                        help="where the generated cases are written")
    args = parser.parse_args()
    try:
        sizes = [int(n) for n in args.sizes.split(",")]
    except ValueError:
        parser.error(f"--sizes: not a list of numbers: {args.sizes!r}")
    for model in args.model or []:
        if not model.is_file():
            parser.error(f"--model: no such file: {model}")
    cases = generate(args.out, sizes, args.package)
    print(f"cases written to {args.out}")
    for case in cases:
        print(f"  {case.name}: {case.lines} lines; crash {case.crash_file}:{case.crash_line},"
              f" root cause {case.buggy_file}:{case.buggy_line}; test: cd {case.folder} && sh run.sh"
              f" | grep -qxF '{EXPECTED}'")
    crashes = {case.name: crash_here(case) for case in cases}
    static = []
    for case in cases:
        with inside(crashes[case.name]):
            static.append((case, measure(crashes[case.name])))
    print()
    print_static(static)
    for model in args.model or []:
        rows = []
        for case, s in static:
            runs = [read_run(run_hooked(case, model, args.timeout), case, crashes[case.name])
                    for _ in range(args.repeat)]
            print_runs(case, s, model, runs)
            rows.append((case, runs))
        print_summary(model, rows)


if __name__ == "__main__":
    main()
