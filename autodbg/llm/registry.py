"""The models autodbg knows (`registry.json`) and what AUTODBG_MODEL names."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from autodbg.errors import AutodbgError

# In a checkout this is a symlink to models/registry.json; hatchling puts the real content in wheels.
REGISTRY_FILE = Path(__file__).with_name("registry.json")


@dataclass(frozen=True)
class ModelSpec:
    id: str
    repo: str  # Hugging Face repo the file comes from
    file: str  # the file's name in that repo
    revision: str  # 40-hex commit (a cached file then needs no request at all), or "main"
    context_length: int
    license: str
    note: str  # one line for `autodbg model list`
    size: int | None = None  # bytes
    sha256: str | None = None
    default: bool = False
    package: str | None = None  # Python distribution that ships the file; it is then never downloaded
    package_file: str | None = None  # the file's path inside that distribution


def load_registry() -> dict[str, ModelSpec]:
    entries = json.loads(REGISTRY_FILE.read_text(encoding="utf-8"))
    return {entry["id"]: ModelSpec(**entry) for entry in entries}


def default_model_id() -> str:
    return next(spec.id for spec in load_registry().values() if spec.default)


def resolve_model(text: str | None) -> ModelSpec | Path | None:
    """What AUTODBG_MODEL=TEXT names: a registry model, the user's own .gguf file, or None for "none".

    Unset or empty means the default model."""
    registry = load_registry()
    text = (text or "").strip()
    if not text:
        return registry[default_model_id()]
    if text.lower() == "none":
        return None
    if text in registry:
        return registry[text]
    path = Path(text).expanduser()
    if path.suffix.lower() == ".gguf":
        if path.is_file():
            return path.resolve()
        raise AutodbgError(f"AUTODBG_MODEL={text}: no such file")
    raise AutodbgError(f"AUTODBG_MODEL={text} is not a model id, a .gguf file or none; "
                       f"the ids are: {', '.join(registry)}")
