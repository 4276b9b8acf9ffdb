"""The exceptions of autodbg's own: a problem the user can act on, and the watchdog's interruption."""


class AutodbgError(Exception):
    """A problem the user can act on; `str()` is the whole message, one line."""


class HangTimeout(Exception):
    """Raised in a test by the pytest watchdog (`--autodbg-hang-after`) when it ran too long: an
    Exception, not a KeyboardInterrupt, so pytest fails that test and goes on to the next."""

    def __init__(self, seconds: float, threads: dict[int, list]) -> None:
        super().__init__(f"still running after {seconds:g} s (--autodbg-hang-after {seconds:g})")
        self.seconds = seconds
        self.threads = threads  # the other threads' stacks when it was raised (autodbg.analysis.hang)
