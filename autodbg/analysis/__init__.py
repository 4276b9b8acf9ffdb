"""Program analysis for the evidence: where a value came from (static) and what a call did (replay)."""
