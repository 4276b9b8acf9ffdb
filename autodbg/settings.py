"""autodbg's settings, read in one place and checked.

Where a setting comes from, strongest first:
- the environment as autodbg saw it at start-up (autodbg.startup), before the program ran: what
  the program puts in os.environ itself (a `.env` it loads) sets nothing;
- `[tool.autodbg]` of the nearest pyproject.toml from the start-up working directory up: every
  setting where you trust that file as it is now (`autodbg trust`), else only PROJECT_KEYS, which
  change how much autodbg shows, not where the evidence goes, what runs or what is hidden;
- your own config.toml (in platformdirs' config dir, table `[autodbg]` or top level).

A bad value never stops autodbg: it becomes a one-line warning naming the variable and where it was
set, and that setting keeps its default (or the nearest value in its range). The start-up hook
reads AUTODBG itself, with the same words (autodbg.startup.switch).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import autodbg.startup as startup
from autodbg.errors import AutodbgError
from autodbg.files import config_dir, write_private
from autodbg.redact import parse_additions, pattern_problem

DEFAULT_TIMEOUT = 60.0  # seconds for the whole investigation on a 2-core laptop
TIMEOUT_RANGE = (1.0, 600.0)  # seconds: no crash needed ten minutes; `timeout = 1e9` is a typo or a plant
DEFAULT_TURNS = 2  # debugger commands the model may run before answering (the budget's plan may stop it sooner)
ENVIRONMENT = "the environment"
TRUSTED_FILE = "trusted.json"  # in the user config dir: {pyproject.toml: sha256 of its [tool.autodbg] then}


@dataclass(frozen=True)
class Settings:
    model: str | None  # AUTODBG_MODEL as given: registry id, path to a .gguf, "none", or None (default)
    report_path: str | None  # AUTODBG_REPORT: also write the result as JSON here
    timeout: float  # AUTODBG_TIMEOUT, within TIMEOUT_RANGE
    verbose: bool  # AUTODBG_VERBOSE: print the whole transcript
    threads: int | None  # AUTODBG_THREADS: ggml threads; None = the cores that are free
    download: bool | None  # AUTODBG_DOWNLOAD: a missing model is downloaded without asking / never; None: asked in a terminal
    turns: int  # AUTODBG_TURNS: debugger commands before the answer; 0 answers from the evidence alone
    debug: bool  # AUTODBG_DEBUG: autodbg's own errors show their traceback (for bug reports)
    redact: tuple[str, ...] = ()  # AUTODBG_REDACT: extra secret names and `re:` patterns that passed their trial
    probe: bool = True  # AUTODBG_PROBE=0: look at the program in the crashed process, not in sandboxed forks
    pytest: bool = False  # AUTODBG_PYTEST (or pytest = true): the pytest plugin is on without --autodbg
    remote: Remote | None = None  # AUTODBG_ENGINE=remote: the model server; None: the local engine
    engine_problem: str | None = None  # why the engine asked for cannot start (remote without a URL): evidence only
    model_cache: str | None = None  # AUTODBG_MODEL_CACHE: where models are downloaded; None: the Hugging Face cache
    warnings: tuple[str, ...] = ()  # one line each: a value left out or changed, and why


@dataclass(frozen=True)
class Remote:
    base_url: str  # AUTODBG_BASE_URL: the server's OpenAI base URL, ending in /v1
    model: str  # AUTODBG_REMOTE_MODEL: a model id the server lists at /v1/models
    api_key: str | None  # AUTODBG_API_KEY, or the api_key file; only for a server you named yourself
    context: int | None  # AUTODBG_REMOTE_CONTEXT: tokens, for servers that do not report it
    proxy: str | None = None  # HTTP(S)_PROXY or ALL_PROXY at start-up, unless NO_PROXY names the host
    ca_file: str | None = None  # SSL_CERT_FILE at start-up: the certificates to trust instead of certifi's
    ca_dir: str | None = None  # SSL_CERT_DIR at start-up


# Keys of the config files, and the variable each stands for (no API key: a secret has no place
# in a project file; it comes from the environment or its own private file).
CONFIG_KEYS = {"model": "AUTODBG_MODEL", "report": "AUTODBG_REPORT", "timeout": "AUTODBG_TIMEOUT",
               "verbose": "AUTODBG_VERBOSE", "threads": "AUTODBG_THREADS", "download": "AUTODBG_DOWNLOAD",
               "turns": "AUTODBG_TURNS", "debug": "AUTODBG_DEBUG", "redact": "AUTODBG_REDACT",
               "probe": "AUTODBG_PROBE", "engine": "AUTODBG_ENGINE", "base_url": "AUTODBG_BASE_URL",
               "remote_model": "AUTODBG_REMOTE_MODEL", "remote_context": "AUTODBG_REMOTE_CONTEXT",
               "pytest": "AUTODBG_PYTEST", "model_cache": "AUTODBG_MODEL_CACHE"}
KEY_OF = {variable: key for key, variable in CONFIG_KEYS.items()}
# What a project may set without your trust: how much autodbg shows and asks the model, and whether
# the pytest plugin is on (which a project's own pytest options can do anyway).
PROJECT_KEYS = ("verbose", "turns", "debug", "pytest")


@dataclass(frozen=True)
class Setting:
    variable: str  # AUTODBG_...
    value: str  # as the variable would hold it
    source: str  # where it was set: ENVIRONMENT, or a file's path
    yours: bool  # set by you (the environment at start-up, your own config file), not by a project

    def named(self) -> str:
        """As its source spells it: `AUTODBG_TURNS='x' in the environment`, `turns = 'x' in FILE`."""
        if self.source == ENVIRONMENT:
            return f"{self.variable}={self.value!r} in the environment"
        return f"{KEY_OF.get(self.variable, self.variable)} = {self.value!r} in {self.source}"


@dataclass(frozen=True)
class Sources:
    found: dict[str, Setting]  # every setting given anywhere, by variable, from where it wins
    warnings: tuple[str, ...]  # what was left out of the files, and why


@dataclass(frozen=True)
class _Layer:
    path: Path  # a config file
    table: dict  # its autodbg settings, as TOML gave them
    yours: bool  # your own config file, not a project's


def load_settings(environ: dict[str, str] | None = None, cwd: Path | None = None) -> Settings:
    """The settings in effect; ENVIRON and CWD default to what autodbg saw at start-up. Never raises."""
    environ = startup.environ() if environ is None else environ
    sources = setting_sources(environ, cwd)
    read = _Reader(sources.found)
    remote, engine_problem = _engine(read, environ)
    autodbg = sources.found.get("AUTODBG")
    if autodbg is not None and autodbg.value.strip() and startup.switch(autodbg.value) is None:
        read.warnings.append(f"{autodbg.named()} is not 1/true/yes/on or 0/false/no/off: "
                             "on only where `autodbg install` enabled it, in a terminal")
    settings = Settings(
        model=read.text("AUTODBG_MODEL"),
        report_path=read.text("AUTODBG_REPORT"),
        timeout=read.number("AUTODBG_TIMEOUT", DEFAULT_TIMEOUT, float, *TIMEOUT_RANGE),
        verbose=read.flag("AUTODBG_VERBOSE", False),
        threads=read.number("AUTODBG_THREADS", None, int, 1),
        download=read.flag("AUTODBG_DOWNLOAD", None),
        turns=read.number("AUTODBG_TURNS", DEFAULT_TURNS, int, 0),
        debug=read.flag("AUTODBG_DEBUG", False),
        redact=_redact_entries(read),
        probe=read.flag("AUTODBG_PROBE", True),
        pytest=read.flag("AUTODBG_PYTEST", False),
        remote=remote,
        engine_problem=engine_problem,
        model_cache=read.text("AUTODBG_MODEL_CACHE"),
    )
    return dataclasses.replace(settings, warnings=(*sources.warnings, *read.warnings))


def turned_off(environ: dict[str, str] | None = None) -> bool:
    """AUTODBG=0 (or false, no, off): everything off, output byte-identical to plain Python."""
    environ = startup.environ() if environ is None else environ
    return startup.switch(environ.get("AUTODBG")) is False


def debug(environ: dict[str, str] | None = None) -> bool:
    """AUTODBG_DEBUG from the environment alone: read where autodbg itself failed."""
    environ = startup.environ() if environ is None else environ
    return startup.switch(environ.get("AUTODBG_DEBUG")) is True


# --- where the settings are ---------------------------------------------------------------------

def setting_sources(environ: dict[str, str] | None = None, cwd: Path | None = None) -> Sources:
    """Every setting given anywhere, by variable, from where it wins: the environment over the
    nearest pyproject.toml over the user's config file."""
    environ = startup.environ() if environ is None else environ
    if cwd is None and startup.cwd() is not None:
        cwd = Path(startup.cwd())
    warnings: list[str] = []
    found: dict[str, Setting] = {}
    for layer in (_user_config(warnings), cwd and _project_config(cwd, warnings)):
        for key, value in (layer.table.items() if layer else ()):
            if key not in CONFIG_KEYS:
                warnings.append(f"{layer.path}: no setting {key!r} (left out); the settings are: {', '.join(CONFIG_KEYS)}")
                continue
            text = _as_variable(key, value)
            if text is None:
                warnings.append(f"{layer.path}: {key} must be a string, a number or true/false"
                                f"{' (redact: a list of strings)' if key == 'redact' else ''} (left out)")
                continue
            found[CONFIG_KEYS[key]] = Setting(CONFIG_KEYS[key], text, str(layer.path), layer.yours)
    for variable, value in environ.items():
        if variable.startswith("AUTODBG"):
            found[variable] = Setting(variable, value, ENVIRONMENT, True)
    return Sources(found, tuple(warnings))


