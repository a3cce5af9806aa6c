"""One row to decide (`CasePair`: a case's two sides) and the rows every instrument decides
without statistics (`untestable`: new, removed, failed, invalid, too few samples), with the
reason enum behind each verdict (`explained`). Shared by the instruments' comparisons."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

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


def explained(
    row: CaseComparison, verdict: CaseVerdict, reason: Reason, **fields: Any
) -> CaseComparison:
    """``row`` with ``verdict`` and the ``reason`` for it (its note rendered from the reason)."""
    return replace(row, verdict=verdict, reason=reason, note=reason.text(**fields))


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
