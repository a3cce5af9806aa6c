"""One split of a history tested between the regimes on either side of it.

Both kinds of evidence the detector uses (per-commit values of long histories, the pooled
samples of short ones) reduce to the same question: do the values before a split and the values
after it differ? A two-sided Mann-Whitney U test answers whether, the ratio of their medians by
how much. Per-commit values use scipy's test (exact for the smallest regimes); pooled samples,
tested many times over in larger numbers, use the normal approximation computed here directly,
the same as scipy's `method="asymptotic"` but without its per-call overhead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.stats import mannwhitneyu


@dataclass(frozen=True)
class Split:
    """A split at `index` (the first point of the later regime), tested between two regimes.

    `before` and `after` are the medians of the regimes' values, `p_value` the two-sided rank
    test's.
    """

    index: int
    before: float
    after: float
    p_value: float

    @property
    def effect(self) -> float:
        """|log(after / before)|: the size of the change, the same either way round."""
        return abs(math.log(self.after / self.before))

    def passes(self, level: float, min_effect: float) -> bool:
        """Significant at `level` and larger than `min_effect`: a change the detector keeps."""
        return self.p_value < level and self.effect > min_effect


def compare_regimes(
    before: npt.NDArray[np.float64],
    after: npt.NDArray[np.float64],
    index: int,
    *,
    asymptotic: bool = False,
) -> Split:
    """`before` against `after` (each non-empty): their medians and the rank test's p-value.

    `asymptotic` selects the normal approximation (`rank_test_normal`) over scipy's default.
    """
    if np.ptp(np.concatenate([before, after])) == 0.0:
        p_value = 1.0  # every value equal: nothing to rank, and no change
    elif asymptotic:
        p_value = rank_test_normal(before, after)
    else:
        p_value = float(mannwhitneyu(before, after, alternative="two-sided").pvalue)
    return Split(index, float(np.median(before)), float(np.median(after)), p_value)


def rank_test_normal(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
    """Two-sided Mann-Whitney U p-value of `x` against `y` by the normal approximation.

    Tied values share their average rank and shrink the variance; the continuity correction
    moves U half a step toward its mean. All values tied: 1.0 (no evidence).
    """
    n, m = int(x.size), int(y.size)
    total = n + m
    _, inverse, counts = np.unique(np.concatenate([x, y]), return_inverse=True, return_counts=True)
    average_rank = np.cumsum(counts) - (counts - 1) / 2.0
    u = float(average_rank[inverse[:n]].sum()) - n * (n + 1) / 2.0
    ties = float(np.sum(counts.astype(np.float64) ** 3 - counts))
    variance = n * m / 12.0 * ((total + 1) - ties / (total * (total - 1)))
    if variance <= 0.0:
        return 1.0
    z = (abs(u - n * m / 2.0) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2.0)))
