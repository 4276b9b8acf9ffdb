"""The one exception type that reaches the user as a one-line message, never a traceback."""


class AutodbgError(Exception):
    """A problem the user can act on; `str()` is the whole message, one line."""
