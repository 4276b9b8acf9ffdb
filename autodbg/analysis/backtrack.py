"""Follow the failing line's values back through the program's source: the provenance leads.

Static, on source text only. For what the failing statement reads (and, for a line inside an
`if`, what its test read): each name's reaching definitions; for a parameter, the argument at
the caller's call site (the next frame out) and what that argument reads; for the result of a
call of a function defined in the program's files, that function's return lines; for an
attribute, where the program's classes set it; for a definition, the tests of the `if`s around
it. Then, up to MAX_DEPTH values further back, the same for what each definition and return
line read. Passing a value along (a parameter, `x = f(...)`, `return y`) costs no depth;
computing it from other values does.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from autodbg.analysis import provenance
from autodbg.analysis.provenance import Origin

from autodbg.analysis.source import Function, functions, statement_text
from autodbg.frames.safe_eval import cut

MAX_CALLEES = 3  # functions of the same name followed for one call


@dataclass(frozen=True)
class Site:
    """One frame of the crash, innermost first: FILE and LINE, and the `def` line of its
    function (None at module level)."""

    file: str
    line: int
    function_line: int | None


@dataclass(frozen=True)
class Lead:
    """A line that may have made a value the failing line used. DEPTH 0: it made a value the
    failing line read (or passed it along); 1: a value that one was computed from; and so on.
    VIA: the name, attribute or call followed to get here."""

    file: str
    origin: Origin
    depth: int
    via: str


@dataclass(frozen=True)
class _Reads:
    """A statement (or an argument expression: EXPRESSION) whose reads are to be explained."""

    site: int | None  # index in the stack, when the statement is a frame's line
    file: str
    function_line: int | None
    line: int
    depth: int
    expression: str | None = None


_INLINE_SCOPES = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>"}


def site(source: str, file: str, line: int, function: str) -> Site:
    """The Site of a frame running FUNCTION (its code name) at LINE. A comprehension's or
    lambda's frame counts as its enclosing function's: the analysis reads those inline."""
    if function == "<module>":
        return Site(file, line, None)
    if function in _INLINE_SCOPES:
        holding = [f for f in functions(source) if f.holds(line)]
        return Site(file, line, holding[-1].line if holding else None)
    return Site(file, line, provenance.function_line(source, line, function))


def backtrack(sites: list[Site], sources: dict[str, str], *, max_depth: int = 2,
              max_leads: int = 40) -> list[Lead]:
    """The leads for the crash whose user frames are SITES (innermost first), reading each
    file's text from SOURCES (path -> source; files missing there are not followed)."""
    sites = [s for i, s in enumerate(sites) if i == 0 or s != sites[i - 1]]  # a comprehension's frame
    if not sites or sites[0].file not in sources:
        return []
    return _Backtrack(sites, sources, max_depth, max_leads).run()


def _one_line(statement: str) -> str:
    """STATEMENT's text on one line, as an origin shows it."""
    return cut(" ".join(statement.split()), provenance.MAX_CODE)


