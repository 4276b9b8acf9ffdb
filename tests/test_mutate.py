"""Small changes of one line (autodbg.fix.mutate): each kind on the lines it is for, spliced into
the line's own text, every one parsing, none that changes nothing."""

from __future__ import annotations

import ast
import textwrap

import pytest

from autodbg.fix.mutate import KINDS, conversion, conversions, mutants

PROGRAM = textwrap.dedent('''\
    def window(values, size, label="span"):
        total = 0
        for i in range(len(values) - size):
            if values[i] < size and label in "spans":
                total += values[i]
        parts = (str(v) for v in values)
        print(label.startswith("s"), make(size, total))
        result = values[i:] + [1]
        return len(values) - 1


    def make(a, b):
        kept = [a, b]
        kept.append(a)
''')


def changed(line: int, kind: str | None = None) -> list[str]:
    """The new text of LINE (stripped, `|`-joined when several lines) of each mutant of KIND."""
    return ["|".join(part.strip() for part in m.replacement.splitlines())
            for m in mutants("prog.py", PROGRAM, line) if kind is None or m.origin == kind]


def test_comparisons_turn_round_and_in_swaps_its_operands():
    assert changed(4, "comparison") == [
        'if values[i] <= size and label in "spans":', 'if values[i] > size and label in "spans":',
        'if values[i] >= size and label in "spans":', 'if values[i] == size and label in "spans":',
        'if values[i] != size and label in "spans":', 'if values[i] < size and label not in "spans":']
    assert 'if values[i] < size and "spans" in label:' in changed(4, "operands")
    assert 'if values[i] < size or label in "spans":' in changed(4, "boolean")


def test_a_bound_is_off_by_one_both_ways_but_an_existing_one_is_dropped_not_undone():
    assert changed(3, "off-by-one") == ["for i in range(len(values) - size + 1):",
                                        "for i in range(len(values) - size - 1):"]
    assert changed(9, "drop") == ["return len(values)", "return 1"]
    assert "return len(values) - 1 + 1" not in changed(9)
    assert changed(9, "constant") == ["return len(values) - 2"]  # not `- 0`, which `drop` says better
    assert changed(9, "abs") == ["return abs(len(values) - 1)"]


def test_operators_change_but_never_into_a_no_op():
    ops = changed(9, "operator")
    assert "return len(values) + 1" in ops and "return len(values) // 1" not in ops and "return len(values) * 1" not in ops
    assert "total -= values[i]" in changed(5, "augmented")


def test_twins_arguments_and_a_generator_made_a_list():
    assert 'print(label.endswith("s"), make(size, total))' in changed(7, "method")
    assert 'print(label.startswith("s"), make(total, size))' in changed(7, "arguments")
    assert changed(6, "list") == ["parts = [str(v) for v in values]"]
    assert "result = values[:i] + [1]" in changed(8, "slice")


def test_a_variable_read_is_swapped_for_the_functions_other_names_but_not_a_name_it_writes():
    variables = changed(8, "variable")
    assert "result = size[i:] + [1]" in variables and "result = values[total:] + [1]" in variables
    assert not any(v.startswith(("total =", "size =")) for v in variables)
    assert {"values += values[i]", "size += values[i]", "total += size[i]"} <= set(changed(5, "variable"))


def test_a_function_that_falls_off_its_end_returns_what_it_made_and_a_statement_may_go():
    assert changed(14, "return") == ["kept.append(a)|return kept"]
    assert changed(14, "delete") == [""]
    assert changed(2, "delete") == [""]


def test_lines_that_start_no_statement_have_no_changes():
    assert mutants("prog.py", PROGRAM, 1) == []  # a def line
    assert mutants("prog.py", PROGRAM, 10) == []  # blank
    assert mutants("prog.py", PROGRAM, 999) == []
    assert mutants("prog.py", "x = (1 +\n     2)\n", 2) == []  # a continuation line
    assert mutants("prog.py", "def broken(:\n", 1) == []


def test_every_change_parses_changes_something_and_comes_likeliest_kind_first():
    lines = PROGRAM.splitlines(keepends=True)
    for line in range(1, len(lines) + 1):
        found = mutants("prog.py", PROGRAM, line)
        assert [KINDS.index(m.origin) for m in found] == sorted(KINDS.index(m.origin) for m in found)
        for m in found:
            assert m.replacement != "".join(lines[m.first - 1:m.last])
            ast.parse("".join(lines[:m.first - 1]) + m.replacement + "".join(lines[m.last:]))


def test_the_rest_of_the_line_keeps_its_spelling_also_past_multibyte_characters():
    source = 'def f(n):\n    return "café·" + str(n - 1)  # n ≥ 1 ‘here’\n'
    found = [m.replacement for m in mutants("prog.py", source, 2) if m.origin == "operator"]
    assert '    return "café·" + str(n + 1)  # n ≥ 1 ‘here’\n' in found
    assert all(r.endswith("# n ≥ 1 ‘here’\n") for r in found)


