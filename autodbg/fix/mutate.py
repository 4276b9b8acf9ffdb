"""Small changes of one line, as candidate fixes: program analysis, no model and no program objects.

Bugs people write (and the ones HumanEvalFix plants) are mostly one token off: a comparison the
wrong way round, an off-by-one bound, a wrong constant, the wrong variable, arguments swapped, an
operand too many, a method's twin (`startswith`/`endswith`), a generator where a list was needed,
a `return` missing at a function's end; and classic slips of everyday code: a method read where
its value was meant, a misspelt string, a `return` that ends a loop's first round, text where a
number was meant (`conversions`, as a TypeError's message asks). `mutants()` lists the changes of
one line, each as a splice of the line's own text (the rest of the line keeps its spelling),
likeliest kinds first; whether one is right is for running it to tell (autodbg.investigate.search).
"""

from __future__ import annotations

import ast
import itertools
import re
import textwrap

from autodbg.analysis.source import parse_source, statement_starts
from autodbg.fix.lines import python_lines
from autodbg.records import Edit

COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
ARITHMETIC = ("+", "-", "*", "/", "//", "%", "**")
OPERATOR = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}
COMPARATOR = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
              ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
# Methods and built-ins easily mistaken for a twin.
TWIN_METHODS = {
    "lower": ("upper", "swapcase"), "upper": ("lower", "swapcase"), "swapcase": ("lower", "upper"),
    "startswith": ("endswith",), "endswith": ("startswith",), "isupper": ("islower",), "islower": ("isupper",),
    "append": ("extend",), "extend": ("append",), "keys": ("values", "items"), "values": ("keys", "items"),
    "items": ("keys", "values"), "lstrip": ("rstrip", "strip"), "rstrip": ("lstrip", "strip"),
    "strip": ("lstrip", "rstrip"), "split": ("rsplit",), "rsplit": ("split",), "find": ("rfind",),
    "rfind": ("find",), "index": ("rindex",), "isdigit": ("isalpha", "isalnum"), "isalpha": ("isdigit", "isalnum"),
    "floor": ("ceil",), "ceil": ("floor",), "remove": ("discard",),
}
TWIN_FUNCTIONS = {"min": ("max",), "max": ("min",), "any": ("all",), "all": ("any",), "sorted": ("reversed",),
                  "reversed": ("sorted",), "int": ("round", "float"), "float": ("int",), "round": ("int",)}
# Calls whose value is a truth value: `not` in front of one is a change worth trying.
# Keyword arguments easily given in the wrong unit.
TWIN_KEYWORDS = {"seconds": ("minutes", "milliseconds"), "minutes": ("seconds", "hours"), "hours": ("minutes", "days"),
                 "days": ("hours", "weeks"), "weeks": ("days",), "milliseconds": ("seconds", "microseconds"),
                 "microseconds": ("milliseconds",)}
TRUTH_CALLS = frozenset({"isinstance", "issubclass", "hasattr", "callable", "any", "all", "bool", "startswith",
                         "endswith", "isdigit", "isalpha", "isalnum", "isupper", "islower", "isspace", "exists"})
# Likeliest first: the order candidates are tried in when time allows only some.
KINDS = ("comparison", "off-by-one", "constant", "boolean", "operator", "operands", "drop", "abs", "method",
         "arguments", "slice", "list", "negate", "augmented", "return", "call", "typo", "dedent", "convert",
         "variable", "delete")
MAX_VARIABLES = 12  # names tried in place of a variable
MAX_STRINGS = 8  # the function's other string literals tried in place of one
TYPO_CHARS = 4  # a string this long may be a misspelling of another of the module's (at most TYPO_EDITS off)
TYPO_EDITS = 2
OPERATOR_CHARS = re.escape("-+*/%<>=!&|^@~")
ATOMS = (ast.Name, ast.Call, ast.Subscript, ast.Attribute, ast.Constant)


