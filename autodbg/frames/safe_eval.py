"""Evaluation of expressions in a crashed frame, and guarded, bounded, redacted reprs.

Expressions are not handed to `eval`: a small interpreter walks an allow-listed subset of the
AST (no assignments, imports, lambdas), so nothing outside that subset can run. What else it
allows depends on where it runs (`set_mode`):

  probe   in a sandboxed fork (autodbg.probe): the program's own functions and methods may be
          called, comparisons and iteration may run its dunders; their effects die with the
          probe, whose deadline the parent enforces.
  inline  in the crashed process itself (no fork here, or AUTODBG_PROBE=0): calls only to pure
          built-ins and pure methods of built-in types; what may still run user code (a
          property, a `__repr__`) runs under a time limit with its exceptions caught.
  plain   in a probe, touching no program code at all: the fallback when a probe with user
          code did not come back.
"""

from __future__ import annotations

import ast
import builtins
import operator
import signal
import sys
import threading
import types
from contextlib import contextmanager

from autodbg.redact import is_secret_name, redacted

MAX_REPR = 300  # characters of one value
MAX_ITEMS = 12  # container items shown before "..."
MAX_DEPTH = 3
PRETTY_WIDTH = 80  # columns of `pp`, pprint's default
MAX_SIZE = 1_000_000  # longest sequence an expression may build or walk
MAX_EXPRESSION = 2000  # characters of one expression
MAX_NESTING = 100  # levels of one expression's syntax tree
TIME_LIMIT = 1.0  # seconds for one evaluation or repr that may run user code


class Refused(Exception):
    """The expression is outside the safe subset; the message says why, in one line."""


class TimeLimit(BaseException):
    """Raised inside user code that ran too long; BaseException so `except Exception` in a
    user's __repr__ cannot swallow it."""


def _plain_attributes(value: object):
    """(name, value) pairs of an object's instance dict or a dict's string keys, one level."""
    try:
        if isinstance(value, dict):
            items = [(k, v) for k, v in list(value.items())[:200] if isinstance(k, str)]
        elif isinstance(value, (list, tuple, set, frozenset)):
            items = [("", v) for v in list(value)[:200]]
        else:
            d = object.__getattribute__(value, "__dict__")
            items = list(d.items())[:200] if isinstance(d, dict) else []
    except Exception:
        return []
    return items


# --- where this runs ------------------------------------------------------------------------

_mode = "inline"


def set_mode(mode: str) -> None:
    """probe | inline | plain (see the module docstring); a probe sets it once, for itself."""
    global _mode
    if mode not in ("probe", "inline", "plain"):
        raise ValueError(f"no evaluation mode {mode!r}")
    _mode = mode


def in_probe() -> bool:
    """Program code may run here, and its effects die with this process."""
    return _mode == "probe"


# --- time limit ------------------------------------------------------------------------------

@contextmanager
def time_limit(seconds: float):
    """Interrupt the block after SECONDS by raising TimeLimit (main thread only; elsewhere the
    block runs unbounded, so callers there must not run user code)."""
    if _mode != "inline" or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer"):
        yield  # in a probe the parent's deadline bounds everything (and the sandbox refuses timers)
        return

    active = True
    fired = 0

    def at_every_line(frame, event, arg):
        if active and event == "line":
            raise TimeLimit
        return at_every_line if active else None

    def on_alarm(signum, frame):
        nonlocal fired
        if not active:
            return
        fired += 1
        if fired > 1:
            # The last one was swallowed (a bare `except:` in a retry loop): also raise at the next
            # line run, which is inside that except block, so this time it gets out.
            sys.settrace(at_every_line)
            while frame is not None:
                frame.f_trace = at_every_line
                frame = frame.f_back
        raise TimeLimit

    previous = signal.signal(signal.SIGALRM, on_alarm)
    previous_trace = sys.gettrace()
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)  # and every 50 ms after, until the block ends
    try:
        yield
    finally:
        active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if fired > 1:
            sys.settrace(previous_trace)


