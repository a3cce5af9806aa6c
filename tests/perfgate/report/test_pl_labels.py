"""perfgate.report.labels: a row's label claims no more than its CI shows (issue 38)."""

from __future__ import annotations

import pytest

from perfgate.model import CaseComparison, CaseKey
from perfgate.report.labels import Reading, case_label, reading, relative_label, variant_label
from perfgate.verdict import CaseVerdict


def _row(
    verdict: CaseVerdict, ratio: float | None, ci: tuple[float, float] | None
) -> CaseComparison:
    low, high = ci if ci else (None, None)
    return CaseComparison(
        CaseKey("b.time_x", ()), verdict, 0.05, True, ratio=ratio, ci_low=low, ci_high=high
    )


def test_a_wide_ci_below_the_band_is_undecided_not_same() -> None:
    """The issue's pair: ratio 0.619, CI 0.582-0.970 at a 5% threshold read "= same" (and
    "faster" in the next run). Not slower, yes; the same, no."""
    row = _row(CaseVerdict.UNCHANGED, 0.619, (0.582, 0.970))
    assert reading(row) is Reading.NOT_SLOWER
    assert case_label(row) == "? undecided (not slower)"


@pytest.mark.parametrize(
    ("verdict", "ci", "label"),
    [
        (CaseVerdict.UNCHANGED, (0.96, 1.04), "= same"),
        (CaseVerdict.UNCHANGED, (1 / 1.05, 1.05), "= same"),  # the band's own edges
        (CaseVerdict.INCONCLUSIVE, (0.94, 1.10), "? undecided"),
        (CaseVerdict.INCONCLUSIVE, None, "? inconclusive"),  # too few samples: no CI
        (CaseVerdict.REGRESSED, (1.2, 1.3), "▲ slower"),
        (CaseVerdict.IMPROVED, (0.7, 0.8), "▼ faster"),
        (CaseVerdict.BROKEN, None, "⊘ broken on both"),
    ],
)
def test_case_labels(verdict: CaseVerdict, ci: tuple[float, float] | None, label: str) -> None:
    assert case_label(_row(verdict, 1.0, ci)) == label


def test_variant_rows_say_what_they_compare() -> None:
    """This repository's own report read "0.815 = same" for a variant 18% faster than its
    baseline whose speed-up was not established: it is not slower than the baseline."""
    row = _row(CaseVerdict.UNCHANGED, 0.815, (0.70, 0.98))
    assert variant_label(row, "handwritten") == "✓ not slower than handwritten"
    assert relative_label(row) == "✓ not worse than at base"
    same = _row(CaseVerdict.UNCHANGED, 1.0, (0.98, 1.02))
    assert variant_label(same, "handwritten") == "= as fast as handwritten"
    assert relative_label(same) == "= as at base"
    slow = _row(CaseVerdict.REGRESSED, 1.3, (1.2, 1.4))
    assert variant_label(slow, "handwritten") == "▲ slower than handwritten"
    assert relative_label(slow) == "▲ worse than at base"
    new = _row(CaseVerdict.NEW, None, None)
    assert variant_label(new, "handwritten") == "+ new"
