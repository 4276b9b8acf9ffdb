"""`autodbg trust PATH | --list | --remove PATH`: the projects whose [tool.autodbg] may set every setting.

A project's pyproject.toml is not yours: whoever wrote the folder a program runs in wrote it. Until
you trust it, its [tool.autodbg] may set only how much autodbg shows (settings.PROJECT_KEYS);
trusted, every setting, for as long as that table stays as it was (autodbg.settings keeps a digest
of it in your config dir).
"""

from __future__ import annotations

from pathlib import Path

from autodbg.errors import AutodbgError
from autodbg.textsafe import say


def register(sub) -> None:
    parser = sub.add_parser(
        "trust", help="let a project's [tool.autodbg] set every setting",
        description="A project's [tool.autodbg] may set only how much autodbg shows unless you trust it; "
                    "trusted, it may set every setting while the table stays as it is now (a change needs "
                    "trusting again). The API key still goes only to a server you name yourself.")
    parser.add_argument("path", nargs="?", type=Path, metavar="PATH", help="the project's folder or its pyproject.toml")
    parser.add_argument("--list", action="store_true", help="the trusted projects, and whether each is as it was trusted")
    parser.add_argument("--remove", type=Path, metavar="PATH", help="stop trusting the project at PATH")
    parser.set_defaults(func=trust)


def trust(args) -> int:
    from autodbg import settings

    if sum((args.path is not None, args.list, args.remove is not None)) != 1:
        raise AutodbgError("autodbg trust needs one of: PATH, --list, --remove PATH")
    if args.list:
        projects = settings.trusted_projects()
        for pyproject, digest in sorted(projects.items()):
            say(f"{pyproject}  {_state(Path(pyproject), digest)}")
        if not projects:
            say("autodbg: no project is trusted")
        return 0
    if args.remove is not None:
        say(f"autodbg: no longer trusting {settings.distrust_project(args.remove)}")
        return 0
    pyproject, table = settings.trust_project(args.path)
    sets = ", ".join(table) or "nothing yet"
    say(f"autodbg: trusted {pyproject}: its [tool.autodbg] may set every setting while it stays as it is now "
          f"(it sets {sets})")
    return 0


def _state(pyproject: Path, digest: str) -> str:
    from autodbg import settings

    try:
        table = settings.project_table(pyproject)
    except AutodbgError as err:
        return f"unreadable ({err})"
    if table is not None and settings.table_digest(table) == digest:
        return "as trusted"
    return "changed since you trusted it: only its harmless settings apply"