def can_run_user_code() -> bool:
    """User code may only run where its effects die (a probe) or a time limit can stop it."""
    if _mode != "inline":
        return _mode == "probe"
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


# --- repr ------------------------------------------------------------------------------------

def cut(text: str, limit: int = MAX_REPR) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"...[cut, {len(text)} chars]"


def safe_repr(value: object, limit: int = MAX_REPR) -> str:
    """A bounded repr that never raises and never hangs."""
    text = _repr(value, MAX_DEPTH)
    return text if len(text) <= limit + _MARKER_ROOM else cut(text, limit)


_MARKER_ROOM = 40  # inner reprs add their own "...[N long]" marker past the limit


_SIMPLE = (int, float, complex, bool, type(None), range, type, types.BuiltinFunctionType)


def _repr(value: object, depth: int) -> str:
    if isinstance(value, _SIMPLE) and type(value).__repr__ in {t.__repr__ for t in _SIMPLE}:
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 2000:
            return f"<int with {value.bit_length()} bits>"
        return repr(value)
    if type(value) in (str, bytes, bytearray):
        shown = repr(value[:MAX_REPR])
        return shown if len(value) <= MAX_REPR else shown + f"...[{len(value)} long]"
    if _is_container(value):
        return _repr_container(value, depth)
    if isinstance(value, (types.FunctionType, types.MethodType)):
        return f"<function {getattr(value, '__qualname__', '?')}>"
    if isinstance(value, types.ModuleType):
        return f"<module {value.__name__}>"
    if type(value).__repr__ is object.__repr__:
        return _repr_plain_object(value, depth)
    return _guarded_user_repr(value)


def _repr_container(value, depth: int) -> str:
    parts = _container_parts(value, depth)
    if isinstance(parts, str):
        return parts
    opening, entries, closing = parts
    return opening + ", ".join(prefix + _shown(inner, depth - 1) for prefix, inner in entries) + closing


class _Verbatim(str):
    """An entry of a container shown as this text, not by its repr: a redacted value, `...N more`."""


def _shown(value, depth: int) -> str:
    return str.__str__(value) if type(value) is _Verbatim else _repr(value, depth)


def _container_parts(value, depth: int) -> "str | tuple[str, list[tuple[str, object]], str]":
    """VALUE's opening bracket, its entries (a dict's key text, then the value to show), and its
    closing bracket; a str when VALUE is shown without its entries."""
    # A dict subclass may override items() and __len__: read it through dict's own methods.
    size = dict.__len__(value) if isinstance(value, dict) else len(value)
    if depth <= 0:
        return f"<{type(value).__name__} of {size}>"
    more = [("", _Verbatim(f"...{size - MAX_ITEMS} more"))] if size > MAX_ITEMS else []
    if isinstance(value, dict):
        entries = [(_repr(k, depth - 1) + ": ", _Verbatim(redacted(v)) if isinstance(k, str) and is_secret_name(k) else v)
                   for _, (k, v) in zip(range(MAX_ITEMS), dict.items(value))]
        return ("{" if type(value) is dict else f"{type(value).__name__}({{"), entries + more, \
            ("}" if type(value) is dict else "})")
    entries = [("", v) for _, v in zip(range(MAX_ITEMS), value)] + more
    if isinstance(value, list):
        return "[", entries, "]"
    if isinstance(value, tuple):
        return "(", entries, ",)" if len(value) == 1 else ")"
    if not value:
        return f"{type(value).__name__}()"
    return ("{", entries, "}") if type(value) is set else (f"{type(value).__name__}({{", entries, "})")


def safe_pretty(value: object, width: int = PRETTY_WIDTH) -> str:
    """safe_repr laid out as pprint lays out a repr: a container too wide for WIDTH columns gets
    one entry a line, under its opening bracket."""
    return _pretty(value, MAX_DEPTH, 0, width)