def _as_variable(key: str, value) -> str | None:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    if key == "redact" and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ",".join(re.sub(r",(?![^{]*\})", r"\\x2c", v) for v in value)  # AUTODBG_REDACT's commas
    return None


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


def _project_config(cwd: Path, warnings: list[str]) -> _Layer | None:
    """`[tool.autodbg]` of the nearest pyproject.toml from CWD up that has one: the whole table if
    you trust it as it is, else its PROJECT_KEYS (and its unknown keys, to be warned about)."""
    for folder in (cwd, *cwd.parents):
        path = folder / "pyproject.toml"
        if not path.is_file():
            continue
        try:
            tool = _read_toml(path).get("tool")
        except AutodbgError as err:
            warnings.append(f"{err} (left out)")
            return None
        table = tool.get("autodbg") if isinstance(tool, dict) else None
        if table is None:
            continue
        if not isinstance(table, dict):
            warnings.append(f"{path}: [tool.autodbg] must be a table (left out)")
            return None
        trusted = _trusted_digest(path, warnings)
        if trusted == table_digest(table):
            return _Layer(path, table, yours=False)
        refused = [key for key in table if key in CONFIG_KEYS and key not in PROJECT_KEYS]
        if refused:
            why = ("its [tool.autodbg] changed since you trusted it" if trusted is not None
                   else f"a project may set only {', '.join(PROJECT_KEYS)} unless you trust it")
            warnings.append(f"{path}: left out {', '.join(refused)}: {why} (`autodbg trust {folder}`)")
        return _Layer(path, {k: v for k, v in table.items() if k not in refused}, yours=False)
    return None


