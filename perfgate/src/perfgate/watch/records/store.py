"""The watch state on the ``perf-results`` branch: read every snapshot, add new ones.

Reading goes through the history package's isolated git (`perfgate.history.branch`); adding
goes through the same append as a benchmark run's results (`perfgate.history.append`): the
new snapshot files are written with the one no-clobber writer into a scratch folder laid out
like the branch, and appended from there (a private index, ``commit-tree``, a push retried
when another writer moved the tip). Existing files are never changed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from perfgate.atomic import write_new
from perfgate.history.append import HISTORY_RETRY, AppendReport, append
from perfgate.history.branch import branch_git, fetch_tip, list_tree, read_blobs
from perfgate.retry import RetryPolicy
from perfgate.secrets import Redactor
from perfgate.watch.records.state import WatchedChange
from perfgate.watch.records.state_file import (
    is_record_path,
    parse_record,
    record_bytes,
    record_path,
)
from perfgate.watch.redaction import watch_redactor


def read_state(repo: Path, remote: str, branch: str) -> list[WatchedChange]:
    """Every snapshot stored under ``watch/`` on ``remote``'s ``branch`` (none: no branch)."""
    git = branch_git(repo)
    tip = fetch_tip(git, remote, branch)
    tree = list_tree(git, tip)
    paths = sorted(p for p in tree if is_record_path(p))
    blobs = read_blobs(git, [tree[p] for p in paths]) if paths else []
    return [parse_record(content, path) for path, content in zip(paths, blobs, strict=True)]


def record_state(
    repo: Path,
    remote: str,
    branch: str,
    snapshots: Sequence[WatchedChange],
    recorded_at: str,
    redactor: Redactor | None = None,
    policy: RetryPolicy = HISTORY_RETRY,
) -> AppendReport | None:
    """Append ``snapshots`` to the branch as new files, redacted (the branch is pushed and
    may be public; default: the secrets of the process environment); None when there is
    nothing to add."""
    if not snapshots:
        return None
    with tempfile.TemporaryDirectory(prefix="perfgate-watch-") as tmp:
        write_snapshots(Path(tmp), snapshots, recorded_at, redactor)
        return append(repo, Path(tmp), remote, branch, policy)


def write_snapshots(
    folder: Path,
    snapshots: Sequence[WatchedChange],
    recorded_at: str,
    redactor: Redactor | None = None,
) -> list[str]:
    """Write each snapshot under ``folder`` at its branch path (never overwriting), every
    text of it redacted (the record's own field names excepted; default: the secrets of
    the process environment); the paths."""
    redactor = redactor or watch_redactor(os.environ)
    written = []
    for snap in snapshots:
        content = record_bytes(snap, recorded_at, redactor)
        path = record_path(snap, content)
        write_new(folder / path, content)
        written.append(path)
    return written
