"""What autodbg saw when it started, before the program ran: the environment's autodbg settings and
the working directory. A variable the program puts in os.environ itself (a `.env` it loads) or a
`chdir` it makes sets nothing of autodbg's.

Every entry point calls `remember()` first: the start-up hook (autodbg._boot, in every interpreter
of an enabled venv, so this imports nothing and costs microseconds), the CLI, the pytest plugin
and the IPython extension. The first call wins.
"""

import os

# The words of a boolean setting, in any case; autodbg.pth spells them out too (it imports nothing).
ON_WORDS = ("1", "true", "yes", "on")
OFF_WORDS = ("0", "false", "no", "off")

# What the remote engine reads of the environment besides AUTODBG_*: its proxy and certificates.
NETWORK_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")

_seen = None  # (variables, working directory), once remembered


def remember():
    """Keep the AUTODBG_* and network variables and the working directory as they are now."""
    global _seen
    if _seen is None:
        variables = {k: v for k, v in os.environ.items() if k.startswith("AUTODBG") or k.upper() in NETWORK_VARIABLES}
        try:
            cwd = os.getcwd()
        except OSError:  # the working directory was removed
            cwd = None
        _seen = (variables, cwd)


def environ():
    """The AUTODBG_* and network variables as they were at start-up."""
    remember()  # a no-op but where no entry point ran: autodbg used as a library
    return _seen[0]


def cwd():
    """The working directory at start-up (None if it had been removed)."""
    remember()
    return _seen[1]


def switch(value):
    """A boolean setting's VALUE: True (1/true/yes/on, any case), False (0/false/no/off), or None
    (unset, or anything else: the caller's default)."""
    word = (value or "").strip().lower()
    return True if word in ON_WORDS else False if word in OFF_WORDS else None