def _user_config(warnings: list[str]) -> _Layer | None:
    path = config_dir() / "config.toml"
    if not path.is_file():
        return None
    try:
        data = _read_toml(path)
    except AutodbgError as err:
        warnings.append(f"{err} (left out)")
        return None
    table = data.get("autodbg", data)
    if not isinstance(table, dict):
        warnings.append(f"{path}: the autodbg settings must be a table (left out)")
        return None
    return _Layer(path, table, yours=True)


# --- trusted projects -----------------------------------------------------------------------------

def table_digest(table: dict) -> str:
    """What trusting a project's [tool.autodbg] remembers of it: any change of its settings changes this."""
    return hashlib.sha256(json.dumps(table, sort_keys=True, default=str).encode()).hexdigest()


def trusted_projects() -> dict[str, str]:
    """The pyproject.toml files you trust, each with the table_digest of its [tool.autodbg] then."""
    path = config_dir() / TRUSTED_FILE
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IWGRP | stat.S_IWOTH):  # who can write it chooses which projects are trusted
            raise AutodbgError(f"{path} is writable by other users (mode {stat.S_IMODE(mode):o}): chmod 600 {path}")
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        raise AutodbgError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    if not (isinstance(data, dict) and all(isinstance(v, str) for v in data.values())):
        raise AutodbgError(f"{path} is not a JSON object of paths and digests")
    return data


