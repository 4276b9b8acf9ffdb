"""Huge values in the frame: a 200 MB bytearray and a list of 10**7 ints."""

from kit import crash_in


def crash():
    blob = bytearray(200 * 1024 * 1024)
    numbers = list(range(10**7))
    empty = []
    return blob[0] + numbers[-1] / len(empty)


crash_in(crash)