def _pretty(value, depth: int, column: int, width: int) -> str:
    flat = _shown(value, depth)
    if column + len(flat) <= width or not _is_container(value):
        return flat
    parts = _container_parts(value, depth)
    if isinstance(parts, str):
        return parts
    opening, entries, closing = parts
    inner = column + len(opening)
    lines = [prefix + _pretty(entry, depth - 1, inner + len(prefix), width) for prefix, entry in entries]
    return opening + (",\n" + " " * inner).join(lines) + closing


def _is_container(value) -> bool:
    return type(value) in (list, tuple, set, frozenset, dict) or isinstance(value, dict)


def _repr_plain_object(value, depth: int) -> str:
    """Objects without their own __repr__: show their fields, which is what a debugger wants."""
    name = type(value).__name__
    fields = _plain_attributes(value)
    if not fields or depth <= 0:
        return f"<{name} object>"
    shown = []
    for attr, inner in fields[:MAX_ITEMS]:
        shown.append(f"{attr}={redacted(inner) if is_secret_name(attr) else _repr(inner, depth - 1)}")
    if len(fields) > MAX_ITEMS:
        shown.append("...")
    return f"{name}({', '.join(shown)})"


def _guarded_user_repr(value) -> str:
    if not can_run_user_code():
        return f"<{type(value).__name__} object>"
    try:
        with time_limit(TIME_LIMIT):
            text = repr(value)
            if not isinstance(text, str):
                return f"<repr failed: __repr__ returned {type(text).__name__}>"
            return cut(text)
    except TimeLimit:
        return f"<repr timed out after {TIME_LIMIT:g}s>"
    except BaseException as exc:  # a user's __repr__ may raise anything, even SystemExit
        return f"<repr failed: {type(exc).__name__}: {cut(str(exc), 80)}>"


# --- evaluation ------------------------------------------------------------------------------

SAFE_BUILTINS = {
    name: getattr(builtins, name)
    for name in (
        "abs all any ascii bin bool callable chr dict divmod enumerate float frozenset hasattr "
        "hex int isinstance issubclass len list max min oct ord range repr reversed round set "
        "sorted str sum tuple type zip getattr vars id"
    ).split()
}

# More built-ins a probe may call: they change state or run code, which dies with the probe.
PROBE_BUILTINS = frozenset({"next", "iter", "hash", "format", "bytes", "bytearray", "map", "filter"})

_PURE_METHODS: dict[type, set[str]] = {
    str: set(
        "capitalize casefold center count encode endswith expandtabs find index isalnum isalpha "
        "isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle "
        "isupper join ljust lower lstrip partition removeprefix removesuffix replace rfind rindex "
        "rjust rpartition rsplit rstrip split splitlines startswith strip swapcase title upper zfill".split()
    ),
    bytes: set("count decode endswith find hex index isdigit lower rfind split startswith strip upper".split()),
    list: {"count", "index", "copy"},
    tuple: {"count", "index"},
    dict: {"get", "keys", "values", "items", "copy"},
    set: set("copy difference intersection isdisjoint issubset issuperset symmetric_difference union".split()),
    frozenset: set("copy difference intersection isdisjoint issubset issuperset symmetric_difference union".split()),
    int: {"bit_length", "conjugate"},
    float: {"is_integer", "hex", "conjugate"},
}
_PURE_METHODS[bytearray] = _PURE_METHODS[bytes]

# Dunder attributes that only describe an object; everything else starting with "__" is refused.
READABLE_DUNDERS = {"__name__", "__qualname__", "__module__", "__doc__", "__class__", "__dict__", "__file__"}

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_, ast.BitXor: operator.xor, ast.MatMult: operator.matmul,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_, ast.Invert: operator.invert}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_REFUSED = {
    ast.Lambda: "lambda is not allowed", ast.NamedExpr: "assignment (:=) is not allowed",
    ast.Await: "await is not allowed", ast.Yield: "yield is not allowed", ast.YieldFrom: "yield is not allowed",
    ast.Starred: "* unpacking is not allowed",
}


