"""perfgate.wall.compare.broken: a case failing on both sides is BROKEN, not FAILED;
asv's error text follows the note of failing rows."""

from __future__ import annotations

from cmp_helpers import key, meas, one

from perfgate.model import CaseComparison, Measurement, Reason
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.broken import with_failure_texts


def _failed(name: str = "b.time_x") -> Measurement:
    return Measurement(key(name), (), failed=True)


def test_failing_on_both_sides_is_broken_not_failed() -> None:
    """Issue 38: an A/A gate whose benchmark fails at base and head read "failed or timed out
    on both" as a failure at head (REGRESSION). It is its own verdict and reason."""
    row = one(_failed(), _failed())
    assert row.verdict is CaseVerdict.BROKEN and row.reason is Reason.BROKEN_ON_BOTH
    assert row.note == "failed or timed out at base and at head: broken before this change"


def test_failing_on_one_side_is_still_a_failure_of_that_side() -> None:
    k = key()
    at_head = one(meas(k, 1.0, 1), _failed())
    at_base = one(_failed(), meas(k, 1.0, 1))
    assert (at_head.verdict, at_head.failed_side) == (CaseVerdict.FAILED, "head")
    assert (at_base.verdict, at_base.failed_side) == (CaseVerdict.FAILED, "base")


def test_failure_texts_follow_the_notes_of_failing_rows_only() -> None:
    broken = one(_failed(), _failed())
    fine = CaseComparison(key("b.time_y"), CaseVerdict.UNCHANGED, 0.05, True, note="ok")
    texts = {"b.time_x": "ValueError: boom (bench.py, line 3, in time_x)", "b.time_y": "no"}
    out = with_failure_texts([broken, fine], texts)
    assert out[0].note == f"{broken.note}: ValueError: boom (bench.py, line 3, in time_x)"
    assert out[1] == fine
    assert with_failure_texts([broken], {}) == [broken]
