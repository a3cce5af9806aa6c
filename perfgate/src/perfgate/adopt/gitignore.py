"""``.perfgate/`` in the project's ``.gitignore`` (``perfgate init``): the gate's work
folder holds run folders (exports, asv results, several MB a run) that must never be
committed. Planned like init's other files (`perfgate.adopt.files`): a new ``.gitignore``,
or one more line at the end of the project's, which replaces nothing of it."""

from __future__ import annotations

import re
from pathlib import Path

from perfgate.adopt.files import Planned
from perfgate.gate.context import WORK_DIR

ENTRY = f"/{WORK_DIR}/"


def ignores_work_dir(text: str) -> bool:
    """True when a line of ``text`` already ignores the work folder (``.perfgate``,
    ``.perfgate/``, ``/.perfgate/``; a negation or a comment does not count)."""
    pattern = re.compile(rf"^/?{re.escape(WORK_DIR)}/?\s*$")
    return any(pattern.match(line.strip()) for line in text.splitlines())


def plan_gitignore(root: Path) -> Planned | None:
    """The ``.gitignore`` with the work folder in it (None: it is ignored already)."""
    path = root / ".gitignore"
    old = path.read_text(encoding="utf-8") if path.is_file() else None
    if old is not None and ignores_work_dir(old):
        return None
    lead = "" if not old else ("\n" if old.endswith("\n") else "\n\n")
    text = f"{old or ''}{lead}# perfgate's work folder (run folders, exports)\n{ENTRY}\n"
    return Planned(path, text, old, False)
