"""The two sides' trees on disk: each commit exported afresh into the run's folder (and
built, under ``build = "pip"``) before anything of it runs, and deleted when the run ends.

This is work, not settings: the settings (`perfgate.gate.context`) name where each side's
export goes; `prepared` makes it and always cleans up, so a run that fails while it exports
or builds (pip failing, a broken commit) leaves no trees behind either.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from perfgate import git
from perfgate.gate import build
from perfgate.settings import GateSettings

#: The folder of a run that holds the sides' exports.
EXPORTS_DIR = "exports"


def export_dir(run_dir: Path) -> Path:
    """Where a run's exports go: inside the run, never shared with an earlier run (its parity
    command ran in there, with the work folder persistent on the runner)."""
    return run_dir / EXPORTS_DIR


def export_path(run_dir: Path, sha: str) -> Path:
    """The folder commit ``sha`` is exported to (`perfgate.git.export_folder`)."""
    return git.export_folder(export_dir(run_dir), sha)


def prepare(s: GateSettings) -> GateSettings:
    """Export both commits to the folders ``s`` names and build them when the policy says
    so; ``s`` with the builds (an A/A run exports and builds once)."""
    for sha in (s.base, s.head):  # each to its `export_path`, the folder ``s`` names
        git.export_commit(s.repo, sha, export_dir(s.run_dir))
    env = {**os.environ, **s.kernel_cache}  # before any pinning: the caller's, with the cache
    builds = build.build_sides(
        s.config.build, s.asv_conf, (s.repo, s.base, s.head), s.run_dir, env
    )
    return replace(s, builds=builds)


def discard(s: GateSettings) -> None:
    """Delete the run's exports and builds (samples and reports stay): they are not
    reused."""
    shutil.rmtree(export_dir(s.run_dir), ignore_errors=True)
    shutil.rmtree(s.run_dir / build.BUILDS_DIR, ignore_errors=True)


@contextmanager
def prepared(s: GateSettings) -> Iterator[GateSettings]:
    """`prepare` for the length of a block, then `discard`, on every way out."""
    try:
        yield prepare(s)
    finally:
        discard(s)
