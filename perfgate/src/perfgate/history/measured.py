"""Which of the commits a run measured have results in its results directory (pure).

``asv run HASHFILE:...`` stops at discovery on every commit when the suites cannot be
imported, and what is left to append is ``benchmarks.json`` and ``machine.json``: a run that
stored nothing. `history append` must then fail naming what is missing, never say "pushed".
A result file names its commit inside (``commit_hash``); its path is
``<machine>/<hash8>-<env>.json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from perfgate.history.branch import HistoryError

_METADATA = frozenset({"benchmarks.json", "machine.json"})
_HEX = re.compile(r"[0-9a-f]{7,64}")


def is_result_path(path: str) -> bool:
    """True for ``<machine>/<hash>-<env>.json`` (a result file of the asv layout)."""
    parts = PurePosixPath(path).parts
    return len(parts) == 2 and parts[1].endswith(".json") and parts[1] not in _METADATA


def read_hashfile(path: Path) -> list[str]:
    """The commits of an asv ``HASHFILE`` (one a line; blank lines ignored), validated."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise HistoryError(f"--measured: cannot read {path} ({exc})") from None
    commits = [line.strip().lower() for line in text.splitlines() if line.strip()]
    bad = [c for c in commits if not _HEX.fullmatch(c)]
    if bad or not commits:
        what = f"not commit hashes: {bad[:3]}" if bad else "no commit listed"
        raise HistoryError(f"--measured: {path}: expected commit hashes, one a line ({what})")
    return commits


def stored_commits(files: Mapping[str, bytes]) -> set[str]:
    """The ``commit_hash`` of every result file among ``files`` (path -> content)."""
    found = set()
    for path, content in files.items():
        if not is_result_path(path):
            continue
        try:
            commit = json.loads(content).get("commit_hash")
        except (ValueError, AttributeError):
            continue
        if isinstance(commit, str) and commit:
            found.add(commit.lower())
    return found


def missing_commits(measured: Sequence[str], stored: set[str]) -> list[str]:
    """The ``measured`` commits (full or abbreviated) no stored result names, in order."""
    return [c for c in measured if not any(s.startswith(c) or c.startswith(s) for s in stored)]


def no_results_problem(files: Mapping[str, bytes], results_dir: Path) -> str | None:
    """Why ``files`` hold nothing to store (no result file at all), or None."""
    if any(is_result_path(p) for p in files):
        return None
    kept = ", ".join(sorted(files)) or "nothing"
    return (
        f"--results: no asv result file (<machine>/<hash>-<env>.json) under {results_dir}, "
        f"only {kept}: the run measured no commit (did asv fail to discover the benchmarks?)"
    )
