"""Static provenance: reaching definitions, call-site arguments, return lines, and the backtrack
from a real crash's traceback to the line that made the bad value."""

from __future__ import annotations

import re
import textwrap

from autodbg.analysis.backtrack import backtrack, site
from autodbg.analysis.provenance import argument_expression, attribute_definitions, line_reads, origin_text, reaching_definitions, return_lines
from autodbg.analysis.source import function_head
from conftest import run_py


def program(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def line_of(source: str, fragment: str, nth: int = 0) -> int:
    """The 1-based number of the NTH line containing FRAGMENT."""
    return [i for i, line in enumerate(source.splitlines(), 1) if fragment in line][nth]


def lines_kinds(origins) -> list[tuple[int, str]]:
    return [(o.line, o.kind) for o in origins]


def test_a_functions_head_is_its_signature_and_docstring_at_most_four_lines():
    source = program('''
        LIMIT = 3


        @cached
        def nights(first,
                   last):
            """Every night from FIRST to LAST,
            both included."""
            span = last - first

            def inner(day):
                return day + 1
            return [inner(d) for d in range(span)]


        def long(a,
                 b,
                 c):
            """One
            two."""
            return a
    ''')
    assert function_head(source, line_of(source, "span = last")) == (line_of(source, "def nights"), line_of(source, "both"))
    assert function_head(source, line_of(source, "return [inner")) == (line_of(source, "def nights"), line_of(source, "both"))
    assert function_head(source, line_of(source, "return day")) == (line_of(source, "def inner"),) * 2  # the innermost
    assert function_head(source, line_of(source, "return a")) == (line_of(source, "def long"), line_of(source, "One"))
    for in_the_head in ("def nights", "last):", "both included", "LIMIT"):  # none for the head itself, or the module
        assert function_head(source, line_of(source, in_the_head)) is None
    assert function_head("def broken(:\n    pass\n", 2) is None


def test_a_definition_later_in_a_loop_body_reaches_the_top_of_the_loop():
    source = program("""
        def total(items):
            subtotal = 0
            for item in items:
                print(subtotal)
                subtotal = subtotal + item
            return subtotal
    """)
    found = reaching_definitions(source, 1, line_of(source, "print(subtotal)"), ["subtotal", "item", "items"])
    assert lines_kinds(found["subtotal"]) == [(2, "assign"), (5, "assign")]
    assert lines_kinds(found["item"]) == [(3, "for")]
    assert lines_kinds(found["items"]) == [(1, "param")]


def test_an_early_return_cuts_the_path_and_break_leaves_the_loop():
    source = program("""
        def find(rows, key):
            result = None
            if not rows:
                result = "empty"
                return result
            for row in rows:
                if row == key:
                    result = row
                    break
                result = "not " + row
            else:
                result = "none"
            return result
    """)
    found = reaching_definitions(source, 1, line_of(source, "return result", 1), ["result"])
    # line 4's path returned; a loop that ends without break runs its else, which overwrites
    # lines 2 and 10: only the break's path (line 8) and the else (line 12) remain
    assert lines_kinds(found["result"]) == [(8, "assign"), (12, "assign")]


def test_augmented_assignments_keep_the_earlier_definitions_and_del_ends_them():
    source = program("""
        def f():
            count = 0
            count += 1
            count *= 3
            print(count)
            del count
            print(count)
    """)
    assert lines_kinds(reaching_definitions(source, 1, 5, ["count"])["count"]) == [
        (2, "assign"), (3, "augassign"), (4, "augassign")]
    assert lines_kinds(reaching_definitions(source, 1, 7, ["count"])["count"]) == [(6, "deleted")]


def test_a_value_assigned_only_in_the_try_body_is_unbound_through_the_except():
    source = program("""
        def load(path):
            try:
                with open(path) as f:
                    rates = f.read()
            except FileNotFoundError as exc:
                print(exc)
            return rates
    """)
    found = reaching_definitions(source, 1, 7, ["rates", "f"])
    assert lines_kinds(found["rates"]) == [(4, "assign"), (5, "unbound")]
    assert "except FileNotFoundError" in found["rates"][1].code
    assert origin_text(found["rates"][1]).startswith("← no value on the path through line 5")
    assert (3, "with") in lines_kinds(found["f"])


def test_an_unbound_local_names_the_binding_that_makes_it_local():
    source = program("""
        currency = "EUR"

        def summary(sales):
            print(currency)
            for currency, amount in sales:
                print(currency)
    """)
    found = reaching_definitions(source, 3, 4, ["currency"])["currency"]
    assert lines_kinds(found) == [(3, "unbound"), (5, "binding")]


def test_tuple_unpacking_starred_walrus_annotation_import_and_match():
    source = program("""
        import os.path as p
        def f(data):
            first, *rest = data
            size: int = len(rest)
            if (n := size * 2) > 3:
                pass
            match data:
                case [x, *_]:
                    y = x
                case _:
                    y = 0
            return first, rest, size, n, p, y
    """)
    found = reaching_definitions(source, 2, 12, ["first", "rest", "size", "n", "p", "y"])
    assert lines_kinds(found["first"]) == [(3, "assign")]
    assert lines_kinds(found["rest"]) == [(3, "assign")]
    assert lines_kinds(found["size"]) == [(4, "annassign")]
    assert lines_kinds(found["n"]) == [(5, "walrus")]
    assert lines_kinds(found["p"]) == [(1, "import")]
    assert lines_kinds(found["y"]) == [(9, "assign"), (11, "assign")]  # `case _` always matches


def test_comprehension_variables_inside_the_comprehension_and_mutations_of_a_container():
    source = program("""
        def prices(items):
            expensive = []
            for item in items:
                expensive.append(item)
            expensive[0] = None
            count = len([i for i in expensive
                         if i["price"] > 100])
            return count
    """)
    found = reaching_definitions(source, 1, 7, ["i", "expensive"])
    assert lines_kinds(found["i"]) == [(6, "comprehension")]
    assert lines_kinds(found["expensive"]) == [(2, "assign"), (4, "mutate"), (5, "mutate")]
    count = reaching_definitions(source, 1, 8, ["count"])["count"][0]
    assert origin_text(count) == '← lines 6-7: count = len([i for i in expensive if i["price"] > 100])'


def test_closures_methods_and_globals_come_from_the_enclosing_scopes():
    source = program("""
        LIMIT = 3

        class Stack:
            size = 10

            def push(self, item):
                def check():
                    return len(self.items) < LIMIT + bonus
                bonus = 1
                if check():
                    self.items.append(item)
    """)
    check = line_of(source, "def check")
    found = reaching_definitions(source, check, check + 1, ["self", "LIMIT", "bonus", "size"])
    assert lines_kinds(found["self"]) == [(6, "param"), (11, "mutate")]
    assert lines_kinds(found["LIMIT"]) == [(1, "assign")]
    assert lines_kinds(found["bonus"]) == [(9, "assign")]
    assert found["size"] == []  # a class body is not a scope for its methods
    assert lines_kinds(attribute_definitions(source, "items")) == [(11, "attribute")]
    assert lines_kinds(attribute_definitions(source, "size")) == [(4, "attribute")]


def test_recursion_and_generators_have_their_return_and_yield_lines():
    source = program("""
        def depth(node):
            if node is None:
                return 0
            return 1 + depth(node.child)

        def evens(items):
            for item in items:
                if item % 2 == 0:
                    yield item

        def merge(defaults, overrides):
            merged = dict(defaults)
            for key, value in overrides.items():
                merged[key] = value

        def forever():
            while True:
                pass
    """)
    assert [(a, c) for a, _, c in return_lines(source, 1)] == [(3, "return 0"), (4, "return 1 + depth(node.child)")]
    assert [(a, c) for a, _, c in return_lines(source, 6)] == [(9, "yield item")]
    assert return_lines(source, 11) == [(14, 14, "falls off the end: returns None")]
    assert return_lines(source, 16) == []


def test_argument_expression_keywords_methods_star_args_and_several_calls():
    line = "total = cart.add(price_of(sku), qty, note=text.strip()) + add(other)"
    assert argument_expression(line, "cart.add", "price", 1, method=True) == "price_of(sku)"
    assert argument_expression(line, "Cart.add", "self", 0, method=True) == "cart"
    assert argument_expression(line, "Cart.add", "note", 3, method=True) == "text.strip()"
    assert argument_expression(line, "add", "items", 0) == "other"  # the call spelled as CALLEE
    assert argument_expression(line, "price_of", "sku", 0) == "sku"
    assert argument_expression("for w, s in pick_lines(order):", "pick_lines", "items", 0) == "order"
    assert argument_expression("report(*rows)", "report", "first", 0) is None
    assert argument_expression("report(a)", "report", "limit", 1) is None  # the default
    assert argument_expression("Job(name, 5)", "Job", "every", 2, method=True) == "5"


def test_line_reads_leaves_out_comprehension_variables_and_called_methods():
    source = "total = cart.subtotal >= LIMIT + sum(p.price for p in cart.lines) + self.rate(x)\n"
    reads = line_reads(source, 1)
    assert reads.names == ["cart", "LIMIT", "self", "x"]
    assert reads.attributes == ["cart.subtotal", "cart.lines"]
    assert reads.calls == ["sum", "self.rate"]


def crash_leads(tmp_path, files: dict[str, str], main: str):
    for name, text in files.items():
        (tmp_path / name).write_text(program(text))
    run = run_py([main], cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    sources = {str(p): p.read_text() for p in tmp_path.glob("*.py")}
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', run.stderr)
    sites = [site(sources[str(tmp_path / f)], str(tmp_path / f), int(n), fn)
             for f, n, fn in frames if str(tmp_path / f) in sources or f in sources]
    return backtrack(sites[::-1], sources), tmp_path


def test_backtrack_from_a_real_crash_follows_a_parameter_into_the_caller_and_a_return(tmp_path):
    leads, folder = crash_leads(tmp_path, {
        "calendar.py": """
            def nights(first, last):
                return list(range(first, last))

            def occupancy(first, last, stays):
                booked = nights(first, last)
                guests = [None] * len(booked)
                for night in stays:
                    guests[night - first] = "x"
                return guests

            print(occupancy(1, 7, [3, 7]))
        """}, "calendar.py")
    found = {(lead.origin.line, lead.origin.kind) for lead in leads}
    assert (2, "return") in found  # the root cause: range() leaves out LAST
    assert (11, "argument") in found  # where `stays` and `first` came from
    assert all(lead.file == str(folder / "calendar.py") for lead in leads)


def test_backtrack_from_a_failing_assert_reaches_a_method_in_another_file(tmp_path):
    leads, folder = crash_leads(tmp_path, {
        "jobs.py": """
            class Job:
                def __init__(self, minutes):
                    self.minutes = minutes

                def interval(self):
                    return self.minutes * 60 * 60

                def next_run(self, now):
                    return now + self.interval()
        """,
        "test_jobs.py": """
            from jobs import Job

            def test_next():
                job = Job(90)
                assert job.next_run(0) == 5400

            test_next()
        """}, "test_jobs.py")
    assert any(lead.file == str(folder / "jobs.py") and lead.origin.line == 6 and lead.origin.kind == "return"
               for lead in leads), leads


def test_a_value_computed_and_dropped_is_a_lead():
    source = program("""
        def retry(fetch, attempts):
            attempt = 1
            while True:
                if attempt == attempts:
                    raise RuntimeError
                attempt + 1
                fetch()
    """)
    from autodbg.analysis.provenance import discarded_values
    assert lines_kinds(discarded_values(source, 1, ["attempt", "fetch"])) == [(6, "discarded")]
    assert discarded_values(source, 1, ["fetch"]) == []  # a call is kept for its effect


def test_backtrack_follows_the_test_guarding_a_raise_and_an_attribute_appended_under_an_if(tmp_path):
    leads, folder = crash_leads(tmp_path, {
        "editor.py": """
            UNDOABLE = {"delete"}

            class Buffer:
                def __init__(self):
                    self.text = ""
                    self.history = []

                def apply(self, command, chunk):
                    before = self.text
                    self.text += chunk if command == "insert" else ""
                    if command in UNDOABLE:
                        self.history.append(before)

                def undo(self):
                    if not self.history:
                        raise LookupError("nothing to undo")
                    self.text = self.history.pop()

            buffer = Buffer()
            buffer.apply("insert", "hello")
            buffer.undo()
        """}, "editor.py")
    found = {(lead.origin.line, lead.origin.kind): lead for lead in leads}
    assert (12, "attribute") in found  # self.history.append(before), read by the guard of the raise
    assert found[(1, "assign")].depth == 1  # UNDOABLE, the test that kept line 12 from running


def test_unparsable_source_or_a_missing_function_gives_nothing_rather_than_an_error():
    assert reaching_definitions("def f(:\n", 1, 1, ["x"]) == {"x": []}
    assert reaching_definitions("x = 1\n", 7, 1, ["x"]) == {"x": []}
    assert return_lines("x = 1\n", 1) == []
    assert argument_expression("not python (", "f", "a", 0) is None
    assert backtrack([site("x = 1\n", "/nowhere.py", 1, "<module>")], {}) == []


def test_backtrack_names_the_if_that_kept_a_value_out_and_passing_a_result_along_costs_no_depth(tmp_path):
    """The root cause is the filter's test (line 6): the crash line reads `prices`, which the call
    passed along from `return prices`, which passed along what the `append` under the test made;
    `count = len(prices)` computes its value."""
    leads, folder = crash_leads(tmp_path, {
        "shop.py": """
            def in_stock_prices(items, min_price):
                prices = []
                for price, stock in items:
                    if stock == 0:
                        continue
                    elif price < min_price:
                        prices.append(price)
                return prices

            def average_price(items):
                prices = in_stock_prices(items, 10.0)
                count = len(prices)
                return sum(prices) / count

            average_price([(12.0, 3), (25.0, 1)])
        """}, "shop.py")
    found = {(lead.origin.line, lead.origin.kind): lead for lead in leads}
    assert found[(7, "mutate")].depth == 0  # prices.append(price): passed along twice, at no depth
    guard = found[(6, "guard")]  # the elif around it, the root cause
    assert guard.depth == 1 and guard.origin.code == "elif price < min_price:" and guard.via == "prices"
    assert found[(4, "guard")].origin.code == "if stock == 0:"  # its `else` holds the elif
    from autodbg.analysis.provenance import guard_tests, passed_value
    source = (folder / "shop.py").read_text()
    assert guard_tests(source, 7) == [6, 4]
    assert passed_value(source, 11) == "in_stock_prices" and passed_value(source, 8) == ""
    assert passed_value(source, 12) == "len"  # not the program's function: backtrack counts it computed
    assert passed_value(source, 13) is None