def trust_project(path: Path) -> tuple[Path, dict]:
    """Trust the pyproject.toml at PATH (the file, or the folder that holds it) with its
    [tool.autodbg] as it is now; return the file and that table."""
    pyproject = _pyproject_path(path)
    table = project_table(pyproject)
    if table is None:
        raise AutodbgError(f"{pyproject} has no [tool.autodbg] table to trust")
    _save_trusted({**trusted_projects(), str(pyproject): table_digest(table)})
    return pyproject, table


def project_table(pyproject: Path) -> dict | None:
    """The [tool.autodbg] table of the file PYPROJECT, or None where it has none."""
    if not pyproject.is_file():
        raise AutodbgError(f"no {pyproject}")
    tool = _read_toml(pyproject).get("tool")
    table = tool.get("autodbg") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def distrust_project(path: Path) -> Path:
    """Forget the trust in the pyproject.toml at PATH; return the file."""
    projects = trusted_projects()
    pyproject = _pyproject_path(path)
    if str(pyproject) not in projects:
        raise AutodbgError(f"{pyproject} is not trusted")
    del projects[str(pyproject)]
    _save_trusted(projects)
    return pyproject


def _pyproject_path(path: Path) -> Path:
    """PATH, a pyproject.toml or the folder of one, as trust remembers it: absolute, links resolved."""
    return path.resolve() if path.name == "pyproject.toml" else path.resolve() / "pyproject.toml"


def _save_trusted(projects: dict[str, str]) -> None:
    folder = config_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_private(folder / TRUSTED_FILE, json.dumps(projects, indent=2, sort_keys=True) + "\n")
    except OSError as err:
        raise AutodbgError(f"cannot write {folder / TRUSTED_FILE}: {err.strerror}") from None


def _trusted_digest(pyproject: Path, warnings: list[str]) -> str | None:
    try:
        return trusted_projects().get(str(pyproject.resolve()))
    except AutodbgError as err:
        warnings.append(f"{err} (no project is trusted)")
        return None


# --- values ---------------------------------------------------------------------------------------

class _Reader:
    """Each setting's value from where it was found; a bad one becomes a warning and the default."""

    def __init__(self, found: dict[str, Setting]) -> None:
        self.found = found
        self.warnings: list[str] = []

    def text(self, variable: str) -> str | None:
        setting = self.found.get(variable)
        return setting.value.strip() or None if setting else None

    def flag(self, variable: str, default: bool | None) -> bool | None:
        setting = self.found.get(variable)
        if setting is None or not setting.value.strip():
            return default
        value = startup.switch(setting.value)
        if value is None:
            shown = "unset" if default is None else "on" if default else "off"
            self.bad(setting, "is not 1/true/yes/on or 0/false/no/off", f"the default ({shown})")
            return default
        return value

    def number(self, variable: str, default, kind, low: float, high: float = math.inf):
        setting = self.found.get(variable)
        if setting is None or not setting.value.strip():
            return default
        try:
            value = kind(setting.value)
        except ValueError:
            value = math.nan
        if math.isnan(value):
            self.bad(setting, "is not a number", f"the default ({'unset' if default is None else f'{default:g}'})")
            return default
        if not low <= value <= high:
            nearest = kind(min(max(value, low), high))
            self.bad(setting, f"is {'less' if value < low else 'more'} than {kind(low if value < low else high):g}",
                     f"{nearest:g}")
            return nearest
        return value

    def bad(self, setting: Setting, problem: str, used: str) -> None:
        self.warnings.append(f"{setting.named()} {problem}: using {used}")


