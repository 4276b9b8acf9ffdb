"""check_fix applies a proposed fix to an in-memory copy of the named lines, re-indents it,
compiles the result, and never touches the file."""

from __future__ import annotations

import pytest

from autodbg.fix.check import check_fix, reindent
from autodbg.fix.lines import python_lines, replace_lines
from autodbg.records import Edit

SOURCE = """\
def mean(values):
    total = sum(values)
    count = len(values)
    return total / count


class Stats:
    def spread(self, values):
        if values:
            low = min(values)
            high = max(values)
            return high - low

        return None
"""


@pytest.fixture
def target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "stats.py"
    path.write_bytes(SOURCE.encode())
    yield path
    assert path.read_bytes() == SOURCE.encode(), "check_fix modified the file on disk"


def test_applies_to_the_named_line_with_its_indentation(target):
    fix = check_fix(Edit(file=str(target), first=4, last=4, replacement="return total / count if count else 0.0", origin="model"))
    assert (fix.applies, fix.compiles, fix.problem) == (True, True, None)
    assert fix.edit.replacement == "    return total / count if count else 0.0\n"
    assert fix.diff == (
        "--- a/stats.py\n+++ b/stats.py\n@@ -1,7 +1,7 @@\n"
        " def mean(values):\n     total = sum(values)\n     count = len(values)\n"
        "-    return total / count\n+    return total / count if count else 0.0\n"
        " \n \n class Stats:\n"
    )


def test_reindents_an_unindented_block_keeping_relative_indents(target):
    fix = check_fix(Edit(file=str(target), first=9, last=12, replacement="if values:\n    low, high = min(values), max(values)\n    return high - low", origin="model"))
    assert (fix.applies, fix.compiles, fix.problem) == (True, True, None)
    # Re-indented to the block's level; the unchanged `if` and `return` are left out of the fix.
    assert (fix.edit.first, fix.edit.last) == (10, 11)
    assert fix.edit.replacement == "            low, high = min(values), max(values)\n"
    new = SOURCE.splitlines(keepends=True)
    new[fix.edit.first - 1:fix.edit.last] = fix.edit.replacement.splitlines(keepends=True)
    assert "".join(new).endswith("            return high - low\n\n        return None\n")
    compile("".join(new), "stats.py", "exec")


def test_reindents_an_over_indented_replacement(target):
    fix = check_fix(Edit(file=str(target), first=2, last=3, replacement="            total = sum(values)\n            count = len(values) or 1\n", origin="model"))
    assert fix.edit.replacement == "    count = len(values) or 1\n"  # the unchanged first line left out
    assert fix.compiles and fix.problem is None and (fix.edit.first, fix.edit.last) == (3, 3)


def test_multi_line_range_is_replaced_whole(target):
    fix = check_fix(Edit(file=str(target), first=2, last=4, replacement="return sum(values) / max(len(values), 1)", origin="model"))
    assert fix.applies and fix.compiles and fix.problem is None
    assert fix.diff.count("\n-") == 3 and fix.diff.count("\n+") == 2  # 3 lines out; `+++` and 1 line in
    assert "-    total = sum(values)\n-    count = len(values)\n-    return total / count\n" \
           "+    return sum(values) / max(len(values), 1)\n" in fix.diff


def test_replacement_that_does_not_compile(target):
    fix = check_fix(Edit(file=str(target), first=4, last=4, replacement="return (total / count", origin="model"))
    assert fix.applies is True and fix.compiles is False
    assert fix.problem.startswith("the patched file does not compile: ")
    assert "\n" not in fix.problem and "(line 4)" in fix.problem
    assert "+    return (total / count" in fix.diff


def test_replacement_with_broken_indentation_does_not_compile(target):
    fix = check_fix(Edit(file=str(target), first=10, last=10, replacement="low = min(values)\n  high = max(values)", origin="model"))
    assert fix.applies and not fix.compiles
    assert "\n" not in fix.problem


@pytest.mark.parametrize("first, last", [(0, 1), (15, 15), (14, 20), (5, 4), (-1, 2), (100, 200)])
def test_lines_outside_the_file_do_not_apply(target, first, last):
    fix = check_fix(Edit(file=str(target), first=first, last=last, replacement="pass", origin="model"))
    assert (fix.applies, fix.compiles, fix.diff) == (False, False, "")
    assert fix.problem == f"lines {first}-{last} are not in stats.py"


