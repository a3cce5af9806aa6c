"""Direction-aware change points of one case's history on one machine.

Two stages, both deterministic (no permutation, no random draw):

1. ruptures' PELT proposes where regimes start (`segment.candidate_splits`), permissively.
2. Each proposed split is tested between its two neighbouring regimes: a two-sided
   Mann-Whitney U test on the per-commit values (one replication unit per measured commit; the
   samples inside one commit are not independent of its build) and the ratio of the regimes'
   medians. A split stays only if p < alpha and the ratio is beyond the case's threshold. As in
   Hunter's merge step (Fleming et al., ICPE 2023), the weakest split (largest p, then the
   smallest effect) is removed first and its neighbours are re-tested against the wider regimes
   that removal leaves, until every remaining split passes.

The ratio follows the gate's convention, worse is > 1: head/base for lower-is-better values,
base/head for higher-is-better ones, with base = the regime before and head = the regime after.
A change point is the first measured commit of the new regime; the commits between it and the
last measured commit before it were not measured, so the culprit lies in that range.

A history of fewer than `min_points()` measured commits cannot hold two regimes of commits; if
every commit of it carries its sample list, the samples are the evidence instead
(`watch.changes.samples`). A deterministic series (the sim instrument's counts, the same for
the same code on any run) needs neither: every step between two neighbouring measured
commits beyond the threshold is a change, from single stored runs (`count_steps`). Each
change point says which evidence found it (`Evidence`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np
import numpy.typing as npt

from perfgate.errors import ConfigError
from perfgate.watch.changes.samples import sample_splits
from perfgate.watch.changes.segment import candidate_splits
from perfgate.watch.changes.series import Series
from perfgate.watch.changes.splits import Split, compare_regimes

# Shortest regime, in measured commits, on either side of a change. Below 4 a two-sided rank
# test cannot reach p < 0.05 at all; 5 allows alpha down to 0.008 and keeps a single spike far
# from being a regime. A regression at the tip of main is reported once it has this many points.
MIN_SEGMENT = 5


class Direction(Enum):
    """Which way a change moved the case, in the gate's worse-is-> 1 sense."""

    REGRESSION = "regression"
    IMPROVEMENT = "improvement"


class Evidence(Enum):
    """What a change was found in; a report says so, and how far to trust it."""

    COMMITS = "commits"  # per-commit values, regimes of >= min_segment measured commits
    SAMPLES = "samples"  # the pooled samples inside each commit of a short history
    COUNTS = "counts"  # deterministic counts (sim): one stored run per commit decides


class ChangeStatus(Enum):
    """How far a change has got. The detector only suspects; later steps promote it."""

    SUSPECTED = "suspected"  # found in the history, not re-measured yet
    CONFIRMED = "confirmed"  # an A/B re-measurement of the range agrees
    BISECTED = "bisected"  # the culprit commit inside the range is known
    RECOVERED = "recovered"  # a later change brought the case back
    NOT_CONFIRMED = "not-confirmed"  # an A/B re-measurement of the range found no change


@dataclass(frozen=True)
class ChangePoint:
    """One change in a series: where the new regime starts, its size and its evidence.

    `index` is the position in `series.points` of the first commit of the new regime
    (`first_bad_commit`); `last_good_commit` is the measured commit just before it. `before` and
    `after` are the medians of the two regimes' values (per-commit values, or pooled samples
    when `evidence` is `Evidence.SAMPLES`), `ratio` their ratio with worse > 1.
    """

    index: int
    last_good_commit: str
    first_bad_commit: str
    before: float
    after: float
    ratio: float
    direction: Direction
    p_value: float
    evidence: Evidence
    status: ChangeStatus = ChangeStatus.SUSPECTED


def min_points(min_segment: int = MIN_SEGMENT) -> int:
    """The fewest measured commits for `Evidence.COMMITS`: a regime of commits each side.

    Shorter histories are analysed on their samples, if every commit has them.
    """
    return 2 * min_segment


def smallest_p_value(min_segment: int = MIN_SEGMENT) -> float:
    """The smallest two-sided p-value the rank test gives two regimes of `min_segment` points."""
    return 2.0 / math.comb(2 * min_segment, min_segment)


