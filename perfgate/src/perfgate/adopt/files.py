"""The files ``perfgate init`` writes, planned before any is written: a new file is created,
pyproject.toml without a policy gets one appended, and anything that would be replaced (a
policy, a workflow file) is refused unless ``--force``, which replaces it and prints the
diff. Nothing is written when anything is refused."""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfgate.adopt.policy import has_policy, with_policy
from perfgate.atomic import publish_new, replace_file, staged
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
    something is a `UserError` naming each; returns the diffs of what was replaced.

    All or nothing on disk too: every new text is first written beside its file (creating
    the folders it needs), and only when all of them are there are they put in place; a
    file that cannot be written or replaced (a read-only or immutable folder or file) is a
    `UserError` naming it, with every file put back as it was and every folder init made
    removed."""
    refused = [p for p in planned if p.replaces]
    if refused and not force:
        names = ", ".join(str(p.path.relative_to(root)) for p in refused)
        raise UserError(
            f"perfgate init: refusing to overwrite {names} (already there); --force replaces "
            "them and prints the diff"
        )
    changes = [p for p in planned if p.old != p.text]
    made: list[Path] = []
    staged_files: list[tuple[Planned, Path]] = []
    try:
        for item in changes:
            staged_files.append((item, _stage(root, item, made)))
        _publish(root, staged_files)
    except UserError:
        _discard(staged_files, made)
        raise
    return [item.diff(root) for item in changes if item.old is not None]


def _failed(root: Path, item: Planned, exc: OSError) -> UserError:
    name = item.path.relative_to(root)
    return UserError(
        f"perfgate init: cannot write {name} ({exc.strerror or exc}); nothing was written"
    )


def _stage(root: Path, item: Planned, made: list[Path]) -> Path:
    """``item``'s text in a temporary file beside it; the folders created go into ``made``."""
    try:
        missing = [d for d in (item.path.parent, *item.path.parent.parents) if not d.exists()]
        for folder in reversed(missing):
            folder.mkdir()
            made.append(folder)
        mode = stat.S_IMODE(item.path.stat().st_mode) if item.old is not None else None
        return staged(item.path, item.text.encode("utf-8"), mode)
    except OSError as exc:
        raise _failed(root, item, exc) from None


def _discard(staged_files: Sequence[tuple[Planned, Path]], made: Sequence[Path]) -> None:
    """Remove the temporary files left and the folders init made (deepest first)."""
    for _item, tmp in staged_files:
        tmp.unlink(missing_ok=True)
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _publish(root: Path, staged_files: Sequence[tuple[Planned, Path]]) -> None:
    """Put every staged file in place; on the first failure, undo those already placed."""
    done: list[Planned] = []
    for item, tmp in staged_files:
        try:
            if item.old is None:
                if not publish_new(tmp, item.path):
                    raise FileExistsError(0, "appeared while init was writing")
            else:
                os.replace(tmp, item.path)
        except OSError as exc:
            _undo(done)
            raise _failed(root, item, exc) from None
        done.append(item)


def _undo(done: Sequence[Planned]) -> None:
    """Put the files init placed back as they were (new ones removed)."""
    for item in reversed(done):
        if item.old is None:
            item.path.unlink(missing_ok=True)
        else:
            replace_file(item.path, item.old.encode("utf-8"))