def _redact_entries(read: _Reader) -> tuple[str, ...]:
    """AUTODBG_REDACT: `name,re:PATTERN,...`. A comma in a pattern's `{m,n}` does not split; write
    any other comma in a pattern as `\\x2c`. A bad entry is left out with a warning, the rest kept."""
    setting = read.found.get("AUTODBG_REDACT")
    if setting is None:
        return ()
    kept = []
    for entry in (e.strip() for e in re.split(r",(?![^{]*\})", setting.value)):
        if not entry:
            continue
        try:
            parse_additions([entry])
        except AutodbgError as err:
            read.warnings.append(f"AUTODBG_REDACT ({setting.source}): {err} (left out)")
            continue
        problem = pattern_problem(entry[3:]) if entry.startswith("re:") else None
        if problem:
            read.warnings.append(f"AUTODBG_REDACT ({setting.source}): pattern {entry!r} {problem} (left out)")
            continue
        kept.append(entry)
    return tuple(kept)


def _engine(read: _Reader, environ: dict[str, str]) -> tuple[Remote | None, str | None]:
    """(the model server, or None for the local engine; why the engine asked for cannot start)."""
    setting = read.found.get("AUTODBG_ENGINE")
    engine = (setting.value.strip().lower() if setting else "") or "local"
    if engine not in ("local", "remote"):
        read.bad(setting, "is not local or remote", "the default (local)")
        engine = "local"
    if engine == "local":
        return None, None
    url = read.found.get("AUTODBG_BASE_URL")
    base_url = url.value.strip().rstrip("/") if url else ""
    if not base_url:
        return None, "AUTODBG_ENGINE=remote needs AUTODBG_BASE_URL (like http://gpu-box:8080/v1)"
    problem = _url_problem(base_url)
    if problem:
        return None, f"AUTODBG_BASE_URL={base_url!r} {problem}"
    model = read.text("AUTODBG_REMOTE_MODEL")
    if not model:
        return None, "AUTODBG_ENGINE=remote needs AUTODBG_REMOTE_MODEL (a model id the server lists at /v1/models)"
    api_key = _api_key(read)
    if api_key and not url.yours:  # the key is yours: it goes only to a server you named
        read.warnings.append(f"the API key is not sent to {base_url}: that server is named in {url.source}, "
                             "not in your environment or config file")
        api_key = None
    return Remote(base_url=base_url, model=model, api_key=api_key, context=read.number("AUTODBG_REMOTE_CONTEXT", None, int, 1),
                  proxy=_proxy(base_url, environ), ca_file=_network(environ, "SSL_CERT_FILE"),
                  ca_dir=_network(environ, "SSL_CERT_DIR")), None


def _url_problem(base_url: str) -> str | None:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "is not an http:// or https:// URL"
    try:
        parts.port
    except ValueError:
        return "has a bad port"
    return None


def _network(environ: dict[str, str], name: str) -> str | None:
    """A network variable as curl reads it: the lower-case spelling first."""
    return environ.get(name.lower()) or environ.get(name) or None


def _proxy(base_url: str, environ: dict[str, str]) -> str | None:
    """The proxy for BASE_URL from the start-up environment; NO_PROXY's hosts go direct."""
    from urllib.request import proxy_bypass_environment

    parts = urlsplit(base_url)
    no_proxy = _network(environ, "NO_PROXY")
    if no_proxy and proxy_bypass_environment(parts.hostname, {"no": no_proxy}):
        return None
    return _network(environ, f"{parts.scheme.upper()}_PROXY") or _network(environ, "ALL_PROXY")


def _api_key(read: _Reader) -> str | None:
    setting = read.found.get("AUTODBG_API_KEY")
    if setting is not None and setting.value.strip():
        return setting.value.strip()
    try:
        return _api_key_file()
    except AutodbgError as err:
        read.warnings.append(f"{err} (no API key sent)")
        return None


def api_key_path() -> Path:
    return config_dir() / "api_key"


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
