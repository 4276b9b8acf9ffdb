"""autodbg's settings, read in one place and checked: the AUTODBG_* environment variables, which
override `[tool.autodbg]` in the nearest pyproject.toml, which overrides the user's config file
(`config.toml` in platformdirs' config dir, table `[autodbg]` or top level). The start-up hook,
`autodbg._boot`, reads AUTODBG itself: it must import nothing."""

from __future__ import annotations

import os
import stat
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from autodbg.errors import AutodbgError
from autodbg.redact import parse_additions

DEFAULT_TIMEOUT = 60.0  # seconds for the whole investigation on a 2-core laptop
DEFAULT_TURNS = 2  # debugger commands the model may run before answering (the budget's plan may stop it sooner)


@dataclass(frozen=True)
class Settings:
    model: str | None  # AUTODBG_MODEL as given: registry id, path to a .gguf, "none", or None (default)
    report_path: str | None  # AUTODBG_REPORT: also write the result as JSON here
    timeout: float  # AUTODBG_TIMEOUT
    verbose: bool  # AUTODBG_VERBOSE=1: print the whole transcript
    threads: int | None  # AUTODBG_THREADS: ggml threads; None = the cores that are free
    download: bool  # AUTODBG_DOWNLOAD=0 forbids downloading a model at crash time
    turns: int  # AUTODBG_TURNS: debugger commands before the answer; 0 answers from the evidence alone
    debug: bool  # AUTODBG_DEBUG=1: autodbg's own errors show their traceback (for bug reports)
    redact: tuple[str, ...] = ()  # AUTODBG_REDACT: extra secret names and `re:` patterns, comma-separated
    probe: bool = True  # AUTODBG_PROBE=0: look at the program in the crashed process, not in sandboxed forks
    pytest: bool = False  # AUTODBG_PYTEST=1 (or pytest = true): the pytest plugin is on without --autodbg
    remote: Remote | None = None  # AUTODBG_ENGINE=remote: the model server; None: the local engine


@dataclass(frozen=True)
class Remote:
    base_url: str  # AUTODBG_BASE_URL: the server's OpenAI base URL, ending in /v1
    model: str  # AUTODBG_REMOTE_MODEL: a model id the server lists at /v1/models
    api_key: str | None  # AUTODBG_API_KEY, or the api_key file in the user config dir
    context: int | None  # AUTODBG_REMOTE_CONTEXT: tokens, for servers that do not report it


# Keys of the config files, and the variable each stands for (no API key: a secret has no place
# in a project file; it comes from the environment or its own private file).
CONFIG_KEYS = {"model": "AUTODBG_MODEL", "report": "AUTODBG_REPORT", "timeout": "AUTODBG_TIMEOUT",
               "verbose": "AUTODBG_VERBOSE", "threads": "AUTODBG_THREADS", "download": "AUTODBG_DOWNLOAD",
               "turns": "AUTODBG_TURNS", "debug": "AUTODBG_DEBUG", "redact": "AUTODBG_REDACT",
               "probe": "AUTODBG_PROBE", "engine": "AUTODBG_ENGINE", "base_url": "AUTODBG_BASE_URL",
               "remote_model": "AUTODBG_REMOTE_MODEL", "remote_context": "AUTODBG_REMOTE_CONTEXT",
               "pytest": "AUTODBG_PYTEST"}


@dataclass(frozen=True)
class Setting:
    variable: str  # AUTODBG_...
    value: str  # as the variable would hold it
    source: str  # where it was set: "the environment", or a file


def setting_sources(environ=os.environ, cwd: Path | None = None) -> dict[str, Setting]:
    """Every setting given anywhere, by variable, from where it wins: the environment over the
    nearest pyproject.toml over the user's config file."""
    found: dict[str, Setting] = {}
    for path, table in (_user_config(), _project_config(cwd or Path.cwd())):
        for key, value in (table or {}).items():
            if key not in CONFIG_KEYS:
                raise AutodbgError(f"{path}: no setting {key!r}; the settings are: {', '.join(CONFIG_KEYS)}")
            found[CONFIG_KEYS[key]] = Setting(CONFIG_KEYS[key], _as_variable(path, key, value), str(path))
    for variable, value in environ.items():
        if variable.startswith("AUTODBG"):
            found[variable] = Setting(variable, value, "the environment")
    return found