class _Backtrack:
    def __init__(self, sites: list[Site], sources: dict[str, str], max_depth: int, max_leads: int):
        self.sites = sites
        self.sources = sources
        self.max_depth = max_depth
        self.max_leads = max_leads
        self.functions = {file: functions(text) for file, text in sources.items()}
        self.function_names = {f.name for functions in self.functions.values() for f in functions}
        self.leads: dict[tuple, Lead] = {}
        self.queue: deque[_Reads] = deque()
        self.done: set[tuple] = set()

    def run(self) -> list[Lead]:
        crash = self.sites[0]
        function = self._function(crash.file, crash.function_line)
        guards = provenance.guard_tests(self.sources[crash.file], crash.line)
        for line in [crash.line, *(g for g in guards if function is None or function.holds(g))]:
            self.queue.append(_Reads(0, crash.file, crash.function_line, line, 0))
        while self.queue and len(self.leads) < self.max_leads:
            self._explain(self.queue.popleft())
        return sorted(self.leads.values(), key=lambda lead: lead.depth)

    def _explain(self, item: _Reads) -> None:
        key = (item.file, item.function_line, item.line, item.expression)
        if key in self.done:
            return
        self.done.add(key)
        source = self.sources[item.file]
        reads = provenance.line_reads(item.expression, 1) if item.expression else provenance.line_reads(source, item.line)
        found = provenance.reaching_definitions(source, item.function_line, item.line, reads.names)
        for name, origins in found.items():
            for origin in origins:
                self._follow_definition(item, name, origin)
        for origin in provenance.discarded_values(source, item.function_line, reads.names):
            self._add(item.file, origin, item.depth, origin.name)
        for attribute in reads.attributes:
            self._follow_attribute(item, attribute)
        for callee in reads.calls:
            self._follow_call(item, callee)

    def _follow_definition(self, item: _Reads, name: str, origin: Origin) -> None:
        self._add(item.file, origin, item.depth, name)
        if origin.kind == "param":
            self._follow_parameter(item, name)
        elif origin.kind not in ("unbound", "deleted", "import", "def", "class"):
            depth = item.depth if self._passes_along(item.file, origin.line) else item.depth + 1
            if depth <= self.max_depth:
                self.queue.append(_Reads(item.site, item.file, item.function_line, origin.line, depth))
                self._follow_guards(item, name, origin.line)

    def _follow_guards(self, item: _Reads, name: str, line: int) -> None:
        """The tests of the `if`s and `while`s around a definition at LINE, which decide whether it
        ran (`if item.price < min_price: prices.append(...)`), and what they read."""
        source = self.sources[item.file]
        function = self._function(item.file, item.function_line)
        for test in provenance.guard_tests(source, line):
            if function is None or function.holds(test):
                code = _one_line(statement_text(source, test) or "")
                self._add(item.file, Origin(name, test, test, code, "guard"), item.depth + 1, name)
                self.queue.append(_Reads(item.site, item.file, item.function_line, test, item.depth + 1))

    def _follow_parameter(self, item: _Reads, name: str) -> None:
        """Into the caller: its call site, and what the argument expression there reads."""
        if item.site is None or item.site + 1 >= len(self.sites):
            return
        function = self._function(item.file, item.function_line)
        caller = self.sites[item.site + 1]
        if function is None or caller.file not in self.sources or name not in function.params:
            return
        statement = statement_text(self.sources[caller.file], caller.line)
        if statement is None:
            return
        index = function.params.index(name)
        argument = provenance.argument_expression(statement, function.name, name, index, method=function.is_method)
        code = _one_line(statement)
        self._add(caller.file, Origin(name, caller.line, caller.line, code, "argument"), item.depth, name)
        if argument is not None:
            self.queue.appendleft(_Reads(item.site + 1, caller.file, caller.function_line, caller.line,
                                         item.depth, expression=argument))

    def _follow_call(self, item: _Reads, callee: str) -> None:
        """A call's result: the return lines of the program's functions of that name."""
        name = callee.rsplit(".", 1)[-1]
        candidates = [(file, f) for file, fs in self.functions.items() for f in fs
                      if f.name == name and ("." in callee or not f.is_method)]
        for file, function in candidates[:MAX_CALLEES]:
            for line, end_line, code in provenance.return_lines(self.sources[file], function.line):
                self._add(file, Origin(callee, line, end_line, code, "return"), item.depth, callee + "()")
                depth = item.depth if self._passes_along(file, line) else item.depth + 1
                if depth <= self.max_depth:
                    self.queue.append(_Reads(None, file, function.line, line, depth))

    def _follow_attribute(self, item: _Reads, attribute: str) -> None:
        """Where the program sets the attribute, and what those lines (and the tests of the
        `if`s around them, which decide whether they ran) read."""
        name = attribute.rsplit(".", 1)[-1]
        for file, source in self.sources.items():
            for origin in provenance.attribute_definitions(source, name):
                self._add(file, origin, item.depth, attribute)
                if item.depth >= self.max_depth:
                    continue
                holding = [f for f in self.functions[file] if f.holds(origin.line)]
                function_line = holding[-1].line if holding else None
                for line in [origin.line, *provenance.guard_tests(source, origin.line)]:
                    if not holding or holding[-1].holds(line):
                        self.queue.append(_Reads(None, file, function_line, line, item.depth + 1))

    def _passes_along(self, file: str, line: int) -> bool:
        """Whether LINE of FILE passes a value along: a name, or what one of the program's own
        functions returned (a built-in's result, `len(x)`, is computed)."""
        value = provenance.passed_value(self.sources[file], line)
        return value == "" or value is not None and value.rsplit(".", 1)[-1] in self.function_names

    def _function(self, file: str, function_line: int | None) -> Function | None:
        return next((f for f in self.functions.get(file, []) if f.line == function_line), None)

    def _add(self, file: str, origin: Origin, depth: int, via: str) -> None:
        key = (file, origin.line, origin.end_line, origin.kind)
        if key not in self.leads and len(self.leads) < self.max_leads:
            self.leads[key] = Lead(file, origin, depth, via)
