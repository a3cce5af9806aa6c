"""One pair of measurements to compare: decided without statistics, or tested.

A pair whose sides are missing, failed, invalid, of different benchmark versions or too
small is decided here (`untestable`); otherwise `test_pair` gives the ratio, its bootstrap
CI and a rank-test p-value, always as a cost ratio (above 1 means head is worse).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from perfgate import stats
from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey, Measurement, Reason
from perfgate.verdict import CaseVerdict


@dataclass(frozen=True)
class CasePair:
    """What to compare for one row: ``base`` is the reference side (base, or the baseline)."""

    key: CaseKey
    base: Measurement | None
    head: Measurement | None
    noise_floor: float | None = None
    threshold: float | None = None
    check_version: bool = True


@dataclass(frozen=True)
class Tested:
    """The statistics of one tested pair (ratio b/a, CI, two-sided p)."""

    ratio: float
    ci_low: float
    ci_high: float
    p: float
    paired: bool


def explained(
    row: CaseComparison, verdict: CaseVerdict, reason: Reason, **fields: Any
) -> CaseComparison:
    """``row`` with ``verdict`` and the ``reason`` for it (its note rendered from the reason)."""
    return replace(row, verdict=verdict, reason=reason, note=reason.text(**fields))


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


def _failed_side(a: Measurement, b: Measurement) -> str:
    return "both" if a.failed and b.failed else ("base" if a.failed else "head")


def untestable(pair: CasePair, row: CaseComparison, min_samples: int) -> CaseComparison | None:
    """Rows decided without statistics: NEW, REMOVED, FAILED, INVALID, too few samples."""
    a, b = pair.base, pair.head
    if a is None and b is None:
        return explained(row, CaseVerdict.INVALID, Reason.NO_DATA)
    if a is None and b is not None and b.failed:
        failed = replace(row, failed_side="head")
        return explained(failed, CaseVerdict.FAILED, Reason.FAILED_HEAD_NO_BASE)
    if a is None:
        return explained(row, CaseVerdict.NEW, Reason.NO_BASE)
    if b is None:
        return explained(row, CaseVerdict.REMOVED, Reason.NO_HEAD)
    if a.failed or b.failed:
        side = _failed_side(a, b)
        return explained(
            replace(row, failed_side=side), CaseVerdict.FAILED, Reason.FAILED, side=side
        )
    if not a.valid or not b.valid:
        side = "base" if not a.valid else "head"
        return explained(row, CaseVerdict.INVALID, Reason.INVALID_SAMPLES, side=side)
    if pair.check_version and a.version and b.version and a.version != b.version:
        return explained(row, CaseVerdict.INCONCLUSIVE, Reason.VERSION_DIFFERS)
    if a.n < min_samples or b.n < min_samples:
        return explained(
            row,
            CaseVerdict.INCONCLUSIVE,
            Reason.TOO_FEW_SAMPLES,
            n_base=a.n,
            n_head=b.n,
            need=min_samples,
        )
    return None
