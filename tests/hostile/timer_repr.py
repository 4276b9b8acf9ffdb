"""A `__repr__` that cancels ITIMER_REAL (any in-process time limit) and then blocks."""

import signal

from kit import block_on_lock, crash_in, log


class Sneaky:
    def __repr__(self):
        log("Sneaky.__repr__ cancels the timer")
        signal.setitimer(signal.ITIMER_REAL, 0)
        block_on_lock()
        return "Sneaky()"


def crash():
    sneaky = Sneaky()
    totals = {}
    return sneaky, totals["sum"]


crash_in(crash)