def mutants(file: str, source: str, line: int) -> list[Edit]:
    """Changes of LINE of FILE, whose text is SOURCE, likeliest kinds first (each Edit's origin is
    one of KINDS); each one parses. None for a line that is not the first line of a statement, or
    is a `def`/`class` line."""
    tree = parse_source(source)
    if tree is None:
        return []
    lines = python_lines(source)
    if not 1 <= line <= len(lines):
        return []
    scope = _scope(tree, line)
    statement = next((node for node in ast.walk(scope) if isinstance(node, ast.stmt) and node.lineno == line
                      and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))), None)
    if statement is None:
        return []
    text = _Line(lines[line - 1], line)
    found = _Found(file)
    on_line = [node for node in ast.walk(statement) if getattr(node, "lineno", 0) == getattr(node, "end_lineno", 0) == line]
    variables = _variables(scope)
    strings = _strings(scope)
    # `x - 0`, `x * 1`: a constant that makes its operation do nothing is never a fix (dropping it is)
    neutral = {id(n.right): {ast.Add: 0, ast.Sub: 0}.get(type(n.op), 1) for n in on_line
               if isinstance(n, ast.BinOp) and isinstance(n.right, ast.Constant)}
    for node in on_line:
        for kind, new in _expression_changes(node, text, variables, strings, neutral.get(id(node))):
            found.add(kind, line, line, new)
    for first, last, new in _method_reads(tree, on_line, text, lines):
        found.add("call", first, last, new)
    for number, new in _typos(tree, statement, lines):
        found.add("typo", number, number, new)
    for kind, first, last, new in _statement_changes(tree, scope, statement, text, lines, variables):
        found.add(kind, first, last, new)
    holder = scope if not isinstance(scope, ast.Module) else _top_statement(tree, line)
    return [m for m in sorted(found.items, key=lambda m: KINDS.index(m.origin))
            if _parses(holder if holder.lineno <= m.first <= holder.end_lineno else _top_statement(tree, m.first),
                       lines, m)]


class _Found:
    def __init__(self, file: str) -> None:
        self.file = file
        self.items: list[Edit] = []
        self.seen: set[tuple[int, int, str]] = set()

    def add(self, kind: str, first: int, last: int, new: str) -> None:
        key = (first, last, new)
        if key not in self.seen:
            self.seen.add(key)
            self.items.append(Edit(file=self.file, first=first, last=last, replacement=new, origin=kind))


class _Line:
    """One source line (NUMBER); AST columns are UTF-8 byte offsets into it."""

    def __init__(self, text: str, number: int = 0) -> None:
        self.text, self.number = text, number
        self.raw = text.encode("utf-8")

    def of(self, node: ast.AST) -> str:
        return self.raw[node.col_offset:node.end_col_offset].decode("utf-8")

    def splice(self, start: int, end: int, new: str) -> str:
        return (self.raw[:start] + new.encode("utf-8") + self.raw[end:]).decode("utf-8")

    def replace(self, node: ast.AST, new: str) -> str:
        return self.splice(node.col_offset, node.end_col_offset, new)

    def operator(self, left: ast.AST, right: ast.AST, token: str) -> tuple[int, int] | None:
        """Byte span of TOKEN between LEFT and RIGHT (outside any brackets LEFT or RIGHT left open)."""
        gap = self.raw[left.end_col_offset:right.col_offset].decode("utf-8")
        if token[0].isalpha():
            pattern = r"\s+".join(rf"\b{word}\b" for word in token.split())
        else:  # `<` is not the start of `<=` or `<<`
            pattern = rf"(?<![{OPERATOR_CHARS}]){re.escape(token)}(?![{OPERATOR_CHARS}])"
        match = re.search(pattern, gap)
        if match is None:
            return None
        start = left.end_col_offset + len(gap[:match.start()].encode("utf-8"))
        return start, start + len(match.group().encode("utf-8"))


