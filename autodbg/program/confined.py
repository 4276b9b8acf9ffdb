"""`python -m autodbg.program.confined ROOT (-m MODULE | SCRIPT) [ARGS...]`: run a program as
`python` would, confined to ROOT (autodbg.probe.confine): how a fix is verified."""

from __future__ import annotations

import os
import sys

from autodbg.probe import confine
from autodbg.program.target import Program, exit_status, print_user_traceback, run_program


def main(argv: list[str]) -> int:
    root, rest = argv[0], argv[1:]
    program = Program(rest[1], rest[1:], os.getcwd()) if rest[0] == "-m" else Program(None, rest, os.getcwd())
    try:
        confine.enter(root)
    except confine.Unconfined as why:
        print(f"{confine.UNCONFINED_MARK}{why}", file=sys.stderr)
        return confine.UNCONFINED_STATUS
    exc = run_program(program)
    if exc is not None and not isinstance(exc, SystemExit):
        print_user_traceback(exc)
    return exit_status(exc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
