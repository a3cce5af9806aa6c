"""Commit order on the ``perf-results`` branch: which suite describes it, which commits lack runs.

Pure functions over what git says (a first-parent commit list, newest first) and what the
branch holds (its file paths). The git I/O is in the rest of :mod:`perfgate.history`.

* **Suites.** Every append stores the run's ``benchmarks.json`` as ``suites/<commit>.json``
  (``commit`` is the commit whose suites asv discovered: the newest commit of the run). The
  suite a dashboard should use is the one of the *newest commit in the history being
  published*, not the one appended last: a slower machine, or a catch-up run, appends an older
  commit after a newer one, and asv hides every result whose benchmark is missing from, or
  has another version in, ``benchmarks.json``.
* **Catch-up.** GitHub keeps one pending run per concurrency group and a push of several
  commits triggers one run, so commits of main can end up with no run on a machine.
  :func:`commits_to_measure` lists them, newest first, back to the newest measured commit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePosixPath

SUITES_DIR = "suites"
#: The watch's state records (`perfgate.watch.records.state_file`): not results, never exported.
WATCH_DIR = "watch"
#: Calibrated noise floors and their digests (`perfgate.calibration.stored`).
NOISE_DIR = "noise"
#: Accepted regressions (`perfgate.history.acceptances`).
ACCEPTANCES_DIR = "acceptances"
_FULL_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_RESULT_NAME = re.compile(r"(?P<prefix>[0-9a-f]{8})-[^/]+\.json")
#: asv names result files ``<machine>/<commit_hash[:8]>-<env>.json``.
ASV_PREFIX = 8


def check_commit(commit: str, what: str) -> str:
    """``commit`` if it is a full lowercase git object id, else a ValueError naming ``what``."""
    if not _FULL_HASH.fullmatch(commit):
        raise ValueError(
            f"{what}: expected a full 40- or 64-digit lowercase commit id, got {commit!r}"
        )
    return commit


def suite_path(commit: str) -> str:
    """Branch path of the suite description discovered at ``commit``."""
    return f"{SUITES_DIR}/{check_commit(commit, 'suite commit')}.json"


def stored_suites(paths: Iterable[str]) -> dict[str, str]:
    """Commit -> path of every ``suites/<commit>.json`` among the branch's ``paths``.

    Content-renamed copies (``suites/<commit>.<digest>.json``, a re-run whose suite differed)
    are not canonical and are left out.
    """
    found = {}
    for path in paths:
        pure = PurePosixPath(path)
        if pure.parent.as_posix() == SUITES_DIR and pure.suffix == ".json":
            if _FULL_HASH.fullmatch(pure.stem):
                found[pure.stem] = path
    return found


def newest_suite(history: Sequence[str], suites: Mapping[str, str]) -> str | None:
    """Path of the suite of the first commit of ``history`` (newest first) that has one.

    None when no commit of the history has a stored suite (a branch written before suites
    were kept, or a history that shares no commit with it).
    """
    for commit in history:
        if commit in suites:
            return suites[commit]
    return None


def measured_prefixes(paths: Iterable[str], machine: str) -> set[str]:
    """The asv commit prefixes with a result file of ``machine`` among the branch's ``paths``."""
    check_machine(machine)
    prefixes = set()
    for path in paths:
        pure = PurePosixPath(path)
        if pure.parent.as_posix() == machine:
            match = _RESULT_NAME.fullmatch(pure.name)
            if match:
                prefixes.add(match["prefix"])
    return prefixes


def commits_to_measure(history: Sequence[str], measured: set[str], max_commits: int) -> list[str]:
    """Commits a run for ``history[0]`` should measure, newest first.

    Always the tip (the run is for it, even when it was measured before: a re-run is a new
    sample, stored beside the old one), then each older first-parent commit without results,
    up to the newest measured one or ``max_commits`` in all. A machine with no results at all
    gets the last ``max_commits`` commits: a baseline to compare the next one against.
    """
    if max_commits < 1:
        raise ValueError(f"--max-commits: expected an integer >= 1, got {max_commits}")
    if not history:
        raise ValueError("history: expected at least the commit to measure, got none")
    chosen = [history[0]]
    for commit in history[1:]:
        if len(chosen) >= max_commits or commit[:ASV_PREFIX] in measured:
            break
        chosen.append(commit)
    return chosen


def check_machine(machine: str) -> str:
    """``machine`` if it can name one results folder (asv machine name), else a ValueError."""
    if not machine or machine in (".", "..") or "/" in machine or machine.startswith("."):
        raise ValueError(f"--machine: expected an asv machine name (one folder), got {machine!r}")
    return machine


def export_layout(tree: Mapping[str, str], history: Sequence[str]) -> dict[str, str]:
    """What ``export`` writes: destination path -> blob id, from the branch ``tree``.

    Every file but the records that are not asv results (``suites/``, ``watch/``, ``noise/``,
    ``acceptances/``: asv would take a folder of JSON files for a machine without its
    ``machine.json``); ``benchmarks.json`` is the newest suite of ``history`` (newest first)
    when it has one, else the branch's own (written by the last append).
    """
    records = (f"{SUITES_DIR}/", f"{WATCH_DIR}/", f"{NOISE_DIR}/", f"{ACCEPTANCES_DIR}/")
    layout = {p: b for p, b in tree.items() if not p.startswith(records)}
    chosen = newest_suite(history, stored_suites(tree))
    if chosen is not None:
        layout["benchmarks.json"] = tree[chosen]
    return layout


def suite_blobs(tree: Mapping[str, str]) -> set[str]:
    """Blob ids of every suite description on the branch (``suites/`` and the top level)."""
    blobs = {tree[p] for p in stored_suites(tree).values()}
    if "benchmarks.json" in tree:
        blobs.add(tree["benchmarks.json"])
    return blobs
