"""Probes: every look at a crashed program's objects runs in a sandboxed fork, under a deadline the
parent enforces, and comes back as plain data. See fork.py (the primitive), sandbox.py (the
layers) and session.py (a debugging session whose commands run in probes)."""