def parse_expression(text: str) -> ast.Expression:
    """Parse TEXT as one expression, or raise Refused with a one-line reason."""
    if len(text) > MAX_EXPRESSION:
        raise Refused(f"expression longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
        _depth(tree)
    except RecursionError:
        raise Refused("expression too deeply nested") from None
    except SyntaxError as exc:
        try:
            ast.parse(text.strip(), mode="exec")
        except SyntaxError:
            raise Refused(f"not a valid expression: {exc.msg}") from None
        raise Refused("only expressions are allowed (no statements, assignments, imports or del)") from None
    return tree


def _depth(node: ast.AST, level: int = 0) -> None:
    """Refuse nesting the evaluator's own recursion could not walk."""
    if level > MAX_NESTING:
        raise Refused("expression too deeply nested")
    for child in ast.iter_child_nodes(node):
        _depth(child, level + 1)


def check_expression(text: str) -> None:
    """Refuse TEXT now if it contains a form the evaluator would refuse whatever the values
    (what calls may do depends on the values, so calls are checked when they run)."""
    tree = parse_expression(text)
    for node in ast.walk(tree):
        kind = type(node)
        if kind in _REFUSED:
            raise Refused(_REFUSED[kind])
        if isinstance(node, ast.expr) and not hasattr(Evaluator, "_" + kind.__name__):
            raise Refused(f"{kind.__name__} expressions are not allowed")


class Evaluator:
    """Evaluates an allow-listed expression against a frame's names."""

    def __init__(self, local_names: dict, global_names: dict) -> None:
        self.locals = local_names
        self.globals = global_names
        self.own_iterators: set[int] = set()  # ids of iterators this evaluation made itself

    def evaluate(self, text: str) -> object:
        tree = parse_expression(text)
        if _mode != "inline" or not can_run_user_code():
            return self._eval(tree.body, {})
        try:
            with time_limit(TIME_LIMIT):
                return self._eval(tree.body, {})
        except TimeLimit:
            raise Refused(f"evaluation took longer than {TIME_LIMIT:g}s") from None

    def lookup(self, name: str, scope: dict) -> object:
        for namespace in (scope, self.locals, self.globals):
            if name in namespace:
                return namespace[name]
        builtins_ns = self.globals.get("__builtins__", builtins)
        builtins_ns = builtins_ns if isinstance(builtins_ns, dict) else vars(builtins_ns)
        if name in builtins_ns:
            return builtins_ns[name]
        raise NameError(f"name {name!r} is not defined")

    def _eval(self, node: ast.AST, scope: dict) -> object:
        kind = type(node)
        if kind in _REFUSED:
            raise Refused(_REFUSED[kind])
        method = getattr(self, "_" + kind.__name__, None)
        if method is None:
            raise Refused(f"{kind.__name__} expressions are not allowed")
        return method(node, scope)

    def _Constant(self, node, scope):
        return node.value

    def _Name(self, node, scope):
        if node.id.startswith("__") and node.id != "__name__":
            raise Refused(f"name {node.id!r} is not allowed")
        return self.lookup(node.id, scope)

    def _Attribute(self, node, scope):
        check_attribute_name(node.attr)
        return getattr(self._eval(node.value, scope), node.attr)

    def _Subscript(self, node, scope):
        value = self._eval(node.value, scope)
        key = self._eval(node.slice, scope)
        plain(value, depth=0)  # a user __getitem__ (or a dict's keys' __eq__) is program code
        plain(key)
        if isinstance(value, dict) and hasattr(type(value), "__missing__") and key not in value:
            raise Refused(f"reading the missing key {key!r} of a {type(value).__name__} would insert it")
        return value[key]

    def _Slice(self, node, scope):
        part = lambda n: None if n is None else self._eval(n, scope)  # noqa: E731
        return slice(part(node.lower), part(node.upper), part(node.step))

    def _Tuple(self, node, scope):
        return tuple(self._eval(e, scope) for e in node.elts)

    def _List(self, node, scope):
        return [self._eval(e, scope) for e in node.elts]

    def _Set(self, node, scope):
        return {self._eval(e, scope) for e in node.elts}

    def _Dict(self, node, scope):
        if any(k is None for k in node.keys):
            raise Refused("** unpacking is not allowed")
        return {self._eval(k, scope): self._eval(v, scope) for k, v in zip(node.keys, node.values)}

    def _BinOp(self, node, scope):
        left, right = self._eval(node.left, scope), self._eval(node.right, scope)
        plain(left), plain(right)
        _check_size_of_op(type(node.op), left, right)
        return bounded(_BINOPS[type(node.op)](left, right))

    def _UnaryOp(self, node, scope):
        return _UNARY[type(node.op)](plain(self._eval(node.operand, scope)))

    def _BoolOp(self, node, scope):
        result = None
        for value_node in node.values:
            result = plain(self._eval(value_node, scope), depth=0)  # its truth may be a user __bool__
            if isinstance(node.op, ast.And) and not result:
                return result
            if isinstance(node.op, ast.Or) and result:
                return result
        return result

    def _Compare(self, node, scope):
        left = self._eval(node.left, scope)
        for op, right_node in zip(node.ops, node.comparators):
            right = self._eval(right_node, scope)
            if not isinstance(op, (ast.Is, ast.IsNot)):
                plain(left), plain(right)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def _IfExp(self, node, scope):
        return self._eval(node.body if plain(self._eval(node.test, scope), depth=0) else node.orelse, scope)

    def _JoinedStr(self, node, scope):
        return "".join(str(self._eval(v, scope)) for v in node.values)

    def _FormattedValue(self, node, scope):
        if node.format_spec is not None:
            raise Refused("format specs in f-strings are not allowed")
        value = plain(self._eval(node.value, scope))
        return {115: str, 114: repr, 97: ascii}.get(node.conversion, str)(value)

    def _Call(self, node, scope):
        func = self._callable(node.func, scope)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise Refused("* unpacking is not allowed")
            args.append(self._eval(a, scope))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise Refused("** unpacking is not allowed")
            kwargs[kw.arg] = self._eval(kw.value, scope)
        if not in_probe():
            _check_call(func, args, kwargs, self.own_iterators)
            name = getattr(func, "__name__", "")
            for i, value in enumerate([*args, *kwargs.values()]):
                if id(value) in self.own_iterators or name in _LOOKS_ONLY or (name in ("getattr", "hasattr") and i == 0):
                    continue
                plain(value, depth=0 if name in ("len", "bool") else 3)  # len(x), sorted(x), str(x) run x's dunders
        _check_size_of_call(func, args)
        result = bounded(func(*args, **kwargs))
        if isinstance(result, _MADE_ITERATORS):
            self.own_iterators.add(id(result))
        return result

    def _callable(self, node: ast.AST, scope: dict):
        if in_probe():
            return self._program_callable(node, scope)
        if isinstance(node, ast.Name):
            func = self.lookup(node.id, scope)
            if node.id in SAFE_BUILTINS and func is SAFE_BUILTINS[node.id]:
                return func
            raise Refused(f"calling {node.id}() is not allowed (only pure built-ins like len, sorted, isinstance)")
        if isinstance(node, ast.Attribute):
            check_attribute_name(node.attr)
            owner = self._eval(node.value, scope)
            allowed = _PURE_METHODS.get(type(owner), set())
            if node.attr in allowed:
                return getattr(owner, node.attr)
            raise Refused(f"calling .{node.attr}() on {type(owner).__name__} is not allowed (only pure methods of built-in types)")
        raise Refused("only calls to named built-ins and methods are allowed")

    def _program_callable(self, node: ast.AST, scope: dict):
        """In a probe: the program's functions, methods and classes, methods of built-in values,
        and the pure built-ins; not the built-ins that would widen the language (eval, open,
        __import__, setattr...)."""
        func = self._eval(node, scope)
        if isinstance(func, (types.BuiltinFunctionType, type)) and getattr(func, "__self__", None) in (None, builtins):
            name = getattr(func, "__name__", "?")
            allowed = SAFE_BUILTINS.get(name) is func or getattr(builtins, name, None) is func and name in PROBE_BUILTINS
            if not allowed and not (isinstance(func, type) and func.__module__ != "builtins"):
                raise Refused(f"calling {name}() is not allowed")
        return func

    def _comprehension(self, node, scope: dict, make):
        def walk(generators, inner_scope):
            if not generators:
                yield make(inner_scope)
                return
            gen, rest = generators[0], generators[1:]
            if gen.is_async:
                raise Refused("async comprehensions are not allowed")
            iterable = self._eval(gen.iter, inner_scope)
            if id(iterable) not in self.own_iterators and not in_probe():
                _check_iterable(iterable)
            for item in iterable:
                bound = dict(inner_scope)
                _bind(gen.target, item, bound)
                if all(self._eval(cond, bound) for cond in gen.ifs):
                    yield from walk(rest, bound)

        results = []
        for value in walk(node.generators, dict(scope)):
            results.append(value)
            if len(results) > MAX_SIZE:
                raise Refused("comprehension result too large")
        return results

    def _ListComp(self, node, scope):
        return self._comprehension(node, scope, lambda s: self._eval(node.elt, s))

    def _SetComp(self, node, scope):
        return set(self._comprehension(node, scope, lambda s: self._eval(node.elt, s)))

    def _GeneratorExp(self, node, scope):
        # Evaluated eagerly into a list: a lazy generator could outlive the time limit.
        return self._comprehension(node, scope, lambda s: self._eval(node.elt, s))

    def _DictComp(self, node, scope):
        pairs = self._comprehension(node, scope, lambda s: (self._eval(node.key, s), self._eval(node.value, s)))
        return dict(pairs)


# Built-ins that only look at an object's type or identity (or read attributes, as `x.attr` does).
_LOOKS_ONLY = frozenset({"isinstance", "issubclass", "type", "id", "callable", "vars"})
# Exact types whose operations run no program code (a subclass may override any of them).
_PLAIN = frozenset({int, float, complex, bool, type(None), str, bytes, bytearray, range, slice, tuple, list, dict,
                    set, frozenset, type({}.keys()), type({}.values()), type({}.items()), type(Ellipsis)})


def plain(value, depth: int = 3):
    """VALUE, if operating on it runs no program code: in a probe anything is (the effects die
    there); in the crashed process itself only built-in values, and containers of them down to
    DEPTH (a list compares its items with their own __eq__). Refused otherwise."""
    if _mode == "probe":
        return value
    todo, budget = [(value, depth)], 10_000
    while todo:
        item, level = todo.pop()
        if type(item) not in _PLAIN:
            raise Refused(f"{type(item).__name__} values can run the program's own code here (no probe): "
                          "look at their attributes instead")
        if level > 0 and type(item) in (tuple, list, set, frozenset):
            budget -= len(item)
            todo += [(v, level - 1) for v in item]
        elif level > 0 and type(item) is dict:
            budget -= len(item)
            todo += [(v, level - 1) for pair in dict.items(item) for v in pair]
        if budget < 0:
            raise Refused("too large to check here (no probe)")
    return value


def check_attribute_name(name: str) -> None:
    if name.startswith("__") and name not in READABLE_DUNDERS:
        raise Refused(f"attribute {name!r} is not allowed")


def _bind(target: ast.AST, value, scope: dict) -> None:
    if isinstance(target, ast.Name):
        scope[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)):
        values = list(value)
        if len(values) != len(target.elts):
            raise ValueError("cannot unpack")
        for t, v in zip(target.elts, values):
            _bind(t, v, scope)
    else:
        raise Refused("comprehension targets must be plain names")


