"""What a machine's history run cost last time, read from the ``perf-results`` branch.

The newest first-parent commit of ``--ref`` with result files of the machine gives asv's
per-benchmark ``durations`` (several files of that commit, e.g. from shards of a split run:
each key's largest figure), the input of `perfgate.history.plan`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from perfgate.errors import ResultFileError
from perfgate.formats.asv_results import parse_durations
from perfgate.git import Git
from perfgate.history.branch import HistoryError, read_blobs
from perfgate.history.order import ASV_PREFIX, check_machine


def result_paths(tree: Mapping[str, str], machine: str) -> dict[str, list[str]]:
    """asv commit prefix -> the result file paths of ``machine`` in the branch ``tree``."""
    check_machine(machine)
    out: dict[str, list[str]] = {}
    for path in sorted(tree):
        pure = PurePosixPath(path)
        if pure.parent.as_posix() != machine or pure.suffix != ".json":
            continue
        prefix, dash, _rest = pure.name.partition("-")
        if dash and len(prefix) == ASV_PREFIX:
            out.setdefault(prefix, []).append(path)
    return out


def merge_durations(parts: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """One duration per key over several result files of one commit (the largest)."""
    out: dict[str, float] = {}
    for part in parts:
        for key, seconds in part.items():
            out[key] = max(seconds, out.get(key, seconds))
    return out


def stored_durations(
    git: Git, tree: Mapping[str, str], history: Sequence[str], machine: str
) -> tuple[str, dict[str, float]] | None:
    """(commit, durations) of the newest commit of ``history`` with results of ``machine``
    (None when there is none); an unreadable file there is a `HistoryError` naming it."""
    by_prefix = result_paths(tree, machine)
    for commit in history:
        paths = by_prefix.get(commit[:ASV_PREFIX])
        if not paths:
            continue
        parts = []
        for path, blob in zip(paths, read_blobs(git, [tree[p] for p in paths]), strict=True):
            try:
                parts.append(parse_durations(path, json.loads(blob)))
            except (ValueError, ResultFileError) as exc:
                raise HistoryError(
                    f"perf-results {path}: unreadable result file ({exc})"
                ) from None
        return commit, all_rounds(merge_durations(parts), suite_rounds(git, tree))
    return None


def suite_rounds(git: Git, tree: Mapping[str, str]) -> dict[str, int]:
    """benchmark -> its asv ``rounds``, from the branch's ``benchmarks.json`` (none: {})."""
    blob = tree.get("benchmarks.json")
    if blob is None:
        return {}
    try:
        suite = json.loads(read_blobs(git, [blob])[0])
    except ValueError as exc:
        raise HistoryError(f"perf-results benchmarks.json: unreadable ({exc})") from None
    out: dict[str, int] = {}
    for name, info in suite.items() if isinstance(suite, dict) else ():
        rounds = info.get("rounds") if isinstance(info, dict) else None
        if isinstance(rounds, int) and not isinstance(rounds, bool) and rounds > 1:
            out[name] = rounds
    return out


def all_rounds(durations: Mapping[str, float], rounds: Mapping[str, int]) -> dict[str, float]:
    """Each benchmark's duration over all its rounds. The history runs interleave rounds
    across commits (``--interleave-rounds``), and asv then keeps only the last round's wall
    time in a result row, so a row's duration is one round of ``rounds``."""
    return {k: v * rounds.get(k, 1) for k, v in durations.items()}
