"""Where a name's value came from: reaching definitions over a function's source, statically.

Pure analysis of source text and its AST (no program objects), so it can run on any frame's
file: the evidence shows `count = 0` with `← line 3: count = len(...)` under it, follows a
parameter into its caller's argument expression, and a call's result into the callee's
`return` lines.

The analysis walks the function's structured control flow with a state per tracked name (the set
of definitions that may have made its value) and joins states where paths meet: if/else and match
arms, loop back edges (iterated to a fixed point), try bodies into their handlers, break/continue
to the loop's exit/head; return, raise, break and continue end a path. A path on which a local has
no definition carries an "unbound" pseudo-definition, placed at the last branch the path took
(the `except` that skipped the assignment), so an UnboundLocalError points somewhere useful.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, replace

from autodbg.analysis.source import (
    functions, header_end, module_nodes, parameters, parent_map, parse_source, parse_statement, statement_at,
)
from autodbg.frames.safe_eval import cut

MAX_CODE = 160  # characters of a definition's statement text
MAX_ROUNDS = 30  # loop fixed-point iterations; sets only grow, so a handful always suffice

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))
# Methods that change their object in place: `lines.append(x)` is part of where `lines` came from.
_MUTATORS = {"append", "extend", "insert", "update", "add", "setdefault", "remove", "discard",
             "pop", "popitem", "clear", "sort", "reverse"}
# Expressions whose value is all they do: as a statement of their own, the value is lost.
_PURE_EXPRESSIONS = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Name, ast.Attribute, ast.Subscript)
# Kinds that add to the earlier definitions instead of replacing them.
_KEEPS_EARLIER = {"augassign", "mutate"}


@dataclass(frozen=True)
class Origin:
    """A definition of NAME that can reach the line: the statement at LINE..END_LINE (CODE).

    KIND: assign, augassign, annassign, mutate (`x[k] = v`, `x.append(v)`), for, with, except,
    walrus, import, def, class, comprehension, match, param, attribute (`self.NAME = ...`,
    `self.NAME.append(...)` or a member of a class, see attribute_definitions); two
    pseudo-definitions: unbound (a path on which NAME has no value, which took the branch at
    LINE) and deleted (`del NAME` at LINE); and binding: where there is an unbound path, the
    function's other bindings of NAME, which make it local (the cause of an UnboundLocalError);
    discarded: a statement that computes a value from NAME and drops it (discarded_values).
    """

    name: str
    line: int
    end_line: int
    code: str
    kind: str


@dataclass(frozen=True)
class LineReads:
    """What the statement at a line reads: plain names, attribute chains (`cart.subtotal`) and
    callees (`parse`, `self.total`), each in source order."""

    names: list[str]
    attributes: list[str]
    calls: list[str]


# --- public functions ------------------------------------------------------------------------

def reaching_definitions(source: str, function_line: int | None, line: int,
                         names: list[str]) -> dict[str, list[Origin]]:
    """For each of NAMES read on LINE inside the function whose `def` (or first decorator) is at
    FUNCTION_LINE (None: module level), the definitions that can reach LINE, in line order.
    Names not defined in the function come from the enclosing function (all its definitions of
    the name) or the module (all module-level ones); builtins give []."""
    result: dict[str, list[Origin]] = {name: [] for name in names}
    tree = parse_source(source)
    scope = tree and _find_scope(tree, function_line)
    if scope is None:
        return result
    lines = source.splitlines()
    in_comprehension = _comprehension_bindings(scope, line, lines)
    local = _local_names(scope)
    tracked = {n for n in names if n in local and n not in in_comprehension}
    at_line = _Flow(tracked, line, lines).at(scope) if tracked else {}
    parents = parent_map(tree)
    for name in names:
        if name in in_comprehension:
            found = [in_comprehension[name]]
        elif name in local:
            found = list(at_line.get(name, ()))
            if any(o.kind == "unbound" for o in found):  # why it is local at all: its bindings
                found += [replace(o, kind="binding") for o in _all_definitions(scope, name, lines)
                          if o.kind != "param" and o not in found]
        else:
            found = _outer_definitions(scope, parents, name, lines)
        result[name] = sorted(set(found), key=lambda o: (o.line, o.kind, o.code))
    return result


def argument_expression(call_source: str, callee: str, param: str, index: int, *,
                        method: bool = False) -> str | None:
    """The source of the argument bound to parameter PARAM (at position INDEX of the callee's
    `def`) in the call to CALLEE in CALL_SOURCE, the caller's statement at the call site.

    METHOD: the callee's first parameter is `self`, so `obj.m(a)` binds `self` to `obj` and `a`
    to index 1, and `Cls(a)` (a call of `__init__`) binds `a` to index 1. None when the value
    cannot be told from the text: the argument comes from `*args`/`**kwargs`, the default was
    used, or no call to CALLEE is on the line.
    """
    call = _call_to(parse_statement(call_source), callee)
    if call is None:
        return None
    for keyword in call.keywords:
        if keyword.arg == param:
            return ast.unparse(keyword.value)
    if method:
        if index == 0:
            return ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else None
        index -= 1
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if position == index:
            return ast.unparse(arg)
    return None


def return_lines(source: str, function_line: int) -> list[tuple[int, int, str]]:
    """(first line, last line, code) of each place where the function at FUNCTION_LINE hands
    back a value: its `return` statements, its `yield`s for a generator, and, when the end of
    its body can be reached, its last line with the code "falls off the end: returns None"."""
    tree = parse_source(source)
    function = tree and _find_scope(tree, function_line)
    if not isinstance(function, _FUNCTIONS):
        return []
    lines = source.splitlines()
    found: dict[int, tuple[int, int, str]] = {}
    generator = False
    for node in _same_scope(function):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            generator = True
        if isinstance(node, ast.stmt) and _returns_or_yields(node):
            found.setdefault(node.lineno, (node.lineno, node.end_lineno, _code(node, lines)))
    if not generator and _Flow(set(), 0, lines).falls_through(function):
        end = function.body[-1].end_lineno
        found.setdefault(end, (end, end, "falls off the end: returns None"))
    return sorted(found.values())


def attribute_definitions(source: str, attribute: str) -> list[Origin]:
    """Where an attribute named ATTRIBUTE gets its value in SOURCE: `x.ATTRIBUTE = ...` (and
    augmented) anywhere, and members of classes (`def ATTRIBUTE`, `ATTRIBUTE = ...` in a class
    body). Static and by name only: which object it is, is not known."""
    tree = parse_source(source)
    if tree is None:
        return []
    lines = source.splitlines()
    found = []
    for node in module_nodes(tree):
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                fields = _target_names(member.target) if isinstance(member, ast.AnnAssign) else []  # dataclass
                if attribute in {name for name, _ in _statement_bindings(member)} | set(fields):
                    found.append(_origin(attribute, member, lines, "attribute"))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and t.attr == attribute
                   for target in targets for t in ast.walk(target)):
                found.append(_origin(attribute, node, lines, "attribute"))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func  # `self.items.append(x)`
            if (isinstance(func, ast.Attribute) and func.attr in _MUTATORS
                    and isinstance(func.value, ast.Attribute) and func.value.attr == attribute):
                found.append(_origin(attribute, node, lines, "attribute"))
    return sorted(set(found), key=lambda o: o.line)


def line_reads(source: str, line: int) -> LineReads:
    """What the statement at LINE reads (its header only, for a compound statement); names a
    comprehension binds are left out, and a called method is a call, not an attribute."""
    tree = parse_source(source)
    statement = tree and statement_at(tree, line)
    if statement is None:
        return LineReads([], [], [])
    parts = _header_parts(statement)
    nodes = [node for part in parts for node in _walk_in_order(part)]
    comprehension_bound = {name for node in nodes if isinstance(node, _COMPREHENSIONS)
                           for generator in node.generators for name in _target_names(generator.target)}
    callees = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    names: dict[str, None] = {}
    attributes: dict[str, None] = {}
    calls: dict[str, None] = {}
    for node in nodes:
        if isinstance(node, ast.Call) and _is_chain(node.func):
            calls[ast.unparse(node.func)] = None
        elif (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in callees
              and node.id not in comprehension_bound):
            names[node.id] = None
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _is_chain(node)
              and id(node) not in callees and _base_name(node) not in comprehension_bound):
            attributes[ast.unparse(node)] = None
    return LineReads(list(names), list(attributes), list(calls))


def discarded_values(source: str, function_line: int | None, names: list[str]) -> list[Origin]:
    """Statements of the function that compute a value from one of NAMES and drop it, such as
    `attempt + 1` where `attempt += 1` was meant (kind "discarded"): a name that never changes
    where it should is as much a lead as a wrong definition."""
    tree = parse_source(source)
    scope = tree and _find_scope(tree, function_line)
    if scope is None:
        return []
    lines = source.splitlines()
    found = []
    for node in _same_scope(scope):
        if isinstance(node, ast.Expr) and isinstance(node.value, _PURE_EXPRESSIONS):
            used = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            found += [_origin(name, node, lines, "discarded") for name in names if name in used]
    return sorted(found, key=lambda o: o.line)


def passed_value(source: str, line: int) -> str | None:
    """What the statement at LINE passes along, computing nothing itself: "" for a name (`x = y`,
    `return y`), the callee for a call's result (`x = f(...)`, `return f(...)`); None when it
    computes its value, or is no such statement."""
    tree = parse_source(source)
    statement = tree and statement_at(tree, line)
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        value = statement.value
    elif isinstance(statement, ast.Return):
        value = statement.value
    else:
        return None
    if isinstance(value, ast.Name):
        return ""
    return ast.unparse(value.func) if isinstance(value, ast.Call) else None


def function_line(source: str, line: int, name: str) -> int | None:
    """The `def` line of the innermost function called NAME whose body holds LINE: a frame's
    function from its code name and line (None at module level, or when not found)."""
    holding = [f for f in functions(source) if f.name == name and f.holds(line)]
    return holding[-1].line if holding else None


def guard_tests(source: str, line: int) -> list[int]:
    """The lines of the `if`/`elif`/`while` tests whose body (or `else`) holds LINE, innermost
    first: for a `raise` (or any failing line) the condition that led there."""
    tree = parse_source(source)
    found = []
    for node in module_nodes(tree) if tree else ():
        if isinstance(node, (ast.If, ast.While)) and any(
                block and block[0].lineno <= line <= block[-1].end_lineno for block in (node.body, node.orelse)):
            found.append(node.lineno)
    return sorted(found, reverse=True)


def origin_text(origin: Origin, function: str | None = None) -> str:
    """The one-line note shown under a value: `← line 3: count = len(items)`."""
    if origin.kind == "param":
        owner = f" of {function}()" if function else ""
        return f"← parameter{owner}, line {origin.line}: {origin.code}"
    if origin.kind == "unbound":
        return f"← no value on the path through line {origin.line}: {origin.code}"
    if origin.kind == "deleted":
        return f"← deleted at line {origin.line}: {origin.code}"
    lines = f"lines {origin.line}-{origin.end_line}" if origin.end_line > origin.line else f"line {origin.line}"
    return f"← {lines}: {origin.code}"


# --- the flow analysis -----------------------------------------------------------------------

State = dict[str, frozenset[Origin]]


class _Flow:
    """Reaching definitions of NAMES over one scope's statements; collects the state at LINE."""

    def __init__(self, names: set[str], line: int, lines: list[str]):
        self.names = names
        self.line = line
        self.lines = lines
        self.at_line: State | None = None
        self.loops: list[tuple[list, list]] = []  # (states at break, states at continue)
        self.catchers: list[list] = []  # per enclosing try: the states an exception can leave from

    def at(self, scope: ast.AST) -> State:
        self._block(scope.body, self._entry(scope))
        return self.at_line or {}

    def falls_through(self, function: ast.AST) -> bool:
        return self._block(function.body, {}) is not None

    def _entry(self, scope: ast.AST) -> State:
        state = {name: frozenset({self._unbound(name, scope)}) for name in self.names}
        if isinstance(scope, _FUNCTIONS):
            header = _code(scope, self.lines)
            for arg in parameters(scope):
                if arg.arg in self.names:
                    state[arg.arg] = frozenset({Origin(arg.arg, scope.lineno, scope.lineno, header, "param")})
        return state

    def _block(self, statements: list[ast.stmt], state: State | None) -> State | None:
        for statement in statements:
            if state is None:
                break  # the rest is unreachable
            for catcher in self.catchers:
                catcher.append(state)
            state = self._statement(statement, state)
        return state

    def _statement(self, node: ast.stmt, state: State) -> State | None:
        handler = getattr(self, "_" + type(node).__name__, None)
        if handler is not None:
            return handler(node, state)
        self._record(node, state)
        state = self._bind(node, state)
        if isinstance(node, (ast.Return, ast.Raise)):
            return None
        if isinstance(node, (ast.Break, ast.Continue)):
            self.loops[-1][0 if isinstance(node, ast.Break) else 1].append(state)
            return None
        return state

    def _If(self, node: ast.If, state: State) -> State | None:
        self._record(node, state)
        state = self._bind(node, state)
        body = self._block(node.body, self._relabel(state, node, node.orelse))
        other = self._block(node.orelse, self._relabel(state, node.orelse[0] if node.orelse else node, node.body))
        return _join(body, other)

    def _For(self, node: ast.For, state: State) -> State | None:
        self._record(node, state)
        state = self._walrus(node.iter, node, state)
        return self._loop(node, state, infinite=False)

    _AsyncFor = _For

    def _While(self, node: ast.While, state: State) -> State | None:
        infinite = isinstance(node.test, ast.Constant) and bool(node.test.value)
        return self._loop(node, state, infinite=infinite)

    def _loop(self, node: ast.For | ast.While, entry: State, *, infinite: bool) -> State | None:
        head = entry
        for _ in range(MAX_ROUNDS):
            if isinstance(node, ast.While):
                self._record(node, head)
                tested = self._bind(node, head)
            else:
                tested = head
            body_in = self._relabel(tested, node, node.body)  # the first round, before the body's own
            if not isinstance(node, ast.While):
                body_in = self._bind_target(node.target, node, body_in, "for")
            self.loops.append(([], []))
            out = self._block(node.body, body_in)
            breaks, continues = self.loops.pop()
            new_head = _join(entry, out, *continues)
            if new_head == head:
                break
            head = new_head
        exhausted = None if infinite else self._relabel(tested, node, node.body)
        return _join(self._block(node.orelse, exhausted), *breaks)

    def _With(self, node: ast.With, state: State) -> State | None:
        self._record(node, state)
        for item in node.items:
            state = self._walrus(item.context_expr, node, state)
            if item.optional_vars is not None:
                state = self._bind_target(item.optional_vars, node, state, "with")
        return self._block(node.body, state)

    _AsyncWith = _With

    def _Try(self, node: ast.Try, state: State) -> State | None:
        caught: list[State] = []
        self.catchers.append(caught)
        body = self._block(node.body, state)
        self.catchers.pop()
        raised = _join(state, *caught)
        to_finally: list[State] = []
        if node.finalbody:
            self.catchers.append(to_finally)
        outs = [self._block(node.orelse, body)]
        for handler in node.handlers:
            entry = self._relabel(raised, handler, node.body)
            if handler.name:
                entry = self._define(entry, handler.name, _origin(handler.name, handler, self.lines, "except"))
            self._record(handler, entry)
            out = self._block(handler.body, entry)
            if handler.name and out is not None:  # Python deletes the name when the handler ends
                out = self._define(out, handler.name, _origin(handler.name, handler, self.lines, "deleted"))
            outs.append(out)
        normal = _join(*outs)
        if not node.finalbody:
            return normal
        self.catchers.pop()
        finished = self._block(node.finalbody, _join(normal, raised, *to_finally))
        return None if normal is None else finished

    _TryStar = _Try

    def _Match(self, node: ast.Match, state: State) -> State | None:
        self._record(node, state)
        state = self._walrus(node.subject, node, state)
        outs = []
        exhaustive = False
        for case in node.cases:  # a match_case has no position of its own: its pattern's
            others = [s for other in node.cases if other is not case for s in other.body]
            entry = self._relabel(state, case.pattern, others)
            for name in _pattern_names(case.pattern):
                entry = self._define(entry, name, _origin(name, case.pattern, self.lines, "match"))
            self._record(case.pattern, entry)
            outs.append(self._block(case.body, entry))
            exhaustive = exhaustive or (_irrefutable(case.pattern) and case.guard is None)
        if not exhaustive:
            outs.append(self._relabel(state, node, [s for case in node.cases for s in case.body]))
        return _join(*outs)

    # -- helpers --

    def _record(self, node: ast.AST, state: State) -> None:
        if node.lineno <= self.line <= header_end(node):
            self.at_line = _join(self.at_line, state)

    def _bind(self, node: ast.stmt, state: State) -> State:
        for name, kind in _statement_bindings(node):
            if name in self.names:
                state = self._define(state, name, _origin(name, node, self.lines, kind))
        return state

    def _bind_target(self, target: ast.AST, node: ast.AST, state: State, kind: str) -> State:
        for name in _target_names(target):
            if name in self.names:
                state = self._define(state, name, _origin(name, node, self.lines, kind))
        return state

    def _walrus(self, expression: ast.AST, node: ast.AST, state: State) -> State:
        for name in _walrus_names(expression):
            if name in self.names:
                state = self._define(state, name, _origin(name, node, self.lines, "walrus"))
        return state

    def _define(self, state: State, name: str, origin: Origin) -> State:
        kept = state.get(name, frozenset()) if origin.kind in _KEEPS_EARLIER else frozenset()
        return {**state, name: kept | {origin}}

    def _relabel(self, state: State | None, branch: ast.AST, skipped: list[ast.stmt]) -> State | None:
        """On the path into BRANCH, which bypasses the statements SKIPPED: the names those bind
        have no value because of this branch, so their "no value" pseudo-definitions move here."""
        if state is None:
            return None
        bypassed = _bound_names(skipped)
        out = {}
        for name, origins in state.items():
            if name in bypassed and any(o.kind == "unbound" for o in origins):
                origins = frozenset(o for o in origins if o.kind != "unbound") | {self._unbound(name, branch)}
            out[name] = origins
        return out

    def _unbound(self, name: str, node: ast.AST) -> Origin:
        if isinstance(node, ast.Module):
            return Origin(name, 1, 1, "(start of the module)", "unbound")
        return Origin(name, node.lineno, node.lineno, _code(node, self.lines), "unbound")