def count_steps(series: Series, threshold: float) -> list[ChangePoint]:
    """The changes of a deterministic series: every pair of neighbouring measured commits
    whose values differ beyond ``threshold`` (ratio above 1 + threshold or below its
    inverse). No test: a count does not move between runs of the same code, so a step is
    the code's. p-values are 0."""
    _check_arguments(threshold, 0.5, MIN_SEGMENT)
    values = series.values
    out = []
    for i in range(1, len(values)):
        change = values[i] / values[i - 1]
        if change > 1.0 + threshold or change < 1.0 / (1.0 + threshold):
            split = Split(i, values[i - 1], values[i], 0.0)
            out.append(_change_point(series, split, Evidence.COUNTS))
    return out


def detect(
    series: Series,
    threshold: float,
    alpha: float,
    *,
    min_segment: int = MIN_SEGMENT,
    deterministic: bool = False,
) -> list[ChangePoint]:
    """The change points of `series` beyond `threshold` at significance `alpha`, in order.

    `threshold` is the case's relative threshold (0.05 = 5%): a change is reported only if the
    ratio of the regime medians is above 1 + threshold or below 1 / (1 + threshold), the gate's
    rule. From `min_points(min_segment)` measured commits on, the per-commit values are the
    evidence, and a change with fewer than `min_segment` measured commits after it waits for
    more. A shorter history is analysed on the samples inside its commits
    (`perfgate.watch.changes.samples`), down to two commits and up to the last one; if any of its
    commits has no samples, it yields no change points (no guess). A ``deterministic``
    series is read by `count_steps`.
    """
    if deterministic:
        return count_steps(series, threshold)
    _check_arguments(threshold, alpha, min_segment)
    min_effect = math.log1p(threshold)
    values = np.asarray(series.values, dtype=np.float64)
    if values.size >= min_points(min_segment):
        cuts = candidate_splits(np.log(values), min_segment)
        kept = _prune(values, cuts, min_effect, alpha)
        return [_change_point(series, split, Evidence.COMMITS) for split in kept]
    if values.size < 2 or not all(point.samples for point in series.points):
        return []
    groups = [np.asarray(point.samples, dtype=np.float64) for point in series.points]
    kept = sample_splits(groups, min_effect, alpha)
    return [_change_point(series, split, Evidence.SAMPLES) for split in kept]


def _check_arguments(threshold: float, alpha: float, min_segment: int) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ConfigError(f"threshold must be a number, got {threshold!r}")
    if not math.isfinite(threshold) or threshold <= 0.0:
        raise ConfigError(f"threshold must be a finite number > 0, got {threshold!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise ConfigError(f"alpha must be a number in (0, 1), got {alpha!r}")
    if isinstance(min_segment, bool) or not isinstance(min_segment, int) or min_segment < 2:
        raise ConfigError(f"min_segment must be an int >= 2, got {min_segment!r}")
    if smallest_p_value(min_segment) >= alpha:
        raise ConfigError(
            f"alpha = {alpha:g} is unreachable with regimes of {min_segment} commits (the rank "
            f"test's smallest p-value is {smallest_p_value(min_segment):.3g}); raise alpha or "
            f"min_segment"
        )


def _prune(
    values: npt.NDArray[np.float64], cuts: list[int], min_effect: float, alpha: float
) -> list[Split]:
    """The splits left once the weakest failing one is removed, one at a time, and re-tested."""
    remaining = list(cuts)
    while remaining:
        splits = _test_splits(values, remaining)
        weakest = max(splits, key=lambda s: s.p_value)
        if weakest.p_value < alpha:
            weakest = min(splits, key=lambda s: s.effect)
            if weakest.effect > min_effect:
                return splits
        remaining.remove(weakest.index)
    return []


def _test_splits(values: npt.NDArray[np.float64], cuts: list[int]) -> list[Split]:
    """Each cut tested between the regimes on either side of it (bounded by its neighbours)."""
    bounds = [0, *cuts, int(values.size)]
    return [
        compare_regimes(values[bounds[k - 1] : bounds[k]], values[bounds[k] : bounds[k + 1]], cut)
        for k, cut in enumerate(cuts, start=1)
    ]


def _change_point(series: Series, split: Split, evidence: Evidence) -> ChangePoint:
    if series.higher_is_better:
        ratio = split.before / split.after
    else:
        ratio = split.after / split.before
    return ChangePoint(
        index=split.index,
        last_good_commit=series.points[split.index - 1].commit,
        first_bad_commit=series.points[split.index].commit,
        before=split.before,
        after=split.after,
        ratio=ratio,
        direction=Direction.REGRESSION if ratio > 1.0 else Direction.IMPROVEMENT,
        p_value=split.p_value,
        evidence=evidence,
    )
