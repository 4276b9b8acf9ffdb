"""`autodbg install`, `uninstall`, `status`: turn the crash hook on and off in a virtual environment.

Installing the package ships the hook (autodbg.pth at the root of site-packages, removed by
`pip uninstall`); these commands only write or remove the marker file that enables it, plus, on
request, a sitecustomize.py for where the .pth alone is not enough. `uninstall --all` also has pip
remove the package, so that nothing autodbg wrote stays in the venv.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from autodbg import _boot
from autodbg.errors import AutodbgError
from autodbg.files import write_shared
from autodbg.terminal import is_tty
from autodbg.textsafe import say, terminal_safe

# One source of truth, sitecustomize_template/sitecustomize.py: this path is a symlink to it in
# the checkout, and the wheel holds the file itself.
SITECUSTOMIZE_TEMPLATE = Path(__file__).parent / "_hook" / "sitecustomize.py"
# Where `install --sitecustomize` keeps the venv's own sitecustomize.py; the template runs it.
PREVIOUS_SITECUSTOMIZE = "_autodbg_prev_sitecustomize.py"
# Only our sitecustomize.py starts with this, so uninstall never deletes anybody else's.
OUR_SITECUSTOMIZE_START = '"""Written by `autodbg install --sitecustomize`'


@dataclass(frozen=True)
class Venv:
    python: str
    prefix: Path
    purelib: Path

    @property
    def marker(self) -> Path:
        return self.prefix / _boot.MARKER

    @property
    def pth(self) -> Path:
        return self.purelib / "autodbg.pth"

    @property
    def sitecustomize(self) -> Path:
        return self.purelib / "sitecustomize.py"

    @property
    def previous_sitecustomize(self) -> Path:
        return self.purelib / PREVIOUS_SITECUSTOMIZE


def register(sub) -> None:
    venv_help = "the virtual environment to change (default: the active one)"
    p = sub.add_parser("install", help="enable the crash hook in a virtual environment",
                       description="Enable autodbg's crash hook in a virtual environment where "
                                   "autodbg is installed. Undo with `autodbg uninstall`.")
    p.add_argument("--venv", type=Path, metavar="PATH", help=venv_help)
    p.add_argument("--sitecustomize", action="store_true",
                   help="also hook from sitecustomize.py, which runs after every .pth file "
                        "(and runs the venv's own sitecustomize first)")
    p.set_defaults(func=install)

    p = sub.add_parser("uninstall", help="disable the crash hook (with --all, remove autodbg from the venv)")
    p.add_argument("--venv", type=Path, metavar="PATH", help=venv_help)
    p.add_argument("--all", action="store_true",
                   help="also remove the package (pip uninstall autodbg): nothing autodbg wrote stays in the venv")
    p.set_defaults(func=uninstall)

    p = sub.add_parser("status", help="say whether the crash hook would run, and why")
    p.add_argument("--venv", type=Path, metavar="PATH", help=venv_help)
    p.set_defaults(func=status)


def install(args) -> int:
    venv = find_venv(args.venv)
    if not venv.pth.is_file():
        raise AutodbgError(f"autodbg is not installed in {venv.prefix} (no {venv.pth}); "
                           f"install it there first: {venv.python} -m pip install autodbg")
    _write(venv.marker, "Written by `autodbg install`: enables autodbg here. "
                        "`autodbg uninstall` removes it.\n")
    say(f"autodbg: enabled the crash hook in {venv.prefix} (wrote {venv.marker})")
    if args.sitecustomize:
        _install_sitecustomize(venv)
    venv_flag = f" --venv {args.venv}" if args.venv else ""
    say(f"autodbg: undo with `autodbg uninstall{venv_flag}`; AUTODBG=0 turns it off for one run")
    _offer_model()
    return 0


def uninstall(args) -> int:
    venv = find_venv(args.venv)
    did = False
    if venv.marker.exists():
        _remove(venv.marker)
        say(f"autodbg: disabled the crash hook in {venv.prefix} (removed {venv.marker})")
        did = True
    if _is_ours(venv.sitecustomize):
        _remove(venv.sitecustomize)
        say(f"autodbg: removed {venv.sitecustomize}")
        if venv.previous_sitecustomize.exists():
            os.replace(venv.previous_sitecustomize, venv.sitecustomize)
            say(f"autodbg: restored the previous {venv.sitecustomize}")
        _remove_compiled(venv)
        did = True
    if not did and not args.all:
        say(f"autodbg: the crash hook was not enabled in {venv.prefix}; nothing to do")
    if args.all:
        _remove_package(venv)
    elif venv.pth.is_file():
        say("autodbg: the package stays installed; `autodbg uninstall --all` removes it too")
    return 0


def _remove_compiled(venv: Venv) -> None:
    """The bytecode Python wrote for our sitecustomize.py (and for theirs under its kept name), and
    the __pycache__ folder if that leaves it empty: files of ours too."""
    for source in (venv.sitecustomize, venv.previous_sitecustomize):
        _remove(Path(importlib.util.cache_from_source(str(source))))
    cache = venv.purelib / "__pycache__"
    try:
        cache.rmdir()
    except OSError:
        pass  # not there, or other modules' bytecode is in it