def _expression_changes(node: ast.AST, line: _Line, variables: list[str], strings: list[str], neutral: int | None):
    """(kind, new line text) for the changes of one expression node; NEUTRAL: the value that would
    make it, a constant operand, do nothing."""
    if isinstance(node, ast.Compare):
        yield from _comparison_changes(node, line)
    elif isinstance(node, ast.BinOp) and type(node.op) in OPERATOR:
        yield from _operator_changes(node, line)
    elif isinstance(node, ast.BoolOp):
        token, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        spans = [line.operator(a, b, token) for a, b in zip(node.values, node.values[1:])]
        if all(spans):
            raw = line.raw
            for start, end in sorted(spans, reverse=True):
                raw = raw[:start] + other.encode() + raw[end:]
            yield "boolean", raw.decode("utf-8")
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        yield ("boolean" if isinstance(node.op, ast.Not) else "drop"), line.replace(node, line.of(node.operand))
    elif isinstance(node, ast.Constant):
        yield from (("constant", line.replace(node, new)) for new in _other_constants(node, line, strings)
                    if new != str(neutral))
    elif isinstance(node, ast.Name):
        if node.id in variables and isinstance(node.ctx, ast.Load):  # a value read: the wrong one is read
            yield from (("variable", line.replace(node, name)) for name in variables if name != node.id)
        yield from (("method", line.replace(node, twin)) for twin in TWIN_FUNCTIONS.get(node.id, ()))
    elif isinstance(node, ast.Attribute) and node.attr in TWIN_METHODS:
        base = line.of(node.value)
        yield from (("method", line.replace(node, f"{base}.{twin}")) for twin in TWIN_METHODS[node.attr])
    elif isinstance(node, ast.Call):
        yield from _call_changes(node, line)
    elif isinstance(node, ast.Subscript):
        yield from _subscript_changes(node, line)
    elif isinstance(node, ast.GeneratorExp):
        text = line.of(node)
        if text.startswith("(") and text.endswith(")"):  # a generator is consumed once: a list is not
            yield "list", line.replace(node, f"[{text[1:-1]}]")


def _comparison_changes(node: ast.Compare, line: _Line):
    lefts = [node.left] + node.comparators[:-1]
    for op, left, right in zip(node.ops, lefts, node.comparators):
        token = COMPARATOR[type(op)]
        span = line.operator(left, right, token)
        if span is None:
            continue
        group = COMPARISONS if token in COMPARISONS else ("is", "is not") if token.startswith("is") else ("in", "not in")
        yield from (("comparison", line.splice(*span, other)) for other in group if other != token)
        if token in ("in", "not in") and len(node.ops) == 1:  # `x in s` for `s in x`
            yield "operands", line.splice(left.col_offset, right.end_col_offset, f"{line.of(right)} {token} {line.of(left)}")


def _operator_changes(node: ast.BinOp, line: _Line):
    token = OPERATOR[type(node.op)]
    span = line.operator(node.left, node.right, token)
    if span is None:
        return
    right = node.right.value if isinstance(node.right, ast.Constant) else None
    for other in ARITHMETIC:
        if other == token or (right in (0, 1) and not isinstance(right, bool) and other in ("*", "/", "//", "**", "%")):
            continue  # `x * 1`, `x ** 0`: nothing a person would write
        if right == 0 and other in ("+", "-"):
            continue
        yield "operator", line.splice(*span, other)
    left_text, right_text = line.of(node.left), line.of(node.right)
    if token not in ("+", "*") or not isinstance(node.right, ast.Constant):
        yield "operands", line.replace(node, f"{_operand(node.right, right_text)} {token} {_operand(node.left, left_text)}")
    yield "drop", line.replace(node, left_text)
    yield "drop", line.replace(node, right_text)
    if token == "-":
        yield "abs", line.replace(node, f"abs({line.of(node)})")  # a distance, not a difference


def _operand(node: ast.AST, text: str) -> str:
    return text if isinstance(node, ATOMS) else f"({text})"


def _other_constants(node: ast.Constant, line: _Line, strings: list[str]) -> list[str]:
    value, text = node.value, line.of(node)
    if isinstance(value, bool):
        return [repr(not value)]
    if isinstance(value, int):
        return [str(n) for n in dict.fromkeys((value + 1, value - 1, 0, 1, 2)) if n != value and n >= 0]
    if isinstance(value, float):
        return [repr(x) for x in dict.fromkeys((value + 1, value - 1, 0.0, 1.0, value * 2, value / 2)) if x != value and x >= 0]
    if isinstance(value, str) and text[:1] in "'\"" and text[-1:] == text[:1] and "\\" not in text:
        quote = text[0]
        others = [f"{quote}{s}{quote}" for s in strings if s != value and quote not in s and "\\" not in s and "\n" not in s]
        return others[:MAX_STRINGS] + ([quote * 2] if value else [])
    return []


