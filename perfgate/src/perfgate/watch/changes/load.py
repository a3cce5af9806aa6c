"""The watched series of an asv results directory (e.g. one `perfgate history export` wrote).

One `Series` per (benchmark, parameter values, machine): a point per measured commit of the
first-parent history, in that order. The files are read by `perfgate.formats.asv_results`
(the only reader); commits outside the history (other branches, rewritten ones) are left out.
Several result files of one commit (a re-run stored beside the first, another environment)
are one point: their samples pooled, or the median of their values when a file has no samples.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfgate.formats.asv_results import (
    CaseResult,
    CaseState,
    iter_result_files,
    list_machines,
    read_result_file,
)
from perfgate.formats.benchmarks_json import case_names, read_benchmarks
from perfgate.watch.changes.series import HistoryPoint, Series, SeriesError
from perfgate.watch.probes.prober import ProbeCase

#: (benchmark, parameter value texts, machine): what one series is the history of.
SeriesKey = tuple[str, tuple[str, ...], str]


@dataclass(frozen=True)
class Loaded:
    """The series found, one line per case that could not be made a series (why), the
    commits with stored results, and those of them outside the history (left out)."""

    series: tuple[Series, ...]
    skipped: tuple[str, ...]
    stored: tuple[str, ...] = ()
    unplaced: tuple[str, ...] = ()


def commit_positions(history_oldest_first: Sequence[str]) -> dict[str, int]:
    """Full commit sha -> its position in first-parent order (0 = oldest)."""
    return {sha: i for i, sha in enumerate(history_oldest_first)}


def load_series(
    results_dir: Path,
    history_oldest_first: Sequence[str],
    higher_is_better: Callable[[str], bool],
    versioned: Callable[[str], bool] = lambda _benchmark: False,
) -> Loaded:
    """Every case's series in ``results_dir`` over the commits of ``history_oldest_first``.

    ``higher_is_better(benchmark)`` is the gate's direction rule (`GateConfig.is_higher_better`).
    Only cases asv measured (state OK) count; a case whose values are not positive finite
    numbers (a `track_*` that reports 0) is skipped with a reason, never guessed at. For a
    ``versioned(benchmark)`` (the sim family: its asv version digests valgrind and the
    simulated caches), only the newest commit's version counts: figures of other versions
    are never compared with it.
    """
    benchmarks = read_benchmarks(results_dir)
    positions = commit_positions(history_oldest_first)
    found: dict[SeriesKey, dict[str, list[CaseResult]]] = defaultdict(lambda: defaultdict(list))
    stored: set[str] = set()
    for machine in list_machines(results_dir):
        for item in iter_result_files(results_dir, machine):
            result = read_result_file(item.path, benchmarks)
            stored.add(result.commit_hash)
            if result.commit_hash not in positions:
                continue
            for key, case in result.cases.items():
                if case.state is CaseState.OK:
                    values = tuple(v for _, v in key.params)
                    found[(key.benchmark, values, machine)][result.commit_hash].append(case)
    series, skipped = [], []
    for (benchmark, params, machine), by_commit in sorted(found.items()):
        if versioned(benchmark):
            by_commit = newest_version(by_commit, positions)
        commits = sorted(by_commit, key=positions.__getitem__)
        try:
            points = tuple(_point(c, positions[c], by_commit[c]) for c in commits)
            series.append(Series(benchmark, params, machine, higher_is_better(benchmark), points))
        except SeriesError as exc:
            skipped.append(str(exc))
    unplaced = sorted(stored - set(positions))
    return Loaded(tuple(series), tuple(skipped), tuple(sorted(stored)), tuple(unplaced))


def newest_version(
    by_commit: Mapping[str, list[CaseResult]], positions: Mapping[str, int]
) -> dict[str, list[CaseResult]]:
    """The results of ``by_commit`` measured under the version of its newest commit's."""
    newest = max(by_commit, key=positions.__getitem__)
    version = by_commit[newest][-1].version
    kept = {c: [r for r in rs if r.version == version] for c, rs in by_commit.items()}
    return {c: rs for c, rs in kept.items() if rs}


#: Commits a message names before it only counts the rest.
MAX_NAMED_COMMITS = 10


def unplaced_problem(loaded: Loaded, where: str) -> tuple[bool, str | None]:
    """Whether the stored commits outside the history (``where``: the history looked in)
    make the run unusable (none of them placed), and the message naming them (None: all
    placed). A history none of whose results can be placed is not "no change"."""
    if not loaded.unplaced:
        return False, None
    named = ", ".join(c[:12] for c in loaded.unplaced[:MAX_NAMED_COMMITS])
    more = len(loaded.unplaced) - MAX_NAMED_COMMITS
    named += f" (+{more} more)" if more > 0 else ""
    if len(loaded.unplaced) == len(loaded.stored):
        return True, (
            f"none of the {len(loaded.stored)} commit(s) with results is in {where} (results "
            f"of another repository, or a shallow clone?): {named}"
        )
    return False, (
        f"{len(loaded.unplaced)} of {len(loaded.stored)} commit(s) with results are not in "
        f"{where} and were left out: {named}"
    )


def case_selector(results_dir: Path) -> Callable[[str, tuple[str, ...]], ProbeCase | None]:
    """(benchmark, parameter value texts) -> the case to re-measure, selected by its anchored
    asv name from ``benchmarks.json`` of ``results_dir`` (None: no such case there)."""
    names = {
        (key.benchmark, tuple(value for _, value in key.params)): name
        for key, name in case_names(read_benchmarks(results_dir)).items()
    }

    def select(benchmark: str, params: tuple[str, ...]) -> ProbeCase | None:
        name = names.get((benchmark, params))
        if name is None:
            return None
        return ProbeCase(benchmark, params, "^" + re.escape(name) + "$")

    return select


def _point(commit: str, position: int, cases: list[CaseResult]) -> HistoryPoint:
    """One commit's point from its stored results (one or several runs)."""
    if all(case.samples for case in cases):
        pooled = [s for case in cases for s in case.samples or ()]
        return HistoryPoint.from_samples(commit, position, pooled)
    values = [case.value for case in cases if case.value is not None]
    if not all(math.isfinite(v) for v in values):
        raise SeriesError(f"history point {commit}: value must be finite, got {values!r}")
    return HistoryPoint(commit, position, statistics.median(values))
