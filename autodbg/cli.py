"""`autodbg` command line: each area registers its own subcommands; errors are one line."""

from __future__ import annotations

import argparse
import os
import sys

from autodbg.errors import AutodbgError
from autodbg.textsafe import say


def build_parser() -> argparse.ArgumentParser:
    # Imported here, not at module level, so `autodbg --help` stays fast; each module keeps its
    # heavy imports inside its command functions.
    from autodbg import bench, fix_cli, installer, model_cli, run, trust_cli

    parser = argparse.ArgumentParser(
        prog="autodbg",
        description="When Python crashes, a local model debugs the dying process and tells you why.",
    )
    from autodbg.version import __version__

    parser.add_argument("--version", action="version", version=f"autodbg {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    installer.register(sub)
    run.register(sub)
    model_cli.register(sub)
    trust_cli.register(sub)
    bench.register(sub)
    fix_cli.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    import autodbg.startup as startup

    startup.remember()  # before `autodbg run` runs the program
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args) or 0
    except AutodbgError as exc:
        say(f"autodbg: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        say("autodbg: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `autodbg status | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so exiting flushes nowhere, quietly
        return 141  # as a shell reports a process killed by SIGPIPE
    except OSError as exc:  # a cache dir that is a file, a full disk, a folder not yours: the user's to fix
        where = f"{exc.filename}: " if exc.filename else ""
        say(f"autodbg: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug or a broken install: still one line, unless asked for more
        from autodbg.settings import debug

        if debug():
            raise
        message = " ".join(str(exc).split())
        say(f"autodbg: internal error: {type(exc).__name__}: {message}", file=sys.stderr)
        return 1
