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
from collections.abc import Callable, Sequence
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
from perfgate.watch.prober import ProbeCase
from perfgate.watch.series import HistoryPoint, Series, SeriesError

#: (benchmark, parameter value texts, machine): what one series is the history of.
SeriesKey = tuple[str, tuple[str, ...], str]


@dataclass(frozen=True)
class Loaded:
    """The series found, and one line per case that could not be made a series (why)."""

    series: tuple[Series, ...]
    skipped: tuple[str, ...]


def commit_positions(history_oldest_first: Sequence[str]) -> dict[str, int]:
    """Full commit sha -> its position in first-parent order (0 = oldest)."""
    return {sha: i for i, sha in enumerate(history_oldest_first)}


def load_series(
    results_dir: Path,
    history_oldest_first: Sequence[str],
    higher_is_better: Callable[[str], bool],
) -> Loaded:
    """Every case's series in ``results_dir`` over the commits of ``history_oldest_first``.

    ``higher_is_better(benchmark)`` is the gate's direction rule (`GateConfig.is_higher_better`).
    Only cases asv measured (state OK) count; a case whose values are not positive finite
    numbers (a `track_*` that reports 0) is skipped with a reason, never guessed at.
    """
    benchmarks = read_benchmarks(results_dir)
    positions = commit_positions(history_oldest_first)
    found: dict[SeriesKey, dict[str, list[CaseResult]]] = defaultdict(lambda: defaultdict(list))
    for machine in list_machines(results_dir):
        for item in iter_result_files(results_dir, machine):
            result = read_result_file(item.path, benchmarks)
            if result.commit_hash not in positions:
                continue
            for key, case in result.cases.items():
                if case.state is CaseState.OK:
                    values = tuple(v for _, v in key.params)
                    found[(key.benchmark, values, machine)][result.commit_hash].append(case)
    series, skipped = [], []
    for (benchmark, params, machine), by_commit in sorted(found.items()):
        commits = sorted(by_commit, key=positions.__getitem__)
        try:
            points = tuple(_point(c, positions[c], by_commit[c]) for c in commits)
            series.append(Series(benchmark, params, machine, higher_is_better(benchmark), points))
        except SeriesError as exc:
            skipped.append(str(exc))
    return Loaded(tuple(series), tuple(skipped))


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