def test_missing_file_does_not_apply(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fix = check_fix(Edit(file=str(tmp_path / "gone.py"), first=1, last=1, replacement="pass", origin="model"))
    assert not fix.applies and not fix.compiles
    assert fix.problem.startswith("cannot read gone.py: ") and "\n" not in fix.problem


@pytest.mark.parametrize("replacement", ["return total / count", "        return total / count\n",
                                         "\n\nreturn total / count\n\n"])
def test_a_fix_that_changes_nothing_says_so(target, replacement):
    fix = check_fix(Edit(file=str(target), first=4, last=4, replacement=replacement, origin="model"))
    assert fix.problem == "the fix does not change the code"
    assert fix.diff == ""


def test_a_whole_function_rewritten_to_change_one_line_names_that_line(target):
    fix = check_fix(Edit(file=str(target), first=1, last=4, replacement="def mean(values):\n    total = sum(values)\n    count = len(values) or 1\n"
                                       "    return total / count\n", origin="model"))
    assert (fix.edit.first, fix.edit.last, fix.problem) == (3, 3, None)
    assert fix.edit.replacement == "    count = len(values) or 1\n"
    assert fix.diff.count("\n-") == 1 and "-    count = len(values)\n" in fix.diff


def test_an_inserted_line_keeps_the_named_lines_as_its_anchor(target):
    fix = check_fix(Edit(file=str(target), first=2, last=3, replacement="total = sum(values)\nassert values\ncount = len(values)", origin="model"))
    assert (fix.edit.first, fix.edit.last, fix.problem) == (2, 3, None)


@pytest.mark.parametrize("first, last, replacement", [
    (1, 4, 'def mean(values):\n    """Average."""\n    total = sum(values)\n    count = len(values)\n'
           '    return total / count\n'),
    (4, 4, "return (total\n        / count)  # same thing"),
])
def test_a_fix_that_changes_only_layout_or_docstrings_says_so(target, first, last, replacement):
    fix = check_fix(Edit(file=str(target), first=first, last=last, replacement=replacement, origin="model"))
    assert fix.problem == "the fix changes only layout or docstrings, not what the code does"


def test_blank_first_line_in_the_range_keeps_the_code_indented(target):
    """Lines 13-14 are a blank line and `return None`: the replacement belongs at the indentation
    of the code, not at the (empty) indentation of the blank line."""
    fix = check_fix(Edit(file=str(target), first=13, last=14, replacement="return 0", origin="model"))
    assert fix.edit.replacement == "        return 0\n", repr(fix.edit.replacement)
    assert fix.compiles and fix.problem is None


def test_file_on_disk_is_never_modified(target):
    before = target.read_bytes()
    mtime = target.stat().st_mtime_ns
    for args in [(4, 4, "return 0"), (2, 4, "pass"), (4, 4, "return (")]:
        check_fix(Edit(file=str(target), first=args[0], last=args[1], replacement=args[2], origin="model"))
    assert target.read_bytes() == before
    assert target.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in target.parent.iterdir()) == ["stats.py"]


@pytest.mark.parametrize("text, indent, expected", [
    ("x = 1", "    ", ["    x = 1\n"]),
    ("if a:\n    b()\nc()", "  ", ["  if a:\n", "      b()\n", "  c()\n"]),
    ("    if a:\n        b()", "", ["if a:\n", "    b()\n"]),
    ("\n\nx\n\n", "\t", ["\tx\n"]),
    ("if a:\n\n    b()", "    ", ["    if a:\n", "\n", "        b()\n"]),
    ("", "    ", []),
    ("\tx\n\t\ty", "", ["x\n", "    y\n"]),
    # A `return` added after the last statement of a nested block ends that block.
    ("            merged[key] = value\n    return merged\n", "            ",
     ["            merged[key] = value\n", "    return merged\n"]),
    ("        x = 1\n    y = 2", "    ", ["    x = 1\n", "y = 2\n"]),
])
def test_reindent(text, indent, expected):
    assert reindent(text, indent) == expected


def test_a_form_feed_in_a_comment_does_not_shift_the_lines(tmp_path, monkeypatch):
    """Python ends lines at \\n, \\r\\n and \\r only: a form feed (or \\x1c, \\u2028...) inside a
    line must not make the fix replace a different line than the one the traceback named."""
    monkeypatch.chdir(tmp_path)
    source = "# page one \f page two\nx = 1\ny = 1 / 0  # \u2028 still line 3\nz = 3\n"
    path = tmp_path / "paged.py"
    path.write_text(source, encoding="utf-8")
    fix = check_fix(Edit(file=str(path), first=3, last=3, replacement="y = 1 / 1", origin="model"))
    assert fix.problem is None, fix.problem
    assert "-y = 1 / 0  # \u2028 still line 3" in fix.diff and "+y = 1 / 1" in fix.diff
    assert "-x = 1" not in fix.diff and "-z = 3" not in fix.diff


def test_replace_lines_counts_lines_as_python_does():
    text = "a \f b\r\nc\rd \x1c e\nf"
    assert python_lines(text) == ["a \f b\r\n", "c\r", "d \x1c e\n", "f"]
    assert replace_lines(text, 2, 3, "X") == "a \f b\r\nX\nf"
    with pytest.raises(ValueError, match="not within its 4 lines"):
        replace_lines(text, 4, 5, "X")
