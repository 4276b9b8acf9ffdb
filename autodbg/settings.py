"""The AUTODBG_* environment variables, read in one place and checked."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from autodbg.errors import AutodbgError
from autodbg.redact import parse_additions

DEFAULT_TIMEOUT = 60.0  # seconds for the whole investigation on a 2-core laptop
DEFAULT_TURNS = 3  # debugger commands the model may run before answering


@dataclass(frozen=True)
class Settings:
    model: str | None  # AUTODBG_MODEL as given: registry id, path to a .gguf, "none", or None (default)
    report_path: str | None  # AUTODBG_REPORT: also write the result as JSON here
    timeout: float  # AUTODBG_TIMEOUT
    verbose: bool  # AUTODBG_VERBOSE=1: print the whole transcript
    threads: int | None  # AUTODBG_THREADS: ggml threads; None = the cores that are free
    download: bool  # AUTODBG_DOWNLOAD=0 forbids downloading a model at crash time
    turns: int  # AUTODBG_TURNS: debugger commands before the answer; 0 answers from the evidence alone
    redact: tuple[str, ...]  # AUTODBG_REDACT: extra secret names and `re:` patterns, comma-separated


def load_settings(environ=os.environ) -> Settings:
    return Settings(
        model=environ.get("AUTODBG_MODEL") or None,
        report_path=environ.get("AUTODBG_REPORT") or None,
        timeout=_number(environ, "AUTODBG_TIMEOUT", DEFAULT_TIMEOUT, float),
        verbose=environ.get("AUTODBG_VERBOSE", "0") not in ("", "0"),
        threads=_number(environ, "AUTODBG_THREADS", None, int),
        download=environ.get("AUTODBG_DOWNLOAD", "1") != "0",
        turns=_number(environ, "AUTODBG_TURNS", DEFAULT_TURNS, int, allow_zero=True),
        redact=_redact_entries(environ),
    )


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