# Types a comprehension or a built-in may walk: walking anything else would run user code
# (__iter__) or advance a user's generator.
_ITERABLE_TYPES = (str, bytes, bytearray, list, tuple, dict, set, frozenset, range,
                   type({}.keys()), type({}.values()), type({}.items()))


def _check_iterable(value) -> None:
    if isinstance(value, (types.GeneratorType, *_MADE_ITERATORS, type(iter([])), type(iter(())), type(map(int, ())))):
        raise Refused("consuming an iterator or generator is not allowed (it would change the program's state)")
    if not isinstance(value, _ITERABLE_TYPES):
        raise Refused(f"iterating over {type(value).__name__} is not allowed (it could run code or consume a generator)")
    if len(value) > MAX_SIZE:
        raise Refused(f"{type(value).__name__} of {len(value)} items is too large to walk")


# Built-ins and methods that walk their arguments: they get only containers we know.
_CONSUMING = {"list", "tuple", "set", "frozenset", "dict", "sorted", "sum", "min", "max", "any", "all",
              "enumerate", "zip", "reversed", "join", "union", "intersection", "difference",
              "symmetric_difference", "issubset", "issuperset", "isdisjoint"}
_WIDTH_METHODS = {"center", "ljust", "rjust", "zfill", "expandtabs"}


