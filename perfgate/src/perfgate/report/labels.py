"""What a compared row's label says: what the row decided, in its own terms (pure).

A verdict is what the gate acts on; a label is what a reader sees beside the ratio, and it
must not claim more than the CI shows. UNCHANGED means "no slowdown beyond the threshold"
(the CI's upper end is within 1 + threshold): only when the whole CI is inside the band
1/(1 + t) .. 1 + t is the case "the same"; a CI that reaches below the band (ratio 0.619,
CI 0.582-0.970) is "undecided" whether it got faster, though certainly not slower. A CI that
spans the band's upper end (INCONCLUSIVE with a CI) is undecided too; without a CI (too few
samples, different versions) it stays "inconclusive".

Variant rows decide other things than head vs base rows, so they say so: the row at head
compares the variant with its baseline ("faster than handwritten"), the change-from-base row
compares that ratio with the one at base ("worse than at base").
"""

from __future__ import annotations

from enum import Enum

from perfgate.model import CaseComparison
from perfgate.verdict import CaseVerdict


class Reading(Enum):
    """What a row shows, finer than its verdict where the CI says less than the verdict."""

    SLOWER = "slower"
    FASTER = "faster"
    SAME = "same"  # the CI inside the threshold band
    NOT_SLOWER = "not slower"  # UNCHANGED, the CI reaching below the band
    UNDECIDED = "undecided"  # INCONCLUSIVE with a CI across the band's upper end
    OTHER = "other"  # the verdict's own symbol (new, removed, failed, ...)


def reading(row: CaseComparison) -> Reading:
    """What ``row`` shows (pure)."""
    v = row.verdict
    if v is CaseVerdict.REGRESSED:
        return Reading.SLOWER
    if v is CaseVerdict.IMPROVED:
        return Reading.FASTER
    has_ci = row.ci_low is not None and row.ci_high is not None
    if v is CaseVerdict.UNCHANGED:
        below_band = has_ci and row.ci_low < 1.0 / (1.0 + row.threshold)  # type: ignore[operator]
        return Reading.NOT_SLOWER if below_band else Reading.SAME
    if v is CaseVerdict.INCONCLUSIVE and has_ci:
        return Reading.UNDECIDED
    return Reading.OTHER


_CASE = {
    Reading.SAME: "= same",
    Reading.NOT_SLOWER: "? undecided (not slower)",
    Reading.UNDECIDED: "? undecided",
}
_VARIANT = {
    Reading.SLOWER: "▲ slower than {baseline}",
    Reading.FASTER: "▼ faster than {baseline}",
    Reading.SAME: "= as fast as {baseline}",
    Reading.NOT_SLOWER: "✓ not slower than {baseline}",
    Reading.UNDECIDED: "? undecided vs {baseline}",
}
_RELATIVE = {
    Reading.SLOWER: "▲ worse than at base",
    Reading.FASTER: "▼ better than at base",
    Reading.SAME: "= as at base",
    Reading.NOT_SLOWER: "✓ not worse than at base",
    Reading.UNDECIDED: "? undecided vs base",
}


def case_label(row: CaseComparison) -> str:
    """The label of a head vs base row."""
    return _CASE.get(reading(row), row.verdict.symbol)


def variant_label(row: CaseComparison, baseline: str) -> str:
    """The label of a variant vs ``baseline`` row at head."""
    text = _VARIANT.get(reading(row))
    return text.format(baseline=baseline) if text else row.verdict.symbol


def relative_label(row: CaseComparison) -> str:
    """The label of a variant's change-from-base row (its ratio at head over that at base)."""
    return _RELATIVE.get(reading(row), row.verdict.symbol)
