"""Make docs/output.svg, the README's picture of autodbg's output, from a real crash: runs
`autodbg run examples/scores.py` with a 100-column stderr, as a pipe gets it, and renders what it printed
with rich's save_svg. Run it again whenever the output changes.

Usage: python docs/screenshot.py [MODEL]   (MODEL: a registry id or a .gguf path; default: the
default model, which must be downloaded; `none` shows the evidence only)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

REPO = Path(__file__).resolve().parent.parent
WIDTH = 100


def main() -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTODBG")}
    # Plain text, as a pipe gets it: the final screen only (a terminal's progress frames would all
    # be captured too).
    env.update(NO_COLOR="1", COLUMNS=str(WIDTH))
    env.pop("FORCE_COLOR", None)
    if len(sys.argv) > 1:
        env["AUTODBG_MODEL"] = sys.argv[1]
    shown = "$ autodbg run examples/scores.py\n"
    run = subprocess.run([sys.executable, "-m", "autodbg", "run", "examples/scores.py"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=600)
    console = Console(record=True, width=WIDTH, force_terminal=True, color_system="truecolor", file=open(os.devnull, "w"))
    console.print(Text(shown, style="bold"), end="")
    console.print(Text.from_ansi(run.stdout + run.stderr), soft_wrap=True)
    out = REPO / "docs" / "output.svg"
    console.save_svg(str(out), title="autodbg run examples/scores.py")
    print(f"wrote {out.relative_to(REPO)} ({len((run.stdout + run.stderr).splitlines())} lines; exit status {run.returncode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