_MADE_ITERATORS = (enumerate, zip, reversed, type(reversed([])))


def _check_call(func, args: list, kwargs: dict, own_iterators: set[int]) -> None:
    name = getattr(func, "__name__", "")
    for i, value in enumerate([*args, *kwargs.values()]):
        type_check = name in ("isinstance", "issubclass") and i == 1
        if callable(value) and not type_check:
            raise Refused(f"passing a callable to {name}() is not allowed (it would run code)")
        if name in _CONSUMING and not isinstance(value, (int, float, complex, bool, type(None))) \
                and id(value) not in own_iterators:
            _check_iterable(value)
    if name in ("getattr", "hasattr"):
        if len(args) < 2 or not isinstance(args[1], str):
            raise Refused(f"{name} needs a constant attribute name")
        check_attribute_name(args[1])
    if name in ("type", "vars") and len(args) != 1:
        raise Refused(f"{name}() takes one argument here")
    if name == "sum" and len(args) > 1 and not isinstance(args[1], (int, float, complex)):
        raise Refused("sum() adds numbers only here")


_SEQUENCES = (str, bytes, bytearray, memoryview, list, tuple)


def _check_size_of_call(func, args: list) -> None:
    """Refuse, before it runs, a call to a built-in method whose result would be too large."""
    name = getattr(func, "__name__", "")
    owner = getattr(func, "__self__", None)
    if name in _WIDTH_METHODS and any(isinstance(a, int) and a > MAX_SIZE for a in args):
        raise Refused("result too large")
    if not isinstance(owner, (str, bytes, bytearray)):
        return
    if name == "replace" and len(args) >= 2 and isinstance(args[0], type(owner)) and isinstance(args[1], type(owner)):
        grows = owner.count(args[0]) * max(0, len(args[1]) - len(args[0])) if args[0] else len(owner) * len(args[1])
        if len(owner) + grows > MAX_SIZE:
            raise Refused("result too large")
    if name == "join" and args and isinstance(args[0], (list, tuple, set, frozenset, dict)):
        items = list(args[0])
        total = len(owner) * len(items) + sum(len(item) for item in items if isinstance(item, (str, bytes, bytearray)))
        if total > MAX_SIZE:
            raise Refused("result too large")


def _check_size_of_op(op: type, left, right) -> None:
    if op is ast.Mod and isinstance(left, (str, bytes, bytearray)):
        raise Refused("%-formatting is not allowed (widths can allocate without bound)")
    if op is ast.Pow and isinstance(right, int) and abs(right) > 10_000:
        raise Refused("exponent too large")
    if op is ast.LShift and isinstance(right, int) and right > 100_000:
        raise Refused("shift too large")
    if op is ast.Mult:
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, _SEQUENCES) and isinstance(n, int) and len(seq) * n > MAX_SIZE:
                raise Refused("result too large")
    if op is ast.Add and isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES) \
            and len(left) + len(right) > MAX_SIZE:
        raise Refused("result too large")


def bounded(value):
    if isinstance(value, (*_SEQUENCES, set, frozenset, dict)) and len(value) > MAX_SIZE:
        raise Refused("result too large")
    return value
