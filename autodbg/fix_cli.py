"""`autodbg fix`: take the last crash's suggested change, from its JSON report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from autodbg.errors import AutodbgError
from autodbg.textsafe import say


def register(sub) -> None:
    p = sub.add_parser("fix", help="show the last crash's suggested change and apply it",
                       description="Show the change autodbg suggested for the last crash (its JSON report) "
                                   "and apply it after you say yes; a file changed since the crash is not touched.")
    p.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    p.add_argument("--patch", metavar="FILE", help="write the change as a unified diff to FILE instead (`patch -p1`)")
    p.add_argument("--report", metavar="FILE", help="the report to read (default: AUTODBG_REPORT, else the last crash's)")
    p.set_defaults(func=fix_command)


def fix_command(args) -> int:
    from autodbg.files import last_report_file, write_private
    from autodbg.fix.patch import apply_patch
    from autodbg.pipeline import ask_yes
    from autodbg.records import Patch
    from autodbg.report import HEADINGS, diff_lines, make_console
    from autodbg.settings import load_settings
    from autodbg.terminal import is_tty

    path = Path(args.report or load_settings().report_path or last_report_file())
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AutodbgError(f"no crash report at {path}: run the program that crashed first") from None
    except (OSError, ValueError) as err:
        raise AutodbgError(f"cannot read the report {path}: {err}") from None
    if not isinstance(data, dict) or not data.get("patch"):
        raise AutodbgError(f"the last crash ({path}) has no change that ran to offer")
    patch = Patch.from_json(data["patch"])
    if args.patch:
        write_private(Path(args.patch), patch.diff)
        say(f"autodbg: wrote the change to {args.patch}; apply it in {patch.root} with `patch -p1 < {args.patch}`")
        return 0
    console = make_console(file=sys.stdout)
    heading, style = HEADINGS[patch.label]
    console.print(heading, style=style, markup=False)
    for line in diff_lines(patch.diff):
        console.print(line)
    if not args.yes:
        if not (is_tty(sys.stdin) and is_tty(sys.stderr)):
            say("autodbg: not applied: no terminal to ask in (`autodbg fix --yes` applies it, "
                  "`--patch FILE` writes it)", file=sys.stderr)
            return 1
        if not ask_yes(f"Apply this change ({patch.label}) to {patch.path}? [y/N] "):
            say("autodbg: not applied", file=sys.stderr)
            return 1
    apply_patch(patch)
    say(f"autodbg: applied the change to {patch.file}")
    return 0
