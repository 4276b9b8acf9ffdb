"""`autodbg model list|pull|path|rm|verify`: the models autodbg can use, and their files here."""

from __future__ import annotations

from pathlib import Path

from autodbg.errors import AutodbgError
from autodbg.textsafe import say


def register(sub) -> None:
    parser = sub.add_parser("model", help="list, download, locate, remove or check models",
                            description="The models autodbg can use (pick one with AUTODBG_MODEL=ID).")
    actions = parser.add_subparsers(dest="model_action", required=True, metavar="ACTION")
    actions.add_parser("list", help="the known models and whether they are here").set_defaults(func=list_models)
    for name, func, text in (("pull", pull, "download a model (once) and verify it"),
                             ("path", path, "print the path of a model's file here"),
                             ("rm", remove, "delete a downloaded model from the model cache"),
                             ("verify", verify, "re-check a model's file against its sha256 now")):
        action = actions.add_parser(name, help=text)
        action.add_argument("id", metavar="ID", help="a model id from `autodbg model list`")
        action.set_defaults(func=func)


def list_models(args) -> int:
    from autodbg.llm.download import local_path, size_text
    from autodbg.llm.registry import load_registry

    cache = _cache()
    rows = [("", "ID", "SIZE", "HERE", "NOTE")]
    for spec in load_registry().values():
        here = local_path(spec, cache)
        rows.append(("*" if spec.default else "", spec.id, size_text(spec.size),
                     "-" if here is None else "package" if spec.package else "yes", spec.note))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        say("  ".join([*(cell.ljust(width) for cell, width in zip(row, widths)), row[4]]))
    say(f"* default; pick another with AUTODBG_MODEL=ID. Downloads go to {cache}")
    return 0


def pull(args) -> int:
    from autodbg.llm import download

    say(download.pull(_spec(args.id), _cache()))
    return 0


def path(args) -> int:
    from autodbg.llm.download import local_path, missing

    spec = _spec(args.id)
    found = local_path(spec, _cache())
    if found is None:
        raise missing(spec)
    say(found)
    return 0


def remove(args) -> int:
    from autodbg.llm import download

    say(f"removed {download.remove(_spec(args.id), _cache())}")
    return 0


def verify(args) -> int:
    from autodbg.llm import download

    spec = _spec(args.id)
    say(f"{spec.id}: sha256 ok ({download.verify(spec, _cache())})")
    return 0


def _cache() -> Path:
    """The model cache: AUTODBG_MODEL_CACHE, else the Hugging Face cache."""
    from autodbg.llm.download import hub_cache
    from autodbg.settings import load_settings

    return hub_cache(load_settings().model_cache)


def _spec(model_id: str):
    from autodbg.llm.registry import load_registry

    registry = load_registry()
    if model_id not in registry:
        raise AutodbgError(f"no model {model_id!r}; the ids are: {', '.join(registry)}")
    return registry[model_id]