def _literal(node: ast.expr) -> bool:
    """A constant, or a negative one (`-1`)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant)


def _call_changes(node: ast.Call, line: _Line):
    args = node.args
    if 2 <= len(args) <= 3 and not any(isinstance(a, ast.Starred) for a in args) and all(_same_line(a, node) for a in args):
        texts = [line.of(a) for a in args]
        # Constants swapped (`Item("A-1", 3, 12.0)`, `range(4, 1)`) change data, not code: a wrong constant.
        kind = "constant" if all(_literal(a) for a in args) else "arguments"
        for order in itertools.permutations(range(len(args))):
            if list(order) != sorted(order):
                yield kind, line.splice(args[0].col_offset, args[-1].end_col_offset,
                                               ", ".join(texts[i] for i in order))
    for keyword in node.keywords:  # `timedelta(seconds=n)` for `minutes=n`
        if keyword.arg in TWIN_KEYWORDS and _same_line(keyword, node):
            for twin in TWIN_KEYWORDS[keyword.arg]:
                yield "method", line.splice(keyword.col_offset, keyword.value.col_offset,
                                            line.raw[keyword.col_offset:keyword.value.col_offset].decode("utf-8")
                                            .replace(keyword.arg, twin, 1))
    if isinstance(node.func, ast.Name) and node.func.id == "range" and all(_same_line(a, node) for a in args):
        if len(args) == 2:
            yield "drop", line.splice(args[0].col_offset, args[1].end_col_offset, line.of(args[1]))
        for arg in args:
            yield from _off_by_one(arg, line)


def _subscript_changes(node: ast.Subscript, line: _Line):
    index = node.slice
    if not _same_line(index, node):
        return
    if isinstance(index, ast.Slice):
        lower, upper = index.lower, index.upper
        if (lower is None) != (upper is None) and index.step is None:  # `s[k:]` for `s[:k]`
            bound = line.of(lower or upper)
            yield "slice", line.replace(index, f":{bound}" if upper is None else f"{bound}:")
        for bound in (lower, upper):
            if bound is not None:
                yield from _off_by_one(bound, line)
    elif not isinstance(index, ast.Tuple):
        yield from _off_by_one(index, line)


def _off_by_one(node: ast.AST, line: _Line):
    """NODE + 1 and NODE - 1, but not where they undo a `+ 1`/`- 1` already there (dropping it does that)."""
    if isinstance(node, ast.Constant):
        return  # constants change on their own
    text = line.of(node)
    ends_in_one = isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant) and node.right.value == 1
    wrapped = text if isinstance(node, ATOMS) or isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub) \
        else f"({text})"
    for sign, undoes in (("+", ast.Sub), ("-", ast.Add)):
        if not (ends_in_one and isinstance(node.op, undoes)):
            yield "off-by-one", line.replace(node, f"{wrapped} {sign} 1")


def _statement_changes(tree: ast.Module, scope: ast.AST, statement: ast.stmt, line: _Line, lines: list[str],
                       variables: list[str]):
    """(kind, first, last, new text) for changes of the statement as a whole."""
    number = statement.lineno
    test = getattr(statement, "test", None) if isinstance(statement, (ast.If, ast.While)) else None
    if isinstance(statement, ast.Return):
        test = statement.value
    single_comparison = isinstance(test, ast.Compare) and len(test.ops) == 1  # turning it round does that
    if test is not None and _same_line(test, statement) and _truth_value(test) and not single_comparison:
        yield "negate", number, number, line.replace(test, _negated(test, line.of(test)))
    if isinstance(statement, (ast.For, ast.AsyncFor)) and _same_line(statement.iter, statement):
        text = line.of(statement.iter)  # a loop over a dict or list it changes, or over a one-shot iterator
        if not text.startswith("list("):
            yield "list", number, number, line.replace(statement.iter, f"list({text})")
    if isinstance(statement, ast.AugAssign) and _same_line(statement.value, statement):
        target = statement.target  # `depth -= 1` read and wrote the wrong variable
        if isinstance(target, ast.Name) and target.id in variables:
            for name in variables:
                if name != target.id:
                    yield "variable", number, number, line.replace(target, name)
        token = OPERATOR.get(type(statement.op))
        span = line.operator(statement.target, statement.value, f"{token}=") if token else None
        if span is not None:
            for other in ARITHMETIC:
                if other != token:
                    yield "augmented", number, number, line.splice(*span, f"{other}=")
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.BinOp) \
            and isinstance(statement.value.left, ast.Name) and type(statement.value.op) in OPERATOR:
        # `count + 1` computes and drops its value: `count += 1` keeps it
        value = statement.value
        yield "augmented", number, number, line.replace(
            value, f"{value.left.id} {OPERATOR[type(value.op)]}= {line.of(value.right)}")
    block = _block_of(tree, statement)
    loop = _holder_of(tree, block) if block is not None else None
    if isinstance(statement, ast.Return) and isinstance(loop, (ast.For, ast.While)) and block is loop.body \
            and block[-1] is statement and len(block) > 1 and not loop.orelse and _same_line(statement, statement):
        # a `return` at the end of a loop's body ends the loop in its first round: after the loop, it
        # is what happens when no round returned
        yield "dedent", number, number, " " * loop.col_offset + lines[number - 1].lstrip()
    last = statement.end_lineno or number
    if block is not None and len(block) > 1:
        yield "delete", number, last, ""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and last == scope.end_lineno \
            and not isinstance(scope.body[-1], (ast.Return, ast.Raise)):
        indent = " " * scope.body[0].col_offset  # the function's end falls off: return what it made
        kept = "".join(lines[number - 1:last])
        assigned = [name for name in variables if name in _assigned(scope)]
        for name in assigned[::-1][:3]:
            yield "return", number, last, f"{kept.rstrip()}\n{indent}return {name}\n"


CONCATENATED = re.compile(r'can only concatenate str \(not "\w+"\) to str')
MIXED = re.compile(r"unsupported operand type\(s\) for [^:]+: '(\w+)' and '(\w+)'")


def conversion(message: str) -> str | None:
    """The conversion a TypeError's MESSAGE asks for: `str` where a number was joined to text, `int`
    or `float` where text met a number in arithmetic (it was read from a file or a form)."""
    if CONCATENATED.search(message):
        return "str"
    mixed = MIXED.search(message)
    if mixed and "str" in mixed.groups():
        other = [t for t in mixed.groups() if t != "str"]
        return "float" if other == ["float"] else "int" if other == ["int"] else None
    return None


def conversions(file: str, source: str, line: int, to: str, operands: bool) -> list[Edit]:
    """Changes that convert a value with TO (`int`, `float`, `str`): OPERANDS, each operand of the
    line's arithmetic in turn (the line that crashed); else the value the line assigns, where it
    was made (`counts[sku] = int(counted)`)."""
    tree = parse_source(source)
    if tree is None:
        return []
    lines = python_lines(source)
    statement = statement_starts(tree).get(line)
    if statement is None or not 1 <= line <= len(lines):
        return []
    text = _Line(lines[line - 1], line)
    converted = lambda node: isinstance(node, ast.Call) and getattr(node.func, "id", None) == to  # noqa: E731
    if operands:
        values = [operand for node in ast.walk(statement) if isinstance(node, ast.BinOp)
                  for operand in (node.left, node.right)
                  if not isinstance(operand, (ast.BinOp, ast.Constant, ast.JoinedStr)) and not converted(operand)]
    else:
        one = isinstance(statement, ast.AnnAssign) or isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and not isinstance(statement.targets[0], (ast.Tuple, ast.List))  # one value, not one to unpack
        value = statement.value if one else None
        values = [value] if value is not None and not converted(value) else []
    return [Edit(file=file, first=line, last=line, replacement=text.replace(v, f"{to}({text.of(v)})"), origin="convert")
            for v in values
            if v.lineno == v.end_lineno == line]


def _method_reads(tree: ast.Module, nodes: list[ast.AST], line: _Line, lines: list[str]):
    """(first, last, new text) where a method is read and not called, as a value was meant:
    `item.subtotal()` for `item.subtotal` on the line, and, where the module's class defines it
    with no parameter but `self` and no decorator, `@property` on it."""
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    methods = {n.name: n for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) for n in cls.body
               if isinstance(n, ast.FunctionDef) and not n.decorator_list and len(n.args.args) == 1
               and not (n.args.vararg or n.args.kwarg or n.args.kwonlyargs)}
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and id(node) not in called:
            yield line.number, line.number, line.replace(node, f"{line.of(node)}()")
            method = methods.get(node.attr)
            if method is not None:
                head = lines[method.lineno - 1]
                indent = head[:len(head) - len(head.lstrip())]
                yield method.lineno, method.lineno, f"{indent}@property\n{head}"


def _typos(tree: ast.Module, statement: ast.stmt, lines: list[str]):
    """(line, new text) where a string of STATEMENT (on any of its lines: a table's entries) is a
    few letters off another string of the module (`"shiped"` for `"shipped"`)."""
    known = list(dict.fromkeys(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
                               and isinstance(n.value, str) and TYPO_CHARS <= len(n.value) <= 40))
    for node in ast.walk(statement):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= TYPO_CHARS
                and node.lineno == node.end_lineno):
            continue
        text = _Line(lines[node.lineno - 1])
        quote = text.of(node)[:1]
        if quote not in "'\"" or text.of(node) != f"{quote}{node.value}{quote}":
            continue  # a prefixed, escaped or implicitly joined string: left as written
        for other in known:
            if other != node.value and quote not in other and "\\" not in other \
                    and _edits(node.value, other) <= TYPO_EDITS:
                yield node.lineno, text.replace(node, f"{quote}{other}{quote}")


def _edits(a: str, b: str) -> int:
    """The Levenshtein distance of A and B, counted up to TYPO_EDITS + 1."""
    if abs(len(a) - len(b)) > TYPO_EDITS:
        return TYPO_EDITS + 1
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _truth_value(node: ast.AST) -> bool:
    """Whether NODE's value is a truth value (so `not` in front of it means something)."""
    if isinstance(node, (ast.Compare, ast.BoolOp)) or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in TRUTH_CALLS or name.startswith(("is_", "has_"))
    return False


def _negated(node: ast.AST, text: str) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return text[3:].lstrip()
    return f"not {text}" if isinstance(node, ATOMS) else f"not ({text})"


def _same_line(node: ast.AST, holder: ast.AST) -> bool:
    return node.lineno == node.end_lineno == holder.lineno


def _scope(tree: ast.Module, line: int) -> ast.AST:
    """The innermost function holding LINE (its `def` line excluded), else the module."""
    best: ast.AST = tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body[0].lineno <= line <= node.end_lineno:
            if best is tree or node.lineno > best.lineno:
                best = node
    return best


def _variables(scope: ast.AST) -> list[str]:
    """A function's parameters and the names it assigns (none at a module's level: too many)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    arguments = scope.args
    names = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
    names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    names += _assigned(scope)
    return [n for n in dict.fromkeys(names) if n != "self"][:MAX_VARIABLES]


def _assigned(scope: ast.AST) -> list[str]:
    return list(dict.fromkeys(node.id for node in ast.walk(scope) if isinstance(node, ast.Name)
                              and isinstance(node.ctx, ast.Store)))


def _strings(scope: ast.AST) -> list[str]:
    return list(dict.fromkeys(node.value for node in ast.walk(scope) if isinstance(node, ast.Constant)
                              and isinstance(node.value, str) and len(node.value) <= 40))


def _block_of(tree: ast.Module, statement: ast.stmt) -> list[ast.stmt] | None:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and any(s is statement for s in block):
                return block
    return None


def _holder_of(tree: ast.Module, block: list[ast.stmt]) -> ast.AST | None:
    """The statement whose body, else or finally BLOCK is."""
    return next((node for node in ast.walk(tree) if any(getattr(node, name, None) is block
                                                        for name in ("body", "orelse", "finalbody"))), None)


def _top_statement(tree: ast.Module, line: int) -> ast.stmt:
    return next(node for node in tree.body if node.lineno <= line <= (node.end_lineno or node.lineno))


def _parses(holder: ast.AST, lines: list[str], mutant: Edit) -> bool:
    """Whether the function or module-level statement holding MUTANT still parses with it."""
    first = min([holder.lineno] + [d.lineno for d in getattr(holder, "decorator_list", [])])
    last = max(holder.end_lineno or holder.lineno, mutant.last)
    text = "".join(lines[first - 1:mutant.first - 1]) + mutant.replacement + "".join(lines[mutant.last:last])
    try:
        ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return False
    return True
