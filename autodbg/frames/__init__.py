"""The crashed program's frames, read without touching them: the bdb-based Inspector and
PostMortem, source lines and paths, and the bounded evaluator and reprs (safe_eval). The floor
every layer that looks at a program stands on; it knows nothing of commands, models or probes."""