def _join(*states: State | None) -> State | None:
    reachable = [s for s in states if s is not None]
    if not reachable:
        return None
    out: State = {}
    for state in reachable:
        for name, origins in state.items():
            out[name] = out.get(name, frozenset()) | origins
    return out


# --- what binds a name -----------------------------------------------------------------------

def _statement_bindings(node: ast.stmt) -> list[tuple[str, str]]:
    """(name, kind) for each name the statement's own line(s) bind, in binding order; the
    bodies of compound statements are not included, nor a for loop's target (bound per round)."""
    out = [(name, "walrus") for part in _header_parts(node) for name in _walrus_names(part)]
    if isinstance(node, ast.Assign):
        for target in node.targets:
            out += [(name, "assign") for name in _target_names(target)]
            out += [(name, "mutate") for name in _mutated_names(target)]
    elif isinstance(node, ast.AugAssign):
        kind = "augassign" if isinstance(node.target, ast.Name) else "mutate"
        out += [(name, kind) for name in _target_names(node.target) + _mutated_names(node.target)]
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        out += [(name, "annassign") for name in _target_names(node.target)]
        out += [(name, "mutate") for name in _mutated_names(node.target)]
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        out += [((alias.asname or alias.name).split(".")[0], "import") for alias in node.names if alias.name != "*"]
    elif isinstance(node, _FUNCTIONS):
        out.append((node.name, "def"))
    elif isinstance(node, ast.ClassDef):
        out.append((node.name, "class"))
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            out += [(name, "deleted") for name in _target_names(target)]
            out += [(name, "mutate") for name in _mutated_names(target)]
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
            base = _base_name(func.value)
            if base:
                out.append((base, "mutate"))
    return out