def _as_variable(path: Path, key: str, value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    if key == "redact" and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ",".join(re.sub(r",(?![^{]*\})", r"\\x2c", v) for v in value)  # AUTODBG_REDACT's commas
    raise AutodbgError(f"{path}: {key} must be a string, a number or true/false" +
                       (" (redact: a list of strings)" if key == "redact" else ""))


def _read_toml(path: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as err:
        raise AutodbgError(f"cannot read {path}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise AutodbgError(f"{path}: not valid TOML: {err}") from None


def _project_config(cwd: Path) -> tuple[Path | None, dict | None]:
    """`[tool.autodbg]` of the nearest pyproject.toml from CWD up that has one."""
    for folder in (cwd, *cwd.parents):
        path = folder / "pyproject.toml"
        if path.is_file():
            table = _read_toml(path).get("tool", {}).get("autodbg")
            if table is not None:
                return path, _table(path, table)
    return None, None


def _user_config() -> tuple[Path | None, dict | None]:
    import platformdirs

    path = Path(platformdirs.user_config_dir("autodbg", appauthor=False)) / "config.toml"
    if not path.is_file():
        return None, None
    data = _read_toml(path)
    return path, _table(path, data.get("autodbg", data))


def _table(path: Path, table) -> dict:
    if not isinstance(table, dict):
        raise AutodbgError(f"{path}: the autodbg settings must be a table")
    return table


def load_settings(environ=os.environ) -> Settings:
    sources = setting_sources(environ)
    try:
        return _settings({variable: s.value for variable, s in sources.items()})
    except AutodbgError as err:  # say which file a bad value came from
        where = next((s.source for v, s in sources.items() if str(err).startswith(v) and s.source != "the environment"), None)
        raise AutodbgError(f"{err} (set in {where})" if where else str(err)) from None


def _settings(environ: dict[str, str]) -> Settings:
    return Settings(
        model=environ.get("AUTODBG_MODEL") or None,
        report_path=environ.get("AUTODBG_REPORT") or None,
        timeout=_number(environ, "AUTODBG_TIMEOUT", DEFAULT_TIMEOUT, float),
        verbose=environ.get("AUTODBG_VERBOSE", "0") not in ("", "0"),
        threads=_number(environ, "AUTODBG_THREADS", None, int),
        download=environ.get("AUTODBG_DOWNLOAD", "1") != "0",
        turns=_number(environ, "AUTODBG_TURNS", DEFAULT_TURNS, int, allow_zero=True),
        debug=debug(environ),
        redact=_redact_entries(environ),
        probe=environ.get("AUTODBG_PROBE", "1") != "0",
        pytest=environ.get("AUTODBG_PYTEST", "0") not in ("", "0"),
        remote=_remote(environ),
    )


def turned_off(environ=os.environ) -> bool:
    """AUTODBG=0: everything off, output byte-identical to plain Python."""
    return environ.get("AUTODBG") == "0"


def debug(environ=os.environ) -> bool:
    """AUTODBG_DEBUG=1; read on its own because it must work when the other settings are bad."""
    return environ.get("AUTODBG_DEBUG", "0") not in ("", "0")


def _remote(environ) -> Remote | None:
    engine = environ.get("AUTODBG_ENGINE") or "local"
    if engine not in ("local", "remote"):
        raise AutodbgError(f"AUTODBG_ENGINE must be local or remote, not {engine!r}")
    if engine == "local":
        return None
    base_url = _base_url(environ)
    model = environ.get("AUTODBG_REMOTE_MODEL")
    if not model:
        raise AutodbgError("AUTODBG_ENGINE=remote needs AUTODBG_REMOTE_MODEL (a model id the server lists at /v1/models)")
    return Remote(base_url=base_url, model=model, api_key=environ.get("AUTODBG_API_KEY") or _api_key_file(),
                  context=_number(environ, "AUTODBG_REMOTE_CONTEXT", None, int))


def _base_url(environ) -> str:
    base_url = environ.get("AUTODBG_BASE_URL", "").rstrip("/")
    parts = urlsplit(base_url)
    if not base_url:
        raise AutodbgError("AUTODBG_ENGINE=remote needs AUTODBG_BASE_URL (like http://gpu-box:8080/v1)")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AutodbgError(f"AUTODBG_BASE_URL={base_url!r} is not an http:// or https:// URL")
    try:
        parts.port
    except ValueError:
        raise AutodbgError(f"AUTODBG_BASE_URL={base_url!r} has a bad port") from None
    return base_url


def api_key_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("autodbg", appauthor=False)) / "api_key"


def _api_key_file() -> str | None:
    """The key in the user's config file, which only its owner may read (it is a secret)."""
    path = api_key_path()
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise AutodbgError(f"{path} is open to other users (mode {stat.S_IMODE(mode):o}): chmod 600 {path}")
        return path.read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise AutodbgError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None


def _number(environ, name: str, default, kind, allow_zero: bool = False):
    text = environ.get(name)
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise AutodbgError(f"{name}={text!r} is not a number") from None
    if value < 0 or (value == 0 and not allow_zero):
        raise AutodbgError(f"{name} must be {'at least 0' if allow_zero else 'positive'}, not {text}")
    return value


def _redact_entries(environ) -> tuple[str, ...]:
    """AUTODBG_REDACT: `name,re:PATTERN,...`. A comma in a pattern's `{m,n}` does not split; write
    any other comma in a pattern as `\\x2c`."""
    text = environ.get("AUTODBG_REDACT", "")
    entries = tuple(e.strip() for e in re.split(r",(?![^{]*\})", text) if e.strip())
    try:
        parse_additions(entries)
    except AutodbgError as err:
        raise AutodbgError(f"AUTODBG_REDACT: {err}") from None
    return entries
