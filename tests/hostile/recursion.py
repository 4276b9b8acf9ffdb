"""A crash 5000 calls deep."""

import sys

from kit import crash_in

sys.setrecursionlimit(12000)


def descend(depth, path):
    if depth == 0:
        return path["missing"]
    return descend(depth - 1, path)


def crash():
    return descend(5000, {})


crash_in(crash)
