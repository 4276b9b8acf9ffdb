"""Probes: every look at a crashed program's objects runs in a sandboxed fork, under a deadline the
parent enforces, and comes back as plain data. See fork.py (the primitive) and sandbox.py (the
layers)."""

from autodbg.probe.fork import ProbeOutcome, available, run_in_probe
from autodbg.probe.sandbox import Layer, Limits, Refused, layers

__all__ = ["Layer", "Limits", "ProbeOutcome", "Refused", "available", "layers", "run_in_probe"]
