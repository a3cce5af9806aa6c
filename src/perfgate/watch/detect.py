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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np
import numpy.typing as npt
from scipy.stats import mannwhitneyu

from perfgate.errors import ConfigError
from perfgate.watch.segment import candidate_splits
from perfgate.watch.series import Series

# Shortest regime, in measured commits, on either side of a change. Below 4 a two-sided rank
# test cannot reach p < 0.05 at all; 5 allows alpha down to 0.008 and keeps a single spike far
# from being a regime. A regression at the tip of main is reported once it has this many points.
MIN_SEGMENT = 5


class Direction(Enum):
    """Which way a change moved the case, in the gate's worse-is-> 1 sense."""

    REGRESSION = "regression"
    IMPROVEMENT = "improvement"


class ChangeStatus(Enum):
    """How far a change has got. The detector only suspects; later steps promote it."""

    SUSPECTED = "suspected"  # found in the history, not re-measured yet
    CONFIRMED = "confirmed"  # an A/B re-measurement of the range agrees
    BISECTED = "bisected"  # the culprit commit inside the range is known
    RECOVERED = "recovered"  # a later change brought the case back


@dataclass(frozen=True)
class ChangePoint:
    """One change in a series: where the new regime starts, its size and its evidence.

    `index` is the position in `series.points` of the first commit of the new regime
    (`first_bad_commit`); `last_good_commit` is the measured commit just before it. `before` and
    `after` are the medians of the two regimes' values, `ratio` their ratio with worse > 1.
    """

    index: int
    last_good_commit: str
    first_bad_commit: str
    before: float
    after: float
    ratio: float
    direction: Direction
    p_value: float
    status: ChangeStatus = ChangeStatus.SUSPECTED


@dataclass(frozen=True)
class _Split:
    """A tested split of values[start:stop] at `index`."""

    index: int
    before: float
    after: float
    p_value: float

    @property
    def effect(self) -> float:
        """|log(after / before)|: the size of the change, the same either way round."""
        return abs(math.log(self.after / self.before))


def min_points(min_segment: int = MIN_SEGMENT) -> int:
    """The fewest measured commits in which `detect` can find a change: a regime each side."""
    return 2 * min_segment


def smallest_p_value(min_segment: int = MIN_SEGMENT) -> float:
    """The smallest two-sided p-value the rank test gives two regimes of `min_segment` points."""
    return 2.0 / math.comb(2 * min_segment, min_segment)


def detect(
    series: Series, threshold: float, alpha: float, *, min_segment: int = MIN_SEGMENT
) -> list[ChangePoint]:
    """The change points of `series` beyond `threshold` at significance `alpha`, in order.

    `threshold` is the case's relative threshold (0.05 = 5%): a change is reported only if the
    ratio of the regime medians is above 1 + threshold or below 1 / (1 + threshold), the gate's
    rule. A history shorter than `min_points(min_segment)` yields no change points (no guess),
    and so does a change with fewer than `min_segment` measured commits after it, until more
    commits are measured.
    """
    _check_arguments(threshold, alpha, min_segment)
    values = np.asarray(series.values, dtype=np.float64)
    if values.size < min_points(min_segment):
        return []
    cuts = candidate_splits(np.log(values), min_segment)
    kept = _prune(values, cuts, math.log1p(threshold), alpha)
    return [_change_point(series, split) for split in kept]


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
) -> list[_Split]:
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


def _test_splits(values: npt.NDArray[np.float64], cuts: list[int]) -> list[_Split]:
    """Each cut tested between the regimes on either side of it (bounded by its neighbours)."""
    bounds = [0, *cuts, int(values.size)]
    return [
        _test_split(values[bounds[k - 1] : bounds[k]], values[bounds[k] : bounds[k + 1]], cut)
        for k, cut in enumerate(cuts, start=1)
    ]


def _test_split(
    before: npt.NDArray[np.float64], after: npt.NDArray[np.float64], index: int
) -> _Split:
    if np.ptp(np.concatenate([before, after])) == 0.0:
        p_value = 1.0  # every value equal: nothing to rank, and no change
    else:
        p_value = float(mannwhitneyu(before, after, alternative="two-sided").pvalue)
    return _Split(index, float(np.median(before)), float(np.median(after)), p_value)


def _change_point(series: Series, split: _Split) -> ChangePoint:
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
    )
