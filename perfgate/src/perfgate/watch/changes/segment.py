"""Candidate change points of one series: ruptures' PELT with the least-absolute-deviation cost.

The segmentation is the library's; this module only scales its penalty to the series' own
noise (ruptures has no noise model and takes a fixed linear penalty) and sets `jump=1` (ruptures'
default of 5 puts breakpoints only on multiples of 5, wrong by up to 4 commits).

The l1 cost fits each segment's median, so a spike inside a regime does not pull its level.
Regimes shorter than the significance test can accept are absorbed by a neighbour, so one
spike is never a regime of its own.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import numpy.typing as npt
import ruptures

# PELT's penalty per change point, in units of (noise scale x log n): twice BIC's for a Laplace
# model. BIC alone runs low (ruptures' maintainer says so), and the significance test after it
# is anti-conservative because PELT chose the split: on synthetic A/A series of 20-40 points at
# CV 2%, 1x kept a change beyond a 3% threshold in 2-4% of series, 2x in 0-2%, with the same
# power for 5% steps. The A/A and step tests in tests/perfgate/watch hold the result.
PENALTY_FACTOR = 2.0
# The shortest segment ruptures' l1 cost accepts: PELT itself may cut anywhere.
_PELT_MIN_SIZE = 2
# A penalty must be > 0; a series without measurable noise gets this tiny one and every split
# is left to the significance test.
_MIN_PENALTY = 1e-12
# Normal-consistency factor of the median absolute deviation.
_MAD_TO_SIGMA = 1.4826


def noise_scale(y: npt.NDArray[np.float64]) -> float:
    """Mean absolute deviation of one point's noise, estimated robustly from first differences.

    The difference of two neighbours cancels the level, so a few steps and spikes do not
    inflate the estimate (they are a few large differences among many small ones).
    """
    if y.size < 2:
        return 0.0
    d = np.diff(y)
    sigma = _MAD_TO_SIGMA * float(np.median(np.abs(d - np.median(d)))) / math.sqrt(2.0)
    return sigma * math.sqrt(2.0 / math.pi)


def candidate_splits(y: npt.NDArray[np.float64], min_segment: int) -> list[int]:
    """Indices where a new regime starts (each the regime's first point), every regime at least
    `min_segment` points long.

    PELT places the breaks with the shortest segments its cost allows, so a change is located
    where it is even when fewer than `min_segment` points follow it; a regime that short is then
    absorbed (`absorb_short_regimes`) rather than stretched over a neighbour's points.
    The penalty is PENALTY_FACTOR x noise scale x log n. It only trims the candidates; the
    caller's significance test decides which changes are real.
    """
    n = int(y.size)
    if n < 2 * min_segment:
        return []
    penalty = max(PENALTY_FACTOR * noise_scale(y) * math.log(n), _MIN_PENALTY)
    algo = ruptures.Pelt(model="l1", min_size=_PELT_MIN_SIZE, jump=1).fit(y)
    breakpoints: list[int] = algo.predict(pen=penalty)
    return absorb_short_regimes(y, [int(b) for b in breakpoints[:-1]], min_segment)


def absorb_short_regimes(
    y: npt.NDArray[np.float64], cuts: list[int], min_segment: int
) -> list[int]:
    """`cuts` without the breaks that leave a regime shorter than `min_segment`.

    The shortest such regime (the first of equals) joins the neighbour whose median is nearer
    its own, until none is left: a spike or two rejoin the regime they interrupt, and the few
    points after a change at the tip of the history wait, un-reported, for more to be measured.
    """
    remaining = list(cuts)
    while remaining:
        bounds = [0, *remaining, int(y.size)]
        lengths = [stop - start for start, stop in itertools.pairwise(bounds)]
        shortest = min(range(len(lengths)), key=lambda k: lengths[k])
        if lengths[shortest] >= min_segment:
            break
        remaining.remove(_nearer_side(y, bounds, shortest))
    return remaining


def _nearer_side(y: npt.NDArray[np.float64], bounds: list[int], k: int) -> int:
    """The cut between regime `k` (of `bounds`) and the neighbour with the nearer median."""
    if k == 0:
        return bounds[1]
    if k == len(bounds) - 2:
        return bounds[k]

    def level(j: int) -> float:
        return float(np.median(y[bounds[j] : bounds[j + 1]]))

    own = level(k)
    left_gap, right_gap = abs(level(k - 1) - own), abs(level(k + 1) - own)
    return bounds[k] if left_gap <= right_gap else bounds[k + 1]
