"""What autodbg saw when it started, before the program ran: the environment's autodbg settings and
the working directory. A variable the program puts in os.environ itself (a `.env` it loads) or a
`chdir` it makes sets nothing of autodbg's.

The start-up hook (_autodbg_hook, in every interpreter of an enabled venv) remembers them first;
every other entry point calls `remember()` first too: the CLI, the pytest plugin and the IPython
extension. The first call wins.
"""

import _autodbg_hook
from _autodbg_hook import NETWORK_VARIABLES, OFF_WORDS, ON_WORDS, remember, switch  # noqa: F401 -- this floor's API


def environ():
    """The AUTODBG_* and network variables as they were at start-up."""
    remember()  # a no-op but where no entry point ran: autodbg used as a library
    return _autodbg_hook.seen[0]


def cwd():
    """The working directory at start-up (None if it had been removed)."""
    remember()
    return _autodbg_hook.seen[1]