@pytest.mark.parametrize("source, line, fixed", [
    ("def f(xs):\n    return [x for x in xs if x < 0]\n", 2, "    return [x for x in xs if x > 0]\n"),
    ("def f(n):\n    return sum(range(n))\n", 2, "    return sum(range(n + 1))\n"),
    ("def f(a, b):\n    return a - b\n", 2, "    return abs(a - b)\n"),
    ("def f(s, p):\n    return [x for x in s if x.endswith(p)]\n", 2, "    return [x for x in s if x.startswith(p)]\n"),
    ("def f(a, b):\n    while b:\n        a, b = b, a % b\n    return b\n", 4, "    return a\n"),
    ("def f(m):\n    return timedelta(seconds=m)\n", 2, "    return timedelta(minutes=m)\n"),
    ("def f(xs):\n    product = 0\n    for x in xs:\n        product *= x\n    return product\n", 2, "    product = 1\n"),
])
def test_the_fix_of_a_one_token_bug_is_among_the_changes(source, line, fixed):
    assert fixed in [m.replacement for m in mutants("prog.py", source, line)]


CLASSIC = textwrap.dedent('''\
    STATES = {
        "packed": {"shiped"},
        "shipped": {"delivered"},
    }


    class Cart:
        def subtotal(self):
            return 1.0

        @property
        def count(self):
            return 1


    def total(cart):
        return cart.subtotal + cart.count


    def find(customers, email):
        for customer in customers:
            if customer.email == email:
                return customer
            return None


    def first(items):
        for item in items:
            return item
''')


def classic(line: int, kind: str) -> list[tuple[int, str]]:
    return [(m.first, m.replacement) for m in mutants("prog.py", CLASSIC, line) if m.origin == kind]


def test_a_method_read_where_its_value_was_meant_is_called_or_made_a_property():
    """`cart.subtotal` is a bound method: call it there, or make it the property it was meant to be
    (not `count`, already one, nor a method with parameters)."""
    assert classic(17, "call") == [(17, "    return cart.subtotal() + cart.count\n"),
                                   (8, "    @property\n    def subtotal(self):\n"),
                                   (17, "    return cart.subtotal + cart.count()\n")]


def test_a_string_a_letter_or_two_off_another_of_the_module_is_respelled():
    """Anywhere in the statement (a table's entries span lines), once per string of the module
    at most two edits away; short strings are left alone (`"on"` and `"in"` are not typos)."""
    assert sorted(classic(1, "typo")) == [(2, '    "packed": {"shipped"},\n'), (3, '    "shiped": {"delivered"},\n')]
    assert not [m for m in mutants("prog.py", 'x = "on"\ny = "in"\n', 1) if m.origin == "typo"]


def test_a_return_that_ends_a_loops_first_round_goes_after_the_loop():
    """`return None` at the end of the loop's body returns before the second customer is looked at;
    a loop whose body is only the return (`first`) is left alone."""
    assert classic(24, "dedent") == [(24, "    return None\n")]
    assert classic(22, "dedent") == []  # under an `if`: returning there is the point
    assert classic(29, "dedent") == []


@pytest.mark.parametrize("message, to", [
    ('can only concatenate str (not "int") to str', "str"),
    ("unsupported operand type(s) for -: 'str' and 'int'", "int"),
    ("unsupported operand type(s) for +: 'float' and 'str'", "float"),
    ("unsupported operand type(s) for +: 'int' and 'NoneType'", None),  # None is no text to convert
    ("'<' not supported between instances of 'str' and 'int'", None),
])
def test_a_type_error_of_text_and_numbers_asks_for_a_conversion(message, to):
    assert conversion(message) == to


def test_a_conversion_wraps_what_a_line_assigns_or_each_operand_of_the_line_that_crashed():
    source = ('def count(line):\n    sku, counted = line.split()\n    counts = {}\n    counts[sku] = counted\n'
              '    return counts[sku] - 1 + len(sku)\n')
    assert [m.replacement for m in conversions("prog.py", source, 4, "int", operands=False)] == ["    counts[sku] = int(counted)\n"]
    assert [m.replacement for m in conversions("prog.py", source, 5, "int", operands=True)] == [
        "    return counts[sku] - 1 + int(len(sku))\n", "    return int(counts[sku]) - 1 + len(sku)\n"]
    assert conversions("prog.py", source, 2, "int", operands=False) == []  # values to unpack: no one value to convert
    assert all(m.origin == "convert" for m in conversions("prog.py", source, 5, "str", operands=True))


def test_constants_swapped_are_a_constant_change_not_swapped_arguments():
    """`Item("A-1", 3, 12.0)` for `Item("A-1", 12.0, 3)` changes the program's data, not its code."""
    program = "items = [Item(12.0, 3), Item(-1, 2), Item(price, 3)]\n"
    kinds = {m.replacement.strip(): m.origin for m in mutants("prog.py", program, 1)}
    assert kinds["items = [Item(3, 12.0), Item(-1, 2), Item(price, 3)]"] == "constant"
    assert kinds["items = [Item(12.0, 3), Item(2, -1), Item(price, 3)]"] == "constant"
    assert kinds["items = [Item(12.0, 3), Item(-1, 2), Item(3, price)]"] == "arguments"
