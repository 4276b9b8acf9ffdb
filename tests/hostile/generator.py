"""Generators and iterators on the failing line: their positions must not move."""

import itertools

from kit import crash_in, log, state_at_exit


def numbers():
    n = 0
    while True:
        log(f"numbers yields {n}")
        yield n
        n += 1


class Countdown:
    def __init__(self):
        self.n = 10

    def __iter__(self):
        log("Countdown.__iter__")
        return self

    def __next__(self):
        log("Countdown.__next__")
        self.n -= 1
        return self.n


def crash():
    gen = numbers()
    lazy = (n * 10 for n in range(100))
    it = iter([7, 8, 9])
    counter = itertools.count(5)
    countdown = Countdown()
    first = [next(gen), next(lazy), next(it), next(counter), next(countdown)]
    state_at_exit(lambda: f"next values {next(gen)} {next(lazy)} {next(it)} {next(counter)} {next(countdown)}")
    return next(gen) + next(lazy) + next(it) + next(counter) + next(countdown) + 1 / len(first[5:])


crash_in(crash)
