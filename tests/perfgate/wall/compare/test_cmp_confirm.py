"""perfgate.wall.compare.confirm: a flagged case needs an agreeing re-run."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from cmp_helpers import NO_CONFIRM, key, meas

from perfgate.config import GateConfig
from perfgate.model import CaseComparison, Measurement
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.confirm import confirmation_pending
from perfgate.wall.compare.runs import compare_runs


def test_confirmation_required_and_checked() -> None:
    """A flagged case needs an agreeing re-run when confirmation is on."""
    k = key()
    cfg = GateConfig(confirm=True, resamples=500)
    base, head = {k: meas(k, 1.0, 1)}, {k: meas(k, 1.3, 2)}
    (pending,) = compare_runs(base, head, cfg)
    assert pending.verdict is CaseVerdict.INCONCLUSIVE and "confirmation" in pending.note
    agree = ({k: meas(k, 1.0, 3)}, {k: meas(k, 1.3, 4)})
    (ok,) = compare_runs(base, head, cfg, confirmation=agree)
    assert ok.verdict is CaseVerdict.REGRESSED
    disagree = ({k: meas(k, 1.0, 3)}, {k: meas(k, 1.0, 4)})
    (no,) = compare_runs(base, head, cfg, confirmation=disagree)
    assert no.verdict is CaseVerdict.INCONCLUSIVE and "disagrees" in no.note
    faster = ({k: meas(k, 1.0, 3)}, {k: meas(k, 1.0, 4)})
    (imp,) = compare_runs(base, {k: meas(k, 0.7, 2)}, cfg, confirmation=faster)
    assert imp.verdict is CaseVerdict.UNCHANGED


@pytest.mark.parametrize("flagged_head", [0.7, 1.3])
def test_a_crash_at_head_in_the_re_run_is_a_failure_at_head(flagged_head: float) -> None:
    """Flagged faster or slower, then the case fails at head in every confirmation round:
    FAILED at head (blocks), not UNCHANGED or INCONCLUSIVE."""
    k = key()
    cfg = GateConfig(confirm=True, resamples=500)
    crashed = Measurement(k, (), failed=True)
    again = ({k: meas(k, 1.0, 3)}, {k: crashed})
    (row,) = compare_runs(
        {k: meas(k, 1.0, 1)}, {k: meas(k, flagged_head, 2)}, cfg, confirmation=again
    )
    assert row.verdict is CaseVerdict.FAILED and row.failed_side == "head"
    assert "failed or missing at head in the re-run" in row.note


@pytest.mark.parametrize("bad", [math.nan, 0.0, -1e-3])
@pytest.mark.parametrize("side", ["base", "head"])
def test_invalid_samples_in_the_re_run_are_an_error_not_a_disagreement(
    bad: float, side: str
) -> None:
    """A flagged improvement whose re-run holds a NaN, zero or negative sample: INVALID (an
    error, as in the main run), not "the re-run disagrees" -> UNCHANGED (a pass)."""
    k = key()
    cfg = GateConfig(confirm=True, resamples=500)
    sides = {"base": meas(k, 1.0, 3), "head": meas(k, 0.7, 4)}
    sides[side] = replace(sides[side], samples=(*sides[side].samples[:-1], bad))
    again = ({k: sides["base"]}, {k: sides["head"]})
    (row,) = compare_runs({k: meas(k, 1.0, 1)}, {k: meas(k, 0.7, 2)}, cfg, confirmation=again)
    assert row.verdict is CaseVerdict.INVALID and f"on {side} in the re-run" in row.note


def test_confirmation_replicates_direction_and_size() -> None:
    """The re-run agrees when its ratio clears the threshold and its CI excludes 1.

    Its CI need not clear the threshold too (the main run bounds the effect); a re-run whose
    ratio stays under the threshold, or whose CI reaches 1, does not agree.
    """
    k = key()
    cfg = GateConfig(confirm=True, resamples=500, default_threshold=0.05)
    base, head = {k: meas(k, 1.0, 1, n=40, cv=0.01)}, {k: meas(k, 1.3, 2, n=40, cv=0.01)}
    wide = ({k: meas(k, 1.0, 3, n=40, cv=0.05)}, {k: meas(k, 1.07, 4, n=40, cv=0.05)})
    (row,) = compare_runs(base, head, cfg, confirmation=wide)
    conf = compare_runs(*wide, NO_CONFIRM)[0]
    assert 1.0 < conf.ci_low < 1.05 < conf.ratio  # the re-run's CI straddles 1 + t
    assert row.verdict is CaseVerdict.REGRESSED
    small = ({k: meas(k, 1.0, 3, n=40, cv=0.01)}, {k: meas(k, 1.03, 4, n=40, cv=0.01)})
    (row,) = compare_runs(base, head, cfg, confirmation=small)
    assert row.verdict is CaseVerdict.INCONCLUSIVE and "disagrees" in row.note


def test_confirmation_pending_until_replicated_or_ruled_out() -> None:
    """The re-run gets more rounds while its CI still reaches a threshold-sized effect."""
    k = key()
    row = CaseComparison(k, CaseVerdict.INCONCLUSIVE, threshold=0.03, blocking=True)
    slow, fast = CaseVerdict.REGRESSED, CaseVerdict.IMPROVED

    def at(ratio: float, low: float, high: float, q: float = 0.01) -> CaseComparison:
        return replace(row, ratio=ratio, ci_low=low, ci_high=high, q=q)

    assert not confirmation_pending(at(1.05, 1.01, 1.09), slow, 0.05)  # replicated
    assert confirmation_pending(at(1.05, 0.99, 1.09), slow, 0.05)  # CI reaches 1
    assert confirmation_pending(at(1.05, 1.01, 1.09, q=0.2), slow, 0.05)  # q not small
    assert not confirmation_pending(at(1.0, 0.99, 1.02), slow, 0.05)  # ruled out
    assert not confirmation_pending(at(0.95, 0.93, 0.98), fast, 0.05)
    assert confirmation_pending(at(0.98, 0.96, 1.01), fast, 0.05)
    assert confirmation_pending(row, slow, 0.05)  # no statistics yet (too few rounds)
