"""The libraries and the injected bugs of the libs corpus (read by build_libs.py)."""

# Hand-written crash drivers for tests that take pytest fixtures or parameters.
NATSORT_MIXED = """
from tests.test_natsorted import test_natsorted_handles_mixed_types
from natsort import ns

# the mixed_list fixture, and the first parametrize case
mixed_list = ["\u00c4", "0", "\u00e4", 3, "b", 1.5, "2", "Z"]
test_natsorted_handles_mixed_types(mixed_list, ns.DEFAULT, ["0", 1.5, "2", 3, "\u00c4", "Z", "\u00e4", "b"])
"""

NATSORT_NAN = """
from tests.test_natsorted import test_natsorted_consistent_ordering_with_nan_and_friends
from natsort import ns

# the first parametrize case
expected = [float("nan"), None, float("-inf"), 5, "25", 1e40, float("inf")]
test_natsorted_consistent_ordering_with_nan_and_friends(ns.DEFAULT, expected)
"""

NATSORT_CASE = """
from tests.test_natsorted import test_natsorted_supports_case_handling
from natsort import ns

# the fruit_list fixture, and the IGNORECASE parametrize case
fruit_list = ["Apple", "corn", "Corn", "Banana", "apple", "banana"]
expected = ["Apple", "apple", "Banana", "banana", "corn", "Corn"]
test_natsorted_supports_case_handling(ns.IGNORECASE, expected, fruit_list)
"""

NATSORT_SIGNED = """
from tests.test_natsorted import test_natsorted_can_sort_as_signed_ints

# the float_list fixture
float_list = ["a50", "a51.", "a50.31", "a-50", "a50.4", "a5.034e1", "a50.300"]
test_natsorted_can_sort_as_signed_ints(float_list)
"""


JSONPOINTER_TESTS = ["tests.py", "-k", "'not CommandLineTests and not DocExampleTests'"]

LIBS = {
    "cachetools": {
        "name": "cachetools", "version": "8.0.3", "license_name": "MIT licence",
        "sdist": "cachetools-8.0.3",
        "license": [("LICENSE", "LICENSE")],
        "package": [("src/cachetools", "cachetools")],
        "extra_sources": [],
        "always": ["tests/__init__.py"],
    },
    "schedule": {
        "name": "schedule", "version": "1.2.2", "license_name": "MIT licence",
        "sdist": "schedule-1.2.2",
        "license": [("LICENSE.txt", "LICENSE.txt")],
        "package": [("schedule", "schedule")],
        "extra_sources": [],
    },
    "natsort": {
        "name": "natsort", "version": "8.4.0", "license_name": "MIT licence",
        "sdist": "natsort-8.4.0",
        "license": [("LICENSE", "LICENSE")],
        "package": [("natsort", "natsort")],
        "extra_sources": [],
        "always": ["tests/conftest.py"],
    },
    "boltons": {
        "name": "boltons", "version": "26.2.0", "license_name": "BSD 3-clause licence",
        "sdist": "boltons-26.2.0",
        "license": [("LICENSE", "LICENSE")],
        # boltons' modules are independent; each case vendors the ones its test imports.
        "package": [("boltons/__init__.py", "boltons/__init__.py"),
                    ("boltons/typeutils.py", "boltons/typeutils.py")],
        "extra_sources": [],
    },
    "jsonpointer": {
        "name": "jsonpointer", "version": "3.12", "license_name": "BSD 3-clause licence",
        "sdist": "jsonpointer-3.12",
        "license": [("LICENSE.txt", "LICENSE.txt")],
        "package": [("jsonpointer.py", "jsonpointer.py")],
        "extra_sources": [],
    },
    "jsonpatch": {
        "name": "jsonpatch", "version": "1.48", "license_name": "BSD 3-clause licence",
        "sdist": "jsonpatch-1.48",
        "license": [("LICENSE", "LICENSE")],
        "package": [("jsonpatch.py", "jsonpatch.py"), ("jsonpatch_cli.py", "jsonpatch_cli.py")],
        # jsonpatch needs jsonpointer, which the case vendors too (with its licence).
        "extra_sources": [{"sdist": "jsonpointer-3.12",
                           "files": [("jsonpointer.py", "jsonpointer.py"),
                                     ("LICENSE.txt", "LICENSE-jsonpointer.txt")]}],
        "always": ["tests.js"],
    },
    "mistune": {
        "name": "mistune", "version": "3.4.0", "license_name": "BSD 3-clause licence",
        "sdist": "mistune-3.4.0",
        "license": [("LICENSE", "LICENSE")],
        "package": [("src/mistune", "mistune")],
        "extra_sources": [],
        "always": ["tests/__init__.py", "tests/fixtures/__init__.py",
                   "tests/fixtures/commonmark.json"],
    },
    "jmespath": {
        "name": "jmespath", "version": "1.1.0", "license_name": "MIT licence",
        "sdist": "jmespath-1.1.0",
        "license": [("LICENSE", "LICENSE")],
        "package": [("jmespath", "jmespath")],
        "extra_sources": [],
        # The sdist leaves out tests/__init__.py, from which the test modules import these names.
        "added": {"tests/__init__.py": (
            "# Not in the jmespath 1.1.0 sdist: the names the test modules import from it.\n"
            "import json  # noqa: F401\n"
            "import unittest  # noqa: F401\n"
            "from collections import OrderedDict  # noqa: F401\n")},
    },
}

