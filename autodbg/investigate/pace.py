"""How fast the model works here, kept between crashes: so a crash's plan knows, before the first
command, whether one fits (on a slow machine the evidence alone takes most of the plan's time).

The file (`rates.json`, beside the saved prompt state) maps a model (its checksum or path, or a server's URL and
model id) to the rates its latest crash measured. Unreadable or foreign content counts as none.
"""

from __future__ import annotations

import json

from autodbg.files import private_dir, state_dir, write_private
from autodbg.records import ModelCall, Rates

RATES_FILE = "rates.json"
MAX_MODELS = 20  # models remembered; the oldest entries go first


def measured(calls: list[ModelCall]) -> Rates | None:
    """The rates CALLS show, or None where they do not split reading from making (a server that
    does not say, or nothing made)."""
    making = sum(c.seconds - c.prompt_seconds for c in calls)
    reading = sum(c.prompt_seconds for c in calls)
    made, read = sum(c.generated for c in calls), sum(c.prompt_tokens_evaluated for c in calls)
    if making <= 0 or reading <= 0 or not made or not read:
        return None
    return Rates(making / made, reading / read)


def load_rates(model: str) -> Rates | None:
    try:
        entry = json.loads((state_dir() / RATES_FILE).read_text(encoding="utf-8"))[model]
        rates = Rates(float(entry["per_token"]), float(entry["per_prompt_token"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return rates if rates.per_token > 0 and rates.per_prompt_token > 0 else None


def save_rates(model: str, rates: Rates) -> None:
    path = private_dir(state_dir()) / RATES_FILE
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    known.pop(model, None)
    known[model] = rates.to_json()
    write_private(path, json.dumps(dict(list(known.items())[-MAX_MODELS:]), indent=1))
