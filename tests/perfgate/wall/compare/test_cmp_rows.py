"""perfgate.wall.compare.rows: per-case verdicts, noise floors, FDR, paired rounds."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from cmp_helpers import NO_CONFIRM, key, meas, one

from perfgate.model import Measurement
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.runs import compare_runs


def test_stable_regression_improvement_and_unchanged() -> None:
    """20% slower -> REGRESSED, 20% faster -> IMPROVED, same -> UNCHANGED."""
    k = key()
    assert one(meas(k, 1.0, 1), meas(k, 1.2, 2)).verdict is CaseVerdict.REGRESSED
    assert one(meas(k, 1.0, 1), meas(k, 0.8, 2)).verdict is CaseVerdict.IMPROVED
    row = one(meas(k, 1.0, 1), meas(k, 1.0, 2))
    assert row.verdict is CaseVerdict.UNCHANGED
    assert row.ci_low is not None and row.ci_high is not None
    assert row.ci_low < 1.0 < row.ci_high and row.q is not None and row.p is not None


def test_higher_is_better_benchmarks_are_compared_as_base_over_head() -> None:
    """Throughput 10000 -> 7000 env-steps/s is a 30% loss: REGRESSED, ratio 1/0.7, and the
    row says how its ratio reads; a rise is an improvement. Confirmation uses the same
    orientation (a re-run that agrees keeps the verdict)."""
    k = key("collector.Collector.track_env_steps_per_s")
    cfg = replace(NO_CONFIRM, higher_is_better=(r"\.track_env_steps_per_s$",))
    row = one(meas(k, 10000.0, 1), meas(k, 7000.0, 2), cfg)
    assert row.verdict is CaseVerdict.REGRESSED
    assert row.ratio == pytest.approx(1 / 0.7, rel=0.03)
    assert row.note.startswith("higher is better: ratio = base/head")
    assert one(meas(k, 10000.0, 1), meas(k, 13000.0, 2), cfg).verdict is CaseVerdict.IMPROVED
    assert one(meas(k, 10000.0, 1), meas(k, 7000.0, 2)).verdict is CaseVerdict.IMPROVED  # unset
    confirmed = replace(cfg, confirm=True)
    again = ({k: meas(k, 10000.0, 3)}, {k: meas(k, 7000.0, 4)})
    rows = compare_runs(
        {k: meas(k, 10000.0, 1)}, {k: meas(k, 7000.0, 2)}, confirmed, confirmation=again
    )
    assert rows[0].verdict is CaseVerdict.REGRESSED


def test_new_removed_failed_invalid_too_few() -> None:
    """Rows decided without statistics."""
    k = key()
    assert one(None, meas(k, 1.0, 1)).verdict is CaseVerdict.NEW
    assert one(meas(k, 1.0, 1), None).verdict is CaseVerdict.REMOVED
    failed = one(meas(k, 1.0, 1), Measurement(k, (), failed=True))
    assert failed.verdict is CaseVerdict.FAILED and failed.failed_side == "head"
    nan = Measurement(k, (1.0, math.nan, 1.0, 1.0, 1.0, 1.0))
    assert one(meas(k, 1.0, 1), nan).verdict is CaseVerdict.INVALID
    negative = Measurement(k, (1.0, -1.0, 1.0, 1.0, 1.0, 1.0))
    assert one(negative, meas(k, 1.0, 1)).verdict is CaseVerdict.INVALID
    few = one(meas(k, 1.0, 1, n=3), meas(k, 2.0, 2, n=3))
    assert few.verdict is CaseVerdict.INCONCLUSIVE and "too few samples" in few.note


def test_single_value_without_samples_is_inconclusive() -> None:
    """asv results without --record-samples hold one value: never a pass by default."""
    k = key()
    row = one(Measurement(k, (1.0,)), Measurement(k, (1.5,)))
    assert row.verdict is CaseVerdict.INCONCLUSIVE


def test_noise_floor_raises_threshold() -> None:
    """A 10% slowdown is a regression at 5%, but not on a case with a 15% noise floor."""
    k = key()
    base, head = meas(k, 1.0, 1), meas(k, 1.1, 2)
    assert one(base, head).verdict is CaseVerdict.REGRESSED
    row = one(base, head, noise_floors={k: 0.15})
    assert row.threshold == 0.15 and row.verdict is CaseVerdict.UNCHANGED


def test_ci_spanning_threshold_is_inconclusive() -> None:
    """Very noisy data that cannot exclude a regression is not a pass."""
    k = key()
    row = one(meas(k, 1.0, 1, cv=0.3), meas(k, 1.02, 2, cv=0.3))
    assert row.verdict is CaseVerdict.INCONCLUSIVE


def test_version_mismatch_is_not_comparable() -> None:
    """Different asv benchmark versions are not compared."""
    k = key()
    a = Measurement(k, meas(k, 1.0, 1).samples, version="v1")
    b = Measurement(k, meas(k, 1.0, 2).samples, version="v2")
    assert "version differs" in one(a, b).note


def test_fdr_across_cases() -> None:
    """q >= p and q is computed across all tested cases."""
    ks = [key(n=i) for i in range(10)]
    base = {k: meas(k, 1.0, i) for i, k in enumerate(ks)}
    head = {k: meas(k, 1.0 if i else 1.15, 100 + i) for i, k in enumerate(ks)}
    rows = compare_runs(base, head, NO_CONFIRM)
    assert all(r.q is not None and r.p is not None and r.q >= r.p for r in rows)
    assert [r.verdict for r in rows].count(CaseVerdict.REGRESSED) == 1


def test_paired_rounds_use_signed_rank() -> None:
    """Paired rounds from a sample file are compared with the paired statistics."""
    k = key()
    rng = np.random.default_rng(4)
    drift = np.exp(rng.normal(0, 0.1, 8))
    b_rounds = tuple(tuple(float(d * x) for x in np.exp(rng.normal(0, 0.01, 3))) for d in drift)
    h_rounds = tuple(tuple((1.2 + 0.01 * i) * s for s in r) for i, r in enumerate(b_rounds))
    base = Measurement(k, tuple(s for r in b_rounds for s in r), rounds=b_rounds)
    head = Measurement(k, tuple(s for r in h_rounds for s in r), rounds=h_rounds)
    row = one(base, head)
    assert row.paired and row.n_base == 8 and row.verdict is CaseVerdict.REGRESSED
    assert row.p == pytest.approx(2 / 2**8)


def test_q_value_gate_needs_fdr_control() -> None:
    """One clear shift among 50 cases with 6 samples each: its CI is above the threshold,
    but the smallest exact p (2/924) times 50 cases is not below alpha, so it is not stable."""
    ks = [key(n=i) for i in range(50)]
    base = {k: meas(k, 1.0, i, n=6) for i, k in enumerate(ks)}
    head = {k: meas(k, 1.3 if i == 0 else 1.0, 100 + i, n=6) for i, k in enumerate(ks)}
    row = compare_runs(base, head, NO_CONFIRM)[0]
    assert row.ci_low is not None and row.ci_low > 1.05 and row.p is not None and row.p < 0.05
    assert row.q is not None and row.q >= 0.05
    assert row.verdict is CaseVerdict.INCONCLUSIVE and "q =" in row.note
