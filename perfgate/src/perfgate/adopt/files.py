"""The files ``perfgate init`` writes, planned before any is written: a new file is created,
pyproject.toml without a policy gets one appended, and anything that would be replaced (a
policy, a workflow file) is refused unless ``--force``, which replaces it and prints the
diff. Nothing is written when anything is refused."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfgate.adopt.policy import has_policy, with_policy
from perfgate.atomic import replace_file, write_new
from perfgate.config_files import PERFGATE_TOML, PYPROJECT
from perfgate.errors import UserError


@dataclass(frozen=True)
class Planned:
    """One file to write: its new text, its text now (None: a new file), and whether
    writing it replaces something of the project's (a policy or a whole file)."""

    path: Path
    text: str
    old: str | None
    replaces: bool

    def diff(self, root: Path) -> str:
        """The unified diff of the change (empty for a new file)."""
        if self.old is None:
            return ""
        name = str(self.path.relative_to(root))
        lines = difflib.unified_diff(
            self.old.splitlines(keepends=True),
            self.text.splitlines(keepends=True),
            f"a/{name}",
            f"b/{name}",
        )
        return "".join(lines)


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def plan_policy(root: Path, in_pyproject: str, own_file: str) -> Planned:
    """Where the policy goes: perfgate.toml when the project has one, else into
    pyproject.toml when there is one (``in_pyproject``: the ``[tool.perfgate]`` text), else
    a new perfgate.toml (``own_file``: the same keys at the top level)."""
    own, pyproject = root / PERFGATE_TOML, root / PYPROJECT
    if own.is_file() or not pyproject.is_file():
        old = _read(own)
        return Planned(own, own_file, old, old is not None)
    text = pyproject.read_text(encoding="utf-8")
    return Planned(pyproject, with_policy(text, in_pyproject), text, has_policy(text))


def plan_file(path: Path, text: str) -> Planned:
    """A whole file (a workflow)."""
    old = _read(path)
    return Planned(path, text, old, old is not None)


def write_planned(root: Path, planned: Sequence[Planned], force: bool) -> list[str]:
    """Write every planned file, or none: without ``force`` anything that would replace
    something is a `UserError` naming each; returns the diffs of what was replaced."""
    refused = [p for p in planned if p.replaces]
    if refused and not force:
        names = ", ".join(str(p.path.relative_to(root)) for p in refused)
        raise UserError(
            f"perfgate init: refusing to overwrite {names} (already there); --force replaces "
            "them and prints the diff"
        )
    diffs = []
    for item in planned:
        if item.old is None:
            if not write_new(item.path, item.text.encode("utf-8")):
                raise UserError(f"{item.path}: appeared while init was writing; not replaced")
        elif item.old != item.text:
            diffs.append(item.diff(root))
            replace_file(item.path, item.text.encode("utf-8"))
    return diffs
