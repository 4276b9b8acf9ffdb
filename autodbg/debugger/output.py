"""What commands show: source lines the model may quote, bounded text, folded stacks, numbered
source. Shared by the command table, the session that runs it and the controllers above."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from autodbg.frames.core import FrameEntry
from autodbg.frames.safe_eval import cut

MAX_LINES = 40
MAX_CHARS = 3000
FOLD_HEAD, FOLD_TAIL = 4, 12  # frames kept at each end of a tall stack: `where` fits MAX_LINES


class CommandError(Exception):
    """A command line that cannot run; the message is one line. REFUSED: because it would have
    done what a look at the program may not (the evaluator's or the sandbox's refusal)."""

    def __init__(self, message: str, *, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


class ShownLine(NamedTuple):
    """A source line a command showed: the model may quote it in its answer."""
    file: str
    line: int
    code: str


@dataclass(frozen=True)
class Output:
    """What an executor returns when it shows source lines (a plain str when it does not)."""
    text: str
    lines: tuple[ShownLine, ...] = ()


def fold_indexes(total: int, keep: int) -> list[int]:
    """Indexes of a stack to show: all of a short stack, the ends of a tall one (and KEEP)."""
    if total <= FOLD_HEAD + FOLD_TAIL + 5:
        return list(range(total))
    shown = set(range(FOLD_HEAD)) | set(range(total - FOLD_TAIL, total)) | {keep}
    return sorted(shown)


def fold_summary(entries: list[FrameEntry]) -> str:
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.function] = counts.get(e.function, 0) + 1
    top = sorted(counts.items(), key=lambda kv: -kv[1])[:3]
    return ", ".join(f"{name} x{n}" for name, n in top)


def format_source(lines: list[str], first: int, last: int, current: int | None, offset: int = 0) -> str:
    """Numbered source lines FIRST..LAST (1-based in LINES), `->` on CURRENT, numbers shifted by OFFSET."""
    width = len(str(last + offset))
    out = []
    for n in range(first, last + 1):
        mark = "->" if n + offset == current else "  "
        out.append(f"{str(n + offset).rjust(width)} {mark} {cut(lines[n - 1], 200)}")
    return "\n".join(out)


def bound_output(text: str) -> str:
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        text = "\n".join(lines[:MAX_LINES]) + f"\n...[cut: {len(lines) - MAX_LINES} more lines]"
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n...[cut: {len(text) - MAX_CHARS} more characters]"
    return text