def _remove_package(venv: Venv) -> None:
    """pip uninstall autodbg, in VENV: the hook's .pth files, the package, its scripts."""
    if not venv.pth.is_file():
        say(f"autodbg: the package is not installed in {venv.prefix}")
        return
    try:
        done = subprocess.run([venv.python, "-m", "pip", "uninstall", "--yes", "--quiet", "autodbg"],
                              capture_output=True, text=True, env={**os.environ, "AUTODBG": "0"}, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AutodbgError(f"cannot run {venv.python} -m pip: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise AutodbgError(f"pip could not remove autodbg from {venv.prefix}: {last} "
                           "(remove it with the tool that installed it)")
    say(f"autodbg: removed the package from {venv.prefix}")


def status(args) -> int:
    venv = find_venv(args.venv)
    rows = []
    if not venv.pth.is_file():
        rows.append(("installed", "no", f"no {venv.pth}"))
    else:
        rows.append(("installed", "yes", str(venv.pth)))
        rows += _hook_status(venv)
    if _is_ours(venv.sitecustomize):
        rows.append(("sitecustomize", "yes", str(venv.sitecustomize)))
    rows.append(_model_row())
    rows += _setting_rows()
    rows += _probe_rows()
    say(f"autodbg in {venv.prefix} ({venv.python})")
    what_width = max(len(what) for what, _, _ in rows)
    state_width = max(len(state) for _, state, _ in rows)
    for what, state, why in rows:
        say(f"  {what:<{what_width}}  {state:<{state_width}}  {why}")
    return 0


def find_venv(path: Path | None) -> Venv:
    """The venv at PATH, or the one running autodbg. Never a system Python."""
    if path is None:
        if sys.prefix == sys.base_prefix:
            raise AutodbgError("no virtual environment is active: activate one or pass --venv PATH "
                               "(autodbg does not change a system Python)")
        return Venv(sys.executable, Path(sys.prefix), Path(sysconfig.get_path("purelib")))
    python = path / "bin" / "python"
    if not python.exists():
        raise AutodbgError(f"{path} is not a virtual environment: there is no {python}")
    prefix, base_prefix, purelib = json.loads(_ask(
        str(python), "import json, sys, sysconfig; "
                     "print(json.dumps([sys.prefix, sys.base_prefix, sysconfig.get_path('purelib')]))"))
    if prefix == base_prefix:
        raise AutodbgError(f"{path} is not a virtual environment "
                           "(autodbg does not change a system Python)")
    return Venv(str(python), Path(prefix), Path(purelib))


def _ask(python: str, code: str) -> str:
    """Run CODE in PYTHON with the hook off; return what it printed."""
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True,
                              env={**os.environ, "AUTODBG": "0"}, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AutodbgError(f"cannot run {python}: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise AutodbgError(f"{python} failed: {last}")
    return done.stdout


def _install_sitecustomize(venv: Venv) -> None:
    """All or nothing: the venv's own sitecustomize.py stays in place, byte for byte, unless ours
    is written and is the one Python imports there."""
    target, kept = venv.sitecustomize, venv.previous_sitecustomize
    had = target.exists()  # theirs, ours from an earlier install, or nothing
    theirs = had and not _is_ours(target)
    if theirs and kept.exists():
        raise AutodbgError(f"both {target} and {kept} exist; merge them by hand first")
    try:
        template = SITECUSTOMIZE_TEMPLATE.read_bytes()
    except OSError as exc:
        raise AutodbgError(f"cannot read {SITECUSTOMIZE_TEMPLATE}: {exc.strerror}") from None
    if theirs:
        try:  # a second name for their file (exclusive), so replacing the first loses nothing
            os.link(target, kept, follow_symlinks=False)
        except OSError as exc:
            raise AutodbgError(f"cannot keep {target} as {kept}: {exc.strerror}") from None
    try:
        try:
            write_shared(target, template)
        except OSError as exc:
            raise AutodbgError(f"cannot write {target}: {exc.strerror}") from None
        _check_imported(venv, target)
    except BaseException:
        if theirs:
            # Their file back under its name. Had ours not replaced it yet, both names are still one
            # file: the rename then does nothing, and the unlink drops the second name.
            os.replace(kept, target)
            kept.unlink(missing_ok=True)
        elif not had:
            _remove(target)
        raise
    if theirs:
        say(f"autodbg: moved the venv's own {target.name} to {kept}; autodbg's runs it first")
    say(f"autodbg: wrote {target}")


def _check_imported(venv: Venv, target: Path) -> None:
    # A sitecustomize earlier on sys.path (Debian puts one in the stdlib directory) would hide ours.
    # Search as `site` does at start-up: without the current directory that -c puts first.
    found = _ask(venv.python, "import sys, importlib.machinery as m; "
                              "path = sys.path[1:] if sys.path[:1] == [''] else sys.path; "
                              "s = m.PathFinder.find_spec('sitecustomize', path); "
                              "print(s.origin if s else '')").strip()
    if not found or Path(found).resolve() != target.resolve():
        raise AutodbgError(f"Python there imports {found or 'no sitecustomize'} instead of {target}, "
                           "so --sitecustomize cannot work in this venv (the .pth hook still does)")


def _is_ours(sitecustomize: Path) -> bool:
    try:
        with open(sitecustomize, encoding="utf-8") as f:
            return f.read(len(OUR_SITECUSTOMIZE_START)) == OUR_SITECUSTOMIZE_START
    except (OSError, UnicodeDecodeError):
        return False


def _hook_status(venv: Venv) -> list[tuple[str, str, str]]:
    """_boot.status() as seen by a fresh interpreter of VENV, on this terminal and environment."""
    code = "import json, autodbg._boot as b; print(json.dumps(b.status()))"
    try:
        # stderr stays the user's, so the TTY check sees what a crashing program would see.
        done = subprocess.run([venv.python, "-c", code], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AutodbgError(f"cannot run {venv.python}: {exc}") from None
    if done.returncode != 0:
        return [("hook", "broken", f"{venv.python} cannot import autodbg._boot")]
    return [tuple(row) for row in json.loads(done.stdout)]


def _model_row() -> tuple[str, str, str]:
    from autodbg.llm import download
    from autodbg.llm.registry import resolve_model

    from autodbg.settings import load_settings

    setting = load_settings().model
    source = f"AUTODBG_MODEL={setting}" if setting else "the default (AUTODBG_MODEL chooses another)"
    try:
        model = resolve_model(setting)
    except AutodbgError as exc:
        return ("model", "invalid", str(exc))
    if model is None:
        return ("model", "none", f"{source}: evidence only")
    from autodbg.llm.engine import missing_local_engine

    missing = missing_local_engine()
    if load_settings().remote is None and missing:
        return ("model", "no local engine", missing)
    if isinstance(model, Path):
        return ("model", str(model), source)
    here = download.local_path(model, download.hub_cache(load_settings().model_cache))
    return ("model", model.id, f"{source}; " + (str(here) if here else str(download.missing(model))))


def _setting_rows() -> list[tuple[str, str, str]]:
    """Each setting given anywhere, its value and where it came from; then what is wrong with them."""
    from autodbg.settings import load_settings, setting_sources

    rows = [(variable, "<set>" if variable == "AUTODBG_API_KEY" else setting.value or '""', f"from {setting.source}")
            for variable, setting in sorted(setting_sources().found.items())]
    return rows + [("warning", "", terminal_safe(warning)) for warning in load_settings().warnings]


def _probe_rows() -> list[tuple[str, str, str]]:
    """Where a crashed program is looked at, and which sandbox layers this machine gives probes."""
    from autodbg.probe.fork import available
    from autodbg.probe.sandbox import layers
    from autodbg.settings import load_settings

    wanted = load_settings().probe
    if not available():
        return [("probe", "inline", "no os.fork here: program code is looked at in the crashed process, no calls")]
    if not wanted:
        return [("probe", "inline", "AUTODBG_PROBE=0: program code is looked at in the crashed process, no calls")]
    rows = [("probe", "fork", "program code is looked at in sandboxed forks of the crashed process")]
    return rows + [(f"  {layer.name}", "yes" if layer.available else "no", layer.detail) for layer in layers()]


def _offer_model() -> None:
    """Offer to download the model now (the default one, or AUTODBG_MODEL's), not at a crash."""
    from autodbg.llm import download
    from autodbg.llm.registry import ModelSpec, resolve_model
    from autodbg.settings import load_settings

    settings = load_settings()
    model = resolve_model(settings.model)
    if not isinstance(model, ModelSpec) or settings.remote is not None:
        return  # the user's own .gguf file, none, or a model server
    from autodbg.llm.engine import missing_local_engine

    missing = missing_local_engine()
    if missing:
        say(f"autodbg: {missing}")
        return
    cache = download.hub_cache(settings.model_cache)
    if download.local_path(model, cache) is not None:
        say(f"autodbg: model {model.id} is here already")
        return
    pull = f"autodbg model pull {model.id}"
    can_ask = is_tty(sys.stdin) and is_tty(sys.stdout)
    if model.package or settings.download is False or (settings.download is None and not can_ask):
        say(f"autodbg: {download.missing(model)}")
        return
    if settings.download is None:  # asked; AUTODBG_DOWNLOAD=1 downloads without asking
        try:
            answer = input(f"Download {model.id} ({download.size_text(model.size)}) to {cache} now? [Y/n] ")
        except EOFError:
            answer = "n"
        if answer.strip().lower() not in ("", "y", "yes"):
            say(f"autodbg: later, `{pull}` downloads it")
            return
    try:
        path = download.pull(model, cache)
    except AutodbgError as exc:
        raise AutodbgError(f"{exc} (the crash hook is enabled; retry with `{pull}`)") from None
    say(f"autodbg: model saved to {path}")


def _write(path: Path, text: str) -> None:
    try:
        write_shared(path, text)
    except OSError as exc:
        raise AutodbgError(f"cannot write {path}: {exc.strerror}") from None


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise AutodbgError(f"cannot remove {path}: {exc.strerror}") from None
