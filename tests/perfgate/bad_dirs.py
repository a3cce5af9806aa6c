"""Output folders that cannot take new files, one of each kind a user can pass as
``--report-dir`` (or ``--work-dir``): every command must refuse them before any work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfgate import atomic

#: Each kind of unusable output folder `bad_output_dir` makes.
BAD_KINDS = (
    "dangling symlink",
    "dangling symlink above",
    "symlink to a file",
    "symlink loop",
    "a file",
    "under a file",
    "unwritable",
)


def bad_output_dir(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch | None = None
) -> Path:
    """An unusable output folder of ``kind`` under ``tmp_path``. "unwritable" is a folder
    this process may not write to, as ``os.access`` reports it (patched with ``monkeypatch``:
    the tests may run as root, who may write anywhere)."""
    afile = tmp_path / "afile"
    afile.write_text("not a folder\n")
    links: dict[str, tuple[Path | str, str]] = {
        "dangling symlink": ("gone", "report-link"),
        "dangling symlink above": ("gone", "parent-link"),
        "symlink to a file": (afile, "report-link"),
        "symlink loop": ("report-link", "report-link"),
    }
    if kind in links:
        target, name = links[kind]
        (tmp_path / name).symlink_to(target)
        return tmp_path / name / "sub" if kind == "dangling symlink above" else tmp_path / name
    if kind == "unwritable":
        assert monkeypatch is not None, "an unwritable folder needs monkeypatch"
        locked = tmp_path / "locked"
        locked.mkdir()
        real_access = os.access
        monkeypatch.setattr(
            atomic.os,
            "access",
            lambda p, mode: False if Path(p) == locked else real_access(p, mode),
        )
        return locked / "report"
    return afile if kind == "a file" else afile / "report"
