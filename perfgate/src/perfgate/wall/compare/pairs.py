"""One pair of measurements to compare: decided without statistics, or tested.

A pair whose sides are missing, failed, invalid, of different benchmark versions or too
small is decided here (`untestable`); otherwise `test_pair` gives the ratio, its bootstrap
CI and a rank-test p-value, always as a cost ratio (above 1 means head is worse).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfgate import stats
from perfgate.case_pairs import CasePair
from perfgate.config import GateConfig
from perfgate.model import Measurement


@dataclass(frozen=True)
class Tested:
    """The statistics of one tested pair (ratio b/a, CI, two-sided p)."""

    ratio: float
    ci_low: float
    ci_high: float
    p: float
    paired: bool


def _is_paired(a: Measurement, b: Measurement) -> bool:
    return a.rounds is not None and b.rounds is not None and len(a.rounds) == len(b.rounds)


def cost_order(pair: CasePair, config: GateConfig) -> tuple[Measurement, Measurement]:
    """(base, head), or (head, base) for a higher-is-better benchmark: the tested ratio is
    then base/head, so that for every case a ratio above 1 means head is worse."""
    assert pair.base is not None and pair.head is not None
    if config.is_higher_better(pair.key.benchmark):
        return pair.head, pair.base
    return pair.base, pair.head


def test_pair(a: Measurement, b: Measurement, config: GateConfig) -> Tested:
    """Ratio b/a, bootstrap CI and two-sided rank-test p-value."""
    ratio = stats.ratio_of_medians(a.samples, b.samples)
    opts = {"confidence": config.confidence, "resamples": config.resamples, "seed": config.seed}
    if _is_paired(a, b):
        assert a.rounds is not None and b.rounds is not None
        low, high = stats.paired_bootstrap_ratio_ci(a.rounds, b.rounds, **opts)  # type: ignore[arg-type]
        diffs = [
            math.log(float(np.median(rb)) / float(np.median(ra)))
            for ra, rb in zip(a.rounds, b.rounds, strict=True)
        ]
        p = stats.wilcoxon_signed_rank(diffs).pvalue
        return Tested(ratio, low, high, p, True)
    low, high = stats.bootstrap_ratio_ci(a.samples, b.samples, **opts)  # type: ignore[arg-type]
    p = stats.mann_whitney_u(b.samples, a.samples).pvalue
    return Tested(ratio, low, high, p, False)