def _target_names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    return []


def _mutated_names(target: ast.AST) -> list[str]:
    """`x[k] = v`, `x.a = v`: the name whose object changes."""
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        base = _base_name(target.value)
        return [base] if base else []
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _mutated_names(element)]
    if isinstance(target, ast.Starred):
        return _mutated_names(target.value)
    return []


def _base_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _walrus_names(expression: ast.AST) -> list[str]:
    """Names bound by `:=` in EXPRESSION, comprehensions included (they bind in the enclosing
    scope), lambdas not."""
    out = []
    stack = [expression]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.NamedExpr):
            out.append(node.target.id)
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return out


def _pattern_names(pattern: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(pattern):
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            out.append(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            out.append(node.rest)
    return out


def _irrefutable(pattern: ast.AST) -> bool:
    if isinstance(pattern, ast.MatchAs):
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    if isinstance(pattern, ast.MatchOr):
        return any(_irrefutable(p) for p in pattern.patterns)
    return False


# --- scopes ----------------------------------------------------------------------------------

def _same_scope(scope: ast.AST):
    """Every node that belongs to SCOPE itself: not the bodies of nested functions, classes
    and lambdas (their names, decorators and defaults do belong), nor comprehension internals
    other than walrus targets."""
    stack = list(scope.body) if isinstance(scope, (ast.Module, *_FUNCTIONS, ast.ClassDef)) else [scope]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            stack.extend(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                stack.extend(d for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None)
        elif isinstance(node, ast.Lambda):
            stack.extend(d for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None)
        elif isinstance(node, _COMPREHENSIONS):
            stack.append(node.generators[0].iter)  # evaluated in the enclosing scope
            stack.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))  # bind out here
        else:
            stack.extend(ast.iter_child_nodes(node))


def _local_names(scope: ast.AST) -> set[str]:
    """Names bound in SCOPE (so local to it), minus those declared global or nonlocal."""
    declared = {name for node in _same_scope(scope) if isinstance(node, (ast.Global, ast.Nonlocal))
                for name in node.names}
    bound = _bound_names(scope.body)
    if isinstance(scope, _FUNCTIONS):
        bound.update(arg.arg for arg in parameters(scope))
    return bound - declared


def _bound_names(statements: list[ast.stmt]) -> set[str]:
    bound: set[str] = set()
    for node in _same_scope(ast.Module(body=statements, type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.NamedExpr):
            bound.add(node.target.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.stmt):
            bound.update(name for name, kind in _statement_bindings(node) if kind != "mutate")
        elif isinstance(node, ast.match_case):
            bound.update(_pattern_names(node.pattern))
    return bound


def _outer_definitions(scope: ast.AST, parents: dict, name: str, lines: list[str]) -> list[Origin]:
    """A free or global name: all its definitions in the nearest enclosing function that binds
    it (a closure sees the value at call time, any of them), else the module's."""
    declared_global = any(isinstance(n, ast.Global) and name in n.names for n in _same_scope(scope))
    node = parents.get(scope)
    while node is not None and not isinstance(node, ast.Module):
        if not declared_global and isinstance(node, _FUNCTIONS) and name in _local_names(node):
            return _all_definitions(node, name, lines)
        node = parents.get(node)
    return _all_definitions(node, name, lines) if node is not None else []


def _all_definitions(scope: ast.AST, name: str, lines: list[str]) -> list[Origin]:
    found = []
    if isinstance(scope, _FUNCTIONS) and name in {a.arg for a in parameters(scope)}:
        found.append(Origin(name, scope.lineno, scope.lineno, _code(scope, lines), "param"))
    for node in _same_scope(scope):
        if isinstance(node, ast.stmt):
            kinds = [kind for bound, kind in _statement_bindings(node) if bound == name]
            if isinstance(node, (ast.For, ast.AsyncFor)) and name in _target_names(node.target):
                kinds.append("for")
            if isinstance(node, (ast.With, ast.AsyncWith)):
                kinds += ["with" for item in node.items if name in _target_names(item.optional_vars or ast.Pass())]
            found += [_origin(name, node, lines, kind) for kind in kinds if kind != "deleted"]
        elif isinstance(node, ast.ExceptHandler) and node.name == name:
            found.append(_origin(name, node, lines, "except"))
        elif isinstance(node, ast.match_case) and name in _pattern_names(node.pattern):
            found.append(_origin(name, node.pattern, lines, "match"))
    return found


def _comprehension_bindings(scope: ast.AST, line: int, lines: list[str]) -> dict[str, Origin]:
    """Names bound by the comprehensions of SCOPE's code that span LINE (innermost wins)."""
    out: dict[str, Origin] = {}
    candidates = [n for n in ast.walk(scope) if isinstance(n, _COMPREHENSIONS)
                  and n.lineno <= line <= n.end_lineno and _innermost_scope(scope, n)]
    for node in sorted(candidates, key=lambda n: (n.lineno, n.col_offset)):
        code = cut(" ".join(_segment(node, lines).split()), MAX_CODE)
        for generator in node.generators:
            for name in _target_names(generator.target):
                out[name] = Origin(name, node.lineno, node.end_lineno, code, "comprehension")
    return out


def _innermost_scope(scope: ast.AST, node: ast.AST) -> bool:
    """NODE is not inside a function, class or lambda nested in SCOPE."""
    for inner in ast.walk(scope):
        if inner is not scope and isinstance(inner, _SCOPES) and any(n is node for n in ast.walk(inner)):
            return False
    return True


def _find_scope(tree: ast.Module, function_line: int | None) -> ast.AST | None:
    if function_line is None:
        return tree
    for node in module_nodes(tree):
        if isinstance(node, _FUNCTIONS):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if function_line in (node.lineno, first):
                return node
    return None


@functools.lru_cache(maxsize=32)


# --- statements and text ---------------------------------------------------------------------


def _header_parts(node: ast.stmt) -> list[ast.AST]:
    """The expressions the statement evaluates on its own line(s)."""
    if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
        return []
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target, node.iter]
    if isinstance(node, (ast.While, ast.If)):
        return [node.test]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [part for item in node.items for part in (item.context_expr, item.optional_vars) if part]
    if isinstance(node, ast.Match):
        return [node.subject]
    if isinstance(node, _TRY):
        return []
    return [node]


def _origin(name: str, node: ast.AST, lines: list[str], kind: str) -> Origin:
    return Origin(name, node.lineno, header_end(node), _code(node, lines), kind)


def _code(node: ast.AST, lines: list[str]) -> str:
    text = " ".join(line.strip() for line in lines[node.lineno - 1:header_end(node)])
    return cut(text, MAX_CODE)


def _segment(node: ast.AST, lines: list[str]) -> str:
    return ast.get_source_segment("\n".join(lines), node) or ""


def _returns_or_yields(node: ast.stmt) -> bool:
    if isinstance(node, ast.Return):
        return True
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for part in _header_parts(node) for n in _walk_same(part))


def _walk_same(node: ast.AST):
    """ast.walk without entering nested scopes."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _walk_in_order(node: ast.AST):
    """Nodes in source order (depth first, children left to right), not into lambdas."""
    yield node
    if isinstance(node, ast.Lambda):
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk_in_order(child)


def _is_chain(node: ast.AST) -> bool:
    """`name` or `name.attr.attr`."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _call_to(tree: ast.AST | None, callee: str) -> ast.Call | None:
    if tree is None:
        return None
    calls = sorted((n for n in module_nodes(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    last = callee.rsplit(".", 1)[-1]
    exact = [c for c in calls if ast.unparse(c.func) == callee]
    named = [c for c in calls if _last_name(c.func) == last]
    return (exact or named or [None])[0]


def _last_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


