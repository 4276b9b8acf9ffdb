"""The suggested change as a patch a user takes: a unified diff with headers `patch -p1` reads, the
hash of the file it was made from, and applying it to a file that has not changed since."""

from __future__ import annotations

import difflib
import hashlib
import os
from pathlib import Path

from autodbg.errors import AutodbgError
from autodbg.files import write_shared
from autodbg.records import Edit, Label, Patch

CONTEXT = 1  # lines around the change: a short screen, and still a diff patch(1) places


def file_sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def make_patch(edit: Edit, label: Label, roots: list[str]) -> Patch | None:
    """EDIT as a patch relative to the first of ROOTS that holds its file (else its own folder);
    None when the file cannot be read."""
    file = os.path.abspath(edit.file)
    try:
        with open(file, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        sha256 = file_sha256(file)
    except (OSError, UnicodeDecodeError):
        return None
    root = next((os.path.abspath(r) for r in roots if os.path.commonpath([os.path.abspath(r), file]) == os.path.abspath(r)),
                os.path.dirname(file))
    path = os.path.relpath(file, root)
    patched = lines[:edit.first - 1] + edit.replacement.splitlines(keepends=True) + lines[edit.last:]
    if patched and not patched[-1].endswith("\n"):
        patched[-1] += "\n"
    diff = "".join(difflib.unified_diff(lines, patched, f"a/{path}", f"b/{path}", n=CONTEXT))
    return Patch(file=file, root=root, path=path, diff=diff, sha256=sha256, label=label, edit=edit)


def apply_patch(patch: Patch) -> None:
    """Write PATCH's change into its file; refused when the file changed since the crash."""
    try:
        now = file_sha256(patch.file)
    except OSError as err:
        raise AutodbgError(f"cannot read {patch.file}: {err.strerror or err}") from None
    if now != patch.sha256:
        raise AutodbgError(f"{patch.path} changed since the crash: not patching it (run the program again for a new fix)")
    with open(patch.file, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    edit = patch.edit
    mode = os.stat(patch.file).st_mode & 0o7777  # the user's file keeps its mode (an executable script stays one)
    write_shared(Path(patch.file), "".join(lines[:edit.first - 1] + edit.replacement.splitlines(keepends=True)
                                           + lines[edit.last:]))
    os.chmod(patch.file, mode)