CASES = [
    {
        "name": "cachetools-ttl-expire-fastpath-le", "bug": "wrong comparison (< became <=)",
        "lib": "cachetools", "kind": "assertion",
        "files": ["tests/test_ttl.py"], "test": "tests/test_ttl.py::TTLCacheTest::test_ttl",
        "file": "cachetools/__init__.py",
        "old": "        if curr is root or time < curr.expires:",
        "new": "        if curr is root or time <= curr.expires:",
        "description": "TTLCache.expire()'s fast path treats an item whose expiry time is now as "
                       "still alive, so len() counts it after it has expired.",
    },
    {
        "name": "cachetools-size-diff-swapped", "bug": "swapped operands",
        "lib": "cachetools", "kind": "assertion",
        "files": ["tests/test_lru.py"],
        "test": "tests/test_lru.py::LRUCacheTest::test_getsizeof_replace_grow",
        "file": "cachetools/__init__.py",
        "old": "                diffsize = itemsize - size[key]",
        "new": "                diffsize = size[key] - itemsize",
        "description": "Cache.__setitem__() computes the size change of a replaced value the wrong "
                       "way round, so currsize shrinks when a value grows.",
    },
    {
        "name": "cachetools-rr-delitem-last-index", "bug": "off-by-one in a condition",
        "lib": "cachetools", "kind": "exception",
        "files": ["tests/test_rr.py"], "test": "tests/test_rr.py::RRCacheTest::test_getsizeof_param",
        "file": "cachetools/__init__.py",
        "old": "        if index != len(self.__keys) - 1:",
        "new": "        if index != len(self.__keys):",
        "description": "RRCache.__delitem__() moves the last key into the freed slot even when the "
                       "deleted key is the last one, so the deleted key stays in the index.",
    },
    {
        "name": "cachetools-lfu-touch-count", "bug": "wrong value (missing + 1)",
        "lib": "cachetools", "kind": "assertion",
        "files": ["tests/test_lfu.py"], "test": "tests/test_lfu.py::LFUCacheTest::test_lfu_tie",
        "file": "cachetools/__init__.py",
        "old": "            curr = LFUCache._Link(link.count + 1)",
        "new": "            curr = LFUCache._Link(link.count)",
        "description": "LFUCache.__touch() files a used key under a new link with the same use "
                       "count, so its count never grows and it is evicted as least used.",
    },
    {
        "name": "cachetools-tlru-item-lt-reversed", "bug": "inverted comparison",
        "lib": "cachetools", "kind": "assertion",
        "files": ["tests/test_tlru.py"], "test": "tests/test_tlru.py::TLRUCacheTest::test_ttu",
        "file": "cachetools/__init__.py",
        "old": "            return self.expires < other.expires",
        "new": "            return self.expires > other.expires",
        "description": "TLRUCache._Item orders items latest expiry first, so the expiry heap's top "
                       "is the last item to expire and expire() stops before the expired ones.",
    },
    {
        "name": "cachetools-evict-until-below-max", "bug": "wrong comparison (> became >=)",
        "lib": "cachetools", "kind": "exception",
        "files": ["tests/test_lru.py"], "test": "tests/test_lru.py::LRUCacheTest::test_missing_getsizeof",
        "file": "cachetools/__init__.py",
        "old": "                while self.__currsize + diffsize > maxsize:\n                    self.popitem()\n            else:",
        "new": "                while self.__currsize + diffsize >= maxsize:\n                    self.popitem()\n            else:",
        "description": "Cache.__setitem__() evicts until a new item would leave the cache below "
                       "maxsize instead of at most maxsize, so it pops from an empty cache.",
    },
    {
        "name": "cachetools-timer-nesting-start", "bug": "wrong initial value",
        "lib": "cachetools", "kind": "exception",
        "files": ["tests/test_ttl.py"], "test": "tests/test_ttl.py::TTLCacheTest::test_ttl_timer",
        "file": "cachetools/__init__.py",
        "old": "            self.__nesting = 0",
        "new": "            self.__nesting = 1",
        "description": "_TimedCache._Timer starts at nesting level 1, so calling the timer outside "
                       "any `with` block returns a frozen time that was never taken.",
    },

    # --- schedule ---------------------------------------------------------------------------
    {
        "name": "schedule-next-weekday-same-day", "bug": "wrong comparison (< became <=)",
        "lib": "schedule", "kind": "assertion",
        "files": ["test_schedule.py"], "test": "test_schedule.py::SchedulerTests::test_weekday_at_todady",
        "file": "schedule/__init__.py",
        "old": "    if days_ahead < 0:",
        "new": "    if days_ahead <= 0:",
        "description": "_move_to_next_weekday() moves a moment that is already on the wanted "
                       "weekday to next week, so a weekly job due later today runs a week late.",
    },
    {
        "name": "schedule-at-hourly-mmss-swapped", "bug": "swapped unpacking targets",
        "lib": "schedule", "kind": "assertion",
        "files": ["test_schedule.py"], "test": "test_schedule.py::SchedulerTests::test_at_time_hour",
        "file": "schedule/__init__.py",
        "old": "            minute, second = time_values",
        "new": "            second, minute = time_values",
        "description": "Job.at() unpacks an hourly job's MM:SS the wrong way round, so "
                       "at('30:05') runs at minute 5, second 30.",
    },
    {
        "name": "schedule-at-hourly-empty-minutes", "bug": "missing condition",
        "lib": "schedule", "kind": "exception",
        "files": ["test_schedule.py"], "test": "test_schedule.py::SchedulerTests::test_at_time_hour",
        "file": "schedule/__init__.py",
        "old": '        elif len(time_values) == 2 and self.unit == "hours" and len(time_values[0]):',
        "new": '        elif len(time_values) == 2 and self.unit == "hours":',
        "description": "Job.at() takes an hourly ':MM' string for 'MM:SS' because the branch no "
                       "longer checks that the minutes part is there, so int('') fails.",
    },
    {
        "name": "schedule-job-lt-reversed", "bug": "inverted comparison",
        "lib": "schedule", "kind": "assertion",
        "files": ["test_schedule.py"], "test": "test_schedule.py::SchedulerTests::test_next_run_property",
        "file": "schedule/__init__.py",
        "old": "        return self.next_run < other.next_run",
        "new": "        return self.next_run > other.next_run",
        "description": "Job.__lt__() orders jobs latest first, so min() in get_next_run() picks "
                       "the job that runs last.",
    },
    {
        "name": "schedule-wednesday-typo", "bug": "typo in a string constant",
        "lib": "schedule", "kind": "exception",
        "files": ["test_schedule.py"], "test": "test_schedule.py::SchedulerTests::test_weekday_at_todady",
        "file": "schedule/__init__.py",
        "old": '        self.start_day = "wednesday"',
        "new": '        self.start_day = "wednsday"',
        "description": "Job.wednesday misspells the day it stores, which _weekday_index() rejects "
                       "when do() schedules the first run.",
    },
    {
        "name": "schedule-decode-datetime-gives-up", "bug": "early return in a loop",
        "lib": "schedule", "kind": "exception",
        "files": ["test_schedule.py"], "test": "test_schedule.py::SchedulerTests::test_until_time",
        "file": "schedule/__init__.py",
        "old": "            except ValueError:\n                pass\n        return None",
        "new": "            except ValueError:\n                return None\n        return None",
        "description": "_decode_datetimestr() returns None as soon as the first format does not "
                       "match instead of trying the next, so until('10:30') is rejected.",
    },
    {
        "name": "schedule-randint-args-swapped", "bug": "swapped arguments",
        "lib": "schedule", "kind": "exception",
        "files": ["test_schedule.py"], "test": "test_schedule.py::SchedulerTests::test_time_range",
        "file": "schedule/__init__.py",
        "old": "            interval = random.randint(self.interval, self.latest)",
        "new": "            interval = random.randint(self.latest, self.interval)",
        "description": "_schedule_next_run() passes the random interval's bounds to "
                       "random.randint() the wrong way round, an empty range.",
    },
    # --- natsort ----------------------------------------------------------------------------
    {
        "name": "natsort-sep-inserter-first-check", "bug": "inverted condition",
        "lib": "natsort", "kind": "exception",
        "files": ["tests/test_natsorted.py"],
        "pytest": ["tests/test_natsorted.py", "-k", "'not locale'"],
        "test": "tests/test_natsorted.py::test_natsorted_handles_mixed_types",
        "call": NATSORT_MIXED,
        "file": "natsort/utils.py",
        "old": "        if type(first) in types:\n            yield sep\n        yield first",
        "new": "        if type(first) not in types:\n            yield sep\n        yield first",
        "description": "sep_inserter() puts the separator string before a leading word instead "
                       "of before a leading number, so keys compare an int with a str.",
    },
    {
        "name": "natsort-nan-replace-swapped", "bug": "swapped values",
        "lib": "natsort", "kind": "assertion",
        "files": ["tests/test_natsorted.py"],
        "pytest": ["tests/test_natsorted.py", "-k", "'not locale'"],
        "test": "tests/test_natsorted.py::test_natsorted_consistent_ordering_with_nan_and_friends",
        "call": NATSORT_NAN,
        "file": "natsort/utils.py",
        "old": '    nan_replace = float("+inf") if alg & ns.NANLAST else float("-inf")\n\n    def func(',
        "new": '    nan_replace = float("-inf") if alg & ns.NANLAST else float("+inf")\n\n    def func(',
        "description": "parse_number_or_none_factory() swaps the values NaN and None sort as, so "
                       "they go last by default and first with NANLAST.",
    },
    {
        "name": "natsort-path-suffix-limit", "bug": "off-by-one limit",
        "lib": "natsort", "kind": "assertion",
        "files": ["tests/test_natsorted.py"],
        "pytest": ["tests/test_natsorted.py", "-k", "'not locale'"],
        "test": "tests/test_natsorted.py::test_natsorted_handles_filesystem_paths",
        "file": "natsort/utils.py",
        "old": "            if _d_match(suffix) or i > 1 or len(suffix) > 5:",
        "new": "            if _d_match(suffix) or i > 0 or len(suffix) > 5:",
        "description": "path_splitter() splits off only the last file extension instead of up "
                       "to two, so 'file.tar' is compared as a name against 'file (1).tar'.",
    },
    {
        "name": "natsort-chain-single-function", "bug": "wrong return value",
        "lib": "natsort", "kind": "exception",
        "files": ["tests/test_natsorted.py"],
        "pytest": ["tests/test_natsorted.py", "-k", "'not locale'"],
        "test": "tests/test_natsorted.py::test_natsorted_supports_case_handling",
        "call": NATSORT_CASE,
        "file": "natsort/utils.py",
        "old": "        return functions[0]",
        "new": "        return functions",
        "description": "chain_functions() returns the one-element list itself instead of its "
                       "function, so the string transform it builds cannot be called.",
    },
    {
        "name": "natsort-regex-signed-int", "bug": "wrong table entry",
        "lib": "natsort", "kind": "assertion",
        "files": ["tests/test_natsorted.py"],
        "pytest": ["tests/test_natsorted.py", "-k", "'not locale'"],
        "test": "tests/test_natsorted.py::test_natsorted_can_sort_as_signed_ints",
        "call": NATSORT_SIGNED,
        "file": "natsort/utils.py",
        "old": "        ns.INT | ns.SIGNED: NumericalRegularExpressions.int_sign(),",
        "new": "        ns.INT | ns.SIGNED: NumericalRegularExpressions.int_nosign(),",
        "description": "regex_chooser() maps INT|SIGNED to the unsigned-integer regex, so a "
                       "minus sign is not part of the number.",
    },
    {
        "name": "natsort-index-pair-swapped", "bug": "swapped tuple order",
        "lib": "natsort", "kind": "exception",
        "files": ["tests/test_natsorted_convenience.py"],
        "pytest": ["tests/test_natsorted_convenience.py", "-k", "'not locale'"],
        "test": "tests/test_natsorted_convenience.py::test_index_natsorted_applies_key_function_before_sorting",
        "file": "natsort/natsort.py",
        "old": "    index_seq_pair = [(x, y) for x, y in enumerate(seq)]",
        "new": "    index_seq_pair = [(y, x) for x, y in enumerate(seq)]",
        "description": "index_natsorted() pairs each element with its index the wrong way round, "
                       "so the key is applied to the index.",
    },

    # --- boltons ----------------------------------------------------------------------------
    {
        "name": "boltons-stats-quantile-index", "bug": "off-by-one (n instead of n - 1)",
        "lib": "boltons", "kind": "assertion",
        "modules": ["boltons/statsutils.py"],
        "files": ["tests/test_statsutils.py"], "test": "tests/test_statsutils.py::test_stats_basic",
        "file": "boltons/statsutils.py",
        "old": "        idx = q / 1.0 * (n - 1)",
        "new": "        idx = q / 1.0 * n",
        "description": "Stats._get_quantile() scales the quantile by the number of values instead "
                       "of the last index, so the median of range(20) comes out as 10.",
    },
    {
        "name": "boltons-bytes2human-si-bounds", "bug": "wrong module constant",
        "lib": "boltons", "kind": "assertion",
        "modules": ["boltons/strutils.py"],
        "files": ["tests/test_strutils.py"], "test": "tests/test_strutils.py::test_bytes2human",
        "file": "boltons/strutils.py",
        "old": "_SIZE_BOUNDS = [(1024 ** i, sym) for i, sym in enumerate(_SIZE_SYMBOLS)]",
        "new": "_SIZE_BOUNDS = [(1000 ** i, sym) for i, sym in enumerate(_SIZE_SYMBOLS)]",
        "description": "The module's size table uses powers of 1000 while bytes2human() divides "
                       "for binary units, so 1023 bytes come out as '1K'.",
    },
    {
        "name": "boltons-pq-priority-sign", "bug": "missing negation",
        "lib": "boltons", "kind": "assertion",
        "modules": ["boltons/listutils.py", "boltons/queueutils.py"],
        "files": ["tests/test_queueutils.py"], "test": "tests/test_queueutils.py::test_heap_queue",
        "file": "boltons/queueutils.py",
        "old": "    _default_priority_key = staticmethod(lambda p: -float(p or 0))",
        "new": "    _default_priority_key = staticmethod(lambda p: float(p or 0))",
        "description": "BasePriorityQueue's default priority key does not negate the priority, so "
                       "the min-heap pops the lowest priority first.",
    },
    {
        "name": "boltons-pq-remove-marks-priority", "bug": "wrong index",
        "lib": "boltons", "kind": "exception",
        "modules": ["boltons/listutils.py", "boltons/queueutils.py"],
        "files": ["tests/test_queueutils.py"], "test": "tests/test_queueutils.py::test_heap_queue",
        "file": "boltons/queueutils.py",
        "old": "        entry[-1] = _REMOVED",
        "new": "        entry[0] = _REMOVED",
        "description": "BasePriorityQueue.remove() marks the entry's priority instead of its task "
                       "as removed, so the heap later compares the marker with a number.",
    },
    {
        "name": "boltons-chunk-ranges-align-overlap", "bug": "missing term",
        "lib": "boltons", "kind": "assertion",
        "modules": ["boltons/iterutils.py", "boltons/dictutils.py", "boltons/namedutils.py"],
        "files": ["tests/test_iterutils.py"], "test": "tests/test_iterutils.py::test_chunk_ranges",
        "file": "boltons/iterutils.py",
        "old": "            input_offset = input_offset + initial_chunk_len - overlap_size",
        "new": "            input_offset = input_offset + initial_chunk_len",
        "description": "chunk_ranges() with align=True starts the chunk after the first one "
                       "without the overlap, so aligned overlapping chunks do not overlap.",
    },
    {
        "name": "boltons-chunk-ranges-overlap-zero", "bug": "missing argument (a helper's default applies)",
        "lib": "boltons", "kind": "exception",
        "modules": ["boltons/iterutils.py", "boltons/dictutils.py", "boltons/namedutils.py"],
        "files": ["tests/test_iterutils.py"], "test": "tests/test_iterutils.py::test_chunk_ranges",
        "file": "boltons/iterutils.py",
        "old": "        overlap_size, 'overlap_size', strictly_positive=False)",
        "new": "        overlap_size, 'overlap_size')",
        "description": "chunk_ranges() validates overlap_size as strictly positive (the helper's "
                       "default), so the default overlap of 0 is rejected.",
    },
    {
        "name": "boltons-indexedset-real-index", "bug": "wrong comparison (< became <=)",
        "lib": "boltons", "kind": "exception",
        "modules": ["boltons/setutils.py"],
        "files": ["tests/test_setutils.py"], "test": "tests/test_setutils.py::test_indexed_set_mutate",
        "file": "boltons/setutils.py",
        "old": "            if real_index < d_start:",
        "new": "            if real_index <= d_start:",
        "description": "IndexedSet._get_real_index() stops before a run of removed slots that "
                       "starts exactly at the index, so indexing returns a removed slot.",
    },
    {
        "name": "boltons-lri-evict-newest", "bug": "wrong link (PREV for NEXT)",
        "lib": "boltons", "kind": "assertion",
        "modules": ["boltons/cacheutils.py"],
        "files": ["tests/test_cacheutils.py"], "test": "tests/test_cacheutils.py::test_lri",
        "file": "boltons/cacheutils.py",
        "old": "        self._anchor = anchor = oldanchor[NEXT]",
        "new": "        self._anchor = anchor = oldanchor[PREV]",
        "description": "LRI._set_key_and_evict_last_in_ll() makes the newest link the new anchor "
                       "instead of the oldest, so a full cache evicts the wrong key.",
    },

    # --- jsonpointer ------------------------------------------------------------------------
    {
        "name": "jsonpointer-unescape-order", "bug": "wrong order of operations",
        "lib": "jsonpointer", "kind": "assertion",
        "files": ["tests.py"], "pytest": JSONPOINTER_TESTS,
        "test": "tests.py::SpecificationTests::test_escaped_tilde_is_not_decoded_twice",
        "file": "jsonpointer.py",
        "old": "    return s.replace('~1', '/').replace('~0', '~')",
        "new": "    return s.replace('~0', '~').replace('~1', '/')",
        "description": "unescape() decodes ~0 before ~1, so the token ~01 (a member named '~1') "
                       "becomes '/'.",
    },
    {
        "name": "jsonpointer-escape-order", "bug": "wrong order of operations",
        "lib": "jsonpointer", "kind": "assertion",
        "files": ["tests.py"], "pytest": JSONPOINTER_TESTS,
        "test": "tests.py::SpecificationTests::test_round_trip",
        "file": "jsonpointer.py",
        "old": "    return s.replace('~', '~0').replace('/', '~1')",
        "new": "    return s.replace('/', '~1').replace('~', '~0')",
        "description": "escape() encodes '/' before '~', so the '~' of the new ~1 is escaped "
                       "again and a pointer's path no longer round-trips.",
    },
    {
        "name": "jsonpointer-set-create-root-part", "bug": "wrong variable",
        "lib": "jsonpointer", "kind": "exception",
        "files": ["tests.py"], "pytest": JSONPOINTER_TESTS,
        "test": "tests.py::SetTests::test_set_create_list",
        "file": "jsonpointer.py",
        "old": "            part = self._get_create_part(parent, self.parts[-1])",
        "new": "            part = self._get_create_part(doc, self.parts[-1])",
        "description": "JsonPointer.set() with create=True converts the last token against the "
                       "whole document instead of its parent, so a list index stays a string.",
    },
    {
        "name": "jsonpointer-array-index-zero", "bug": "wrong class constant (regex)",
        "lib": "jsonpointer", "kind": "exception",
        "files": ["tests.py"], "pytest": JSONPOINTER_TESTS,
        "test": "tests.py::SpecificationTests::test_example",
        "file": "jsonpointer.py",
        "old": "    _RE_ARRAY_INDEX = re.compile('0|[1-9][0-9]*')",
        "new": "    _RE_ARRAY_INDEX = re.compile('[1-9][0-9]*')",
        "description": "The array-index pattern of JsonPointer leaves out 0, so get_part() "
                       "rejects /foo/0 as not a valid sequence index.",
    },
    {
        "name": "jsonpointer-to-last-walks-leaf", "bug": "off-by-one slice",
        "lib": "jsonpointer", "kind": "exception",
        "files": ["tests.py"], "pytest": JSONPOINTER_TESTS,
        "test": "tests.py::SetTests::test_set",
        "file": "jsonpointer.py",
        "old": "        for part in self.parts[:-1]:",
        "new": "        for part in self.parts:",
        "description": "JsonPointer.to_last() walks every token instead of all but the last, so "
                       "it then looks up the last token in the target value itself.",
    },
    # --- jsonpatch --------------------------------------------------------------------------
    {
        "name": "jsonpatch-journal-append-index", "bug": "off-by-one index",
        "lib": "jsonpatch", "kind": "exception",
        "files": ["tests.py"], "test": "tests.py::AtomicApplyTests::test_patch_can_be_reapplied",
        "file": "jsonpatch.py",
        "old": "        self._undo.append((_undo_delitem, container, len(container) - 1))",
        "new": "        self._undo.append((_undo_delitem, container, len(container)))",
        "description": "_Journal.append() records the index one past the appended item, so "
                       "rolling back a failed atomic patch deletes outside the list.",
    },
    {
        "name": "jsonpatch-add-insert-at-end", "bug": "wrong comparison (> became >=)",
        "lib": "jsonpatch", "kind": "exception",
        "files": ["tests.py"], "test": "tests.py::MakePatchTestCase::test_arrays",
        "file": "jsonpatch.py",
        "old": "            elif part > len(subobj) or part < 0:",
        "new": "            elif part >= len(subobj) or part < 0:",
        "description": "AddOperation._add() rejects inserting at index len(list), which RFC 6902 "
                       "allows (it appends).",
    },
    {
        "name": "jsonpatch-replace-shallow-copy", "bug": "wrong function (copy for deepcopy)",
        "lib": "jsonpatch", "kind": "assertion",
        "files": ["tests.py"], "test": "tests.py::ApplyPatchTestCase::test_replace_whole_document_does_not_share_value",
        "file": "jsonpatch.py",
        "nth": 2,
        "old": "        value = copy.deepcopy(value)",
        "new": "        value = copy.copy(value)",
        "description": "ReplaceOperation._apply() inserts a shallow copy of the value, so the "
                       "patched document shares nested values with the patch.",
    },
    {
        "name": "jsonpatch-move-contains-swapped", "bug": "swapped receiver and argument",
        "lib": "jsonpatch", "kind": "assertion",
        "files": ["tests.py"], "test": "tests.py::ApplyPatchTestCase::test_move_array_item_into_other_item",
        "file": "jsonpatch.py",
        "old": "        if self.pointer != from_ptr and self.pointer.contains(from_ptr):",
        "new": "        if self.pointer != from_ptr and from_ptr.contains(self.pointer):",
        "description": "MoveOperation._apply() checks whether the source lies inside the target "
                       "instead of the other way round.",
    },
    {
        "name": "jsonpatch-json-equal-array-length", "bug": "missing condition",
        "lib": "jsonpatch", "kind": "assertion",
        "files": ["tests.py"],
        "test": "tests.py::ApplyPatchTestCase::test_test_read_only_sequence_contents_and_lengths",
        "file": "jsonpatch.py",
        "old": "        return len(first) == len(second) and all(\n            _json_equal(*items) for items in zip(first, second))",
        "new": "        return all(\n            _json_equal(*items) for items in zip(first, second))",
        "description": "_json_equal() compares arrays item by item with zip() but not their "
                       "lengths, so a test operation passes against a longer array.",
    },

    # --- mistune ----------------------------------------------------------------------------
    {
        "name": "mistune-thematic-break-token-typo", "bug": "typo in a string constant",
        "lib": "mistune", "kind": "exception",
        "files": ["tests/test_commonmark.py"],
        "test": "tests/test_commonmark.py::TestCommonMark::test_thematic_breaks_043",
        "file": "mistune/block_parser.py",
        "old": '        state.append_token({"type": "thematic_break"})',
        "new": '        state.append_token({"type": "thematic-break"})',
        "description": "The block parser names thematic-break tokens with a dash, a type no "
                       "renderer method has, so rendering '***' fails.",
    },
    {
        "name": "mistune-setext-level-swapped", "bug": "swapped values",
        "lib": "mistune", "kind": "assertion",
        "files": ["tests/test_commonmark.py"],
        "test": "tests/test_commonmark.py::TestCommonMark::test_setext_headings_080",
        "file": "mistune/block_parser.py",
        "old": '            level = 1 if m.group("setext_1") == "=" else 2',
        "new": '            level = 2 if m.group("setext_1") == "=" else 1',
        "description": "parse_setex_heading() gives '=' underlines level 2 and '-' underlines "
                       "level 1, the wrong way round.",
    },
    {
        "name": "mistune-link-title-fallback", "bug": "missing fallback (or ...)",
        "lib": "mistune", "kind": "exception",
        "files": ["tests/test_commonmark.py"],
        "test": "tests/test_commonmark.py::TestCommonMark::test_links_482",
        "file": "mistune/helpers.py",
        "old": "    next_pos = title_pos or href_pos",
        "new": "    next_pos = title_pos",
        "description": "parse_link_with_end() drops the fallback to the end of the href when a "
                       "link has no title, so it goes on scanning from None.",
    },
    {
        "name": "mistune-escape-amp-last", "bug": "wrong order of statements",
        "lib": "mistune", "kind": "assertion",
        "files": ["tests/test_commonmark.py"],
        "test": "tests/test_commonmark.py::TestCommonMark::test_code_spans_343",
        "file": "mistune/util.py",
        "old": '    s = s.replace("&", "&amp;")\n    s = s.replace("<", "&lt;")',
        "new": '    s = s.replace("<", "&lt;")\n    s = s.replace("&", "&amp;")',
        "description": "escape() replaces '<' before '&', so the '&' of every '&lt;' it makes is "
                       "escaped again.",
    },
    {
        "name": "mistune-leading-tab-width", "bug": "wrong arithmetic",
        "lib": "mistune", "kind": "assertion",
        "files": ["tests/test_commonmark.py"],
        "test": "tests/test_commonmark.py::TestCommonMark::test_tabs_002",
        "file": "mistune/util.py",
        "old": '        return s + " " * (width - len(s))',
        "new": '        return s + " " * width',
        "description": "expand_leading_tab() replaces a tab after some spaces with a full tab "
                       "width of spaces instead of up to the next tab stop.",
    },
    {
        "name": "mistune-fence-close-length", "bug": "off-by-one",
        "lib": "mistune", "kind": "assertion",
        "files": ["tests/test_commonmark.py"],
        "test": "tests/test_commonmark.py::TestCommonMark::test_fenced_code_blocks_119",
        "file": "mistune/block_parser.py",
        "old": '        _end = re.compile(r"^ {0,3}" + c + "{" + str(len(marker)) + r",}[ \\t]*(?:\\n|$)", re.M)',
        "new": '        _end = re.compile(r"^ {0,3}" + c + "{" + str(len(marker) + 1) + r",}[ \\t]*(?:\\n|$)", re.M)',
        "description": "parse_fenced_code() requires the closing fence to be longer than the "
                       "opening one, so a code block closed by an equal fence runs to the end.",
    },

    # --- jmespath ---------------------------------------------------------------------------
    {
        "name": "jmespath-number-types-no-int", "bug": "missing table entry",
        "lib": "jmespath", "kind": "exception",
        "files": ["tests/test_search.py"],
        "test": "tests/test_search.py::TestSearchOptions::test_can_provide_custom_functions",
        "file": "jmespath/functions.py",
        "old": "    'number': ('float', 'int', 'long'),",
        "new": "    'number': ('float', 'long'),",
        "description": "REVERSE_TYPES_MAP leaves int out of the Python types of a JMESPath "
                       "number, so the argument type check rejects the integer 1.",
    },
    {
        "name": "jmespath-delimiter-not-skipped", "bug": "missing statement",
        "lib": "jmespath", "kind": "exception",
        "files": ["tests/test_lexer.py"],
        "test": "tests/test_lexer.py::TestRegexLexer::test_quoted_identifier",
        "file": "jmespath/lexer.py",
        "old": "        # Skip the closing delimiter.\n        self._next()\n        return buff",
        "new": "        # Skip the closing delimiter.\n        return buff",
        "description": "Lexer._consume_until() returns without stepping past the closing "
                       "delimiter, so the lexer reads it again as an opening one.",
    },
    {
        "name": "jmespath-index-out-of-bounds", "bug": "wrong exception caught",
        "lib": "jmespath", "kind": "exception",
        "files": ["tests/test_parser.py"],
        "test": "tests/test_parser.py::TestParserWildcards::test_indices_out_of_bounds",
        "file": "jmespath/visitor.py",
        "old": "        except IndexError:\n            return None\n\n    def visit_index_expression(self, node, value):",
        "new": "        except KeyError:\n            return None\n\n    def visit_index_expression(self, node, value):",
        "description": "TreeInterpreter.visit_index() catches KeyError instead of IndexError, so "
                       "an index past the end of a list raises instead of giving null.",
    },
    {
        "name": "jmespath-flatten-appends-lists", "bug": "wrong method (append for extend)",
        "lib": "jmespath", "kind": "assertion",
        "files": ["tests/test_parser.py"],
        "test": "tests/test_parser.py::TestMergedLists::test_merge_with_indices",
        "file": "jmespath/visitor.py",
        "old": "                merged_list.extend(element)",
        "new": "                merged_list.append(element)",
        "description": "TreeInterpreter.visit_flatten() appends each sub-list instead of "
                       "extending by it, so [] does not flatten.",
    },
    {
        "name": "jmespath-identifier-end-position", "bug": "off-by-one",
        "lib": "jmespath", "kind": "assertion",
        "files": ["tests/test_lexer.py"],
        "test": "tests/test_lexer.py::TestRegexLexer::test_position_information",
        "file": "jmespath/lexer.py",
        "old": "                       'start': start, 'end': start + len(buff)}\n            elif self._current in self.WHITESPACE:",
        "new": "                       'start': start, 'end': start + len(buff) - 1}\n            elif self._current in self.WHITESPACE:",
        "description": "The lexer gives an unquoted identifier token an end position one short "
                       "of the identifier's last character.",
    },
    {
        "name": "jmespath-identifier-no-digits", "bug": "wrong class constant (missing digits)",
        "lib": "jmespath", "kind": "exception",
        "files": ["tests/test_custom_functions.py"],
        "test": "tests/test_custom_functions.py::TestCustomFunctions::test_null_to_nonetype",
        "file": "jmespath/lexer.py",
        "old": "    VALID_IDENTIFIER = set(string.ascii_letters + string.digits + '_')",
        "new": "    VALID_IDENTIFIER = set(string.ascii_letters + '_')",
        "description": "Lexer.VALID_IDENTIFIER leaves out digits, so 'a1' lexes as 'a' and the "
                       "number 1 and the parser rejects the expression.",
    },
]
