"""perfgate.compare: per-case verdicts, confirmation, noise floors, variants, scaling."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from perfgate.config import BaselinePair, GateConfig, ScalingConfig
from perfgate.model import CaseComparison, CaseKey, Measurement
from perfgate.pipeline.compare.compile_times import compile_times
from perfgate.pipeline.compare.confirm import confirmation_pending
from perfgate.pipeline.compare.measurements import measurements_from_samples
from perfgate.pipeline.compare.runs import compare_runs, compare_variants
from perfgate.pipeline.compare.scaling import scaling_rows, thread_scaling
from perfgate.verdict import CaseVerdict

NO_CONFIRM = GateConfig(confirm=False, resamples=500)


def key(name: str = "b.time_x", **params: object) -> CaseKey:
    return CaseKey(name, tuple((k, str(v)) for k, v in params.items()))


def meas(k: CaseKey, median: float, seed: int, n: int = 12, cv: float = 0.02) -> Measurement:
    rng = np.random.default_rng(seed)
    return Measurement(k, tuple(float(x) for x in median * np.exp(rng.normal(0, cv, n))))


def one(
    base: Measurement | None,
    head: Measurement | None,
    config: GateConfig = NO_CONFIRM,
    **kw: object,
) -> CaseComparison:
    k = (base or head).key  # type: ignore[union-attr]
    b = {k: base} if base else {}
    h = {k: head} if head else {}
    (row,) = compare_runs(b, h, config, **kw)  # type: ignore[arg-type]
    return row


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


def test_a_flaky_base_round_is_dropped_not_a_failed_case() -> None:
    """Base failing in one of 8 rounds: that round leaves both sides (pairing kept) and the
    2x regression is still found; head failing in one round fails head (it blocks)."""
    from perfgate.formats.samples import PairedCase, SampleRun

    k = key()
    base_rounds = [(1.0 + 0.01 * i, 1.0) for i in range(8)]
    head_rounds = [(2.0 + 0.01 * i, 2.0) for i in range(8)]

    def measure(b: list, h: list) -> tuple[Measurement, Measurement]:  # type: ignore[type-arg]
        case = PairedCase(k, tuple(b), tuple(h))
        run = SampleRun("s", "a" * 40, "b" * 40, {}, "seconds", "", {k: case}, ())
        base, head = measurements_from_samples(run)
        return base[k], head[k]

    b, h = measure([*base_rounds[:3], None, *base_rounds[4:]], head_rounds)
    assert not b.failed and b.n == h.n == 7
    assert one(b, h).verdict is CaseVerdict.REGRESSED
    b, h = measure(base_rounds, [*head_rounds[:3], None, *head_rounds[4:]])
    assert h.failed and not b.failed
    b, h = measure([None] * 8, head_rounds)
    assert b.failed and not h.failed


def test_variant_vs_baseline_rows_and_speedups() -> None:
    """Variant/baseline ratio per remaining params, speed-up vs the reference path."""
    pair = BaselinePair("path", "assembled", "handwritten", reference="numpy")
    cfg = GateConfig(confirm=False, resamples=500, baselines=(pair,))
    head = {}
    for n, (hand, asm) in {8: (1.0, 2.0), 16: (2.0, 1.0)}.items():
        for path, t in (("handwritten", hand), ("assembled", asm), ("numpy", 10.0)):
            k = key(n=n, path=path)
            head[k] = meas(k, t, n + len(path))
    rows = compare_variants(head, cfg)
    assert [r.row.key for r in rows] == [key(n=8), key(n=16)]
    slow, fast = rows
    assert slow.row.verdict is CaseVerdict.REGRESSED and slow.row.ratio == pytest.approx(
        2, rel=0.05
    )
    assert fast.row.verdict is CaseVerdict.IMPROVED
    assert slow.speedup_variant == pytest.approx(5, rel=0.05)
    assert slow.speedup_baseline == pytest.approx(10, rel=0.05)
    assert slow.row.blocking


def test_speedups_of_throughput_benchmarks_are_variant_over_reference() -> None:
    """Env-steps per second: numpy 1000/s, handwritten 10 000/s, assembled 20 000/s is a 20x
    and a 10x speed-up (reference/other, right for times, gave 0.05 and 0.1)."""
    pair = BaselinePair("path", "assembled", "handwritten", reference="numpy")
    name = "collector.track_env_steps_per_s"
    cfg = GateConfig(
        confirm=False, resamples=500, baselines=(pair,), higher_is_better=(r"\.track_env_",)
    )
    head = {}
    for path, rate in (("numpy", 1e3), ("handwritten", 1e4), ("assembled", 2e4)):
        k = key(name, n=8, path=path)
        head[k] = meas(k, rate, len(path))
    (row,) = compare_variants(head, cfg)
    assert row.row.verdict is CaseVerdict.IMPROVED
    assert row.speedup_variant == pytest.approx(20, rel=0.05)
    assert row.speedup_baseline == pytest.approx(10, rel=0.05)


def test_variant_missing_baseline_is_reported() -> None:
    """A variant case without its baseline is NEW with a note naming the baseline."""
    pair = BaselinePair("path", "assembled", "handwritten")
    cfg = GateConfig(confirm=False, baselines=(pair,))
    k = key(n=8, path="assembled")
    (row,) = compare_variants({k: meas(k, 1.0, 1)}, cfg)
    assert row.row.verdict is CaseVerdict.NEW and "handwritten" in row.row.note


def test_thread_scaling_seed_shape() -> None:
    """The seed's G1 shape: handwritten best at 64T, assembled best at 32T, efficiency drop."""
    scaling = ScalingConfig("threads", "num_envs", 0.10)
    old = {1: 8.0, 16: 0.9, 32: 0.5, 64: 0.3}
    new = {1: 4.0, 16: 0.5, 32: 0.45, 64: 0.6}
    a = {
        key(num_envs=8192, threads=p): meas(key(num_envs=8192, threads=p), t, p, cv=0.0)
        for p, t in old.items()
    }
    b = {
        key(num_envs=8192, threads=p): meas(key(num_envs=8192, threads=p), t, p, cv=0.0)
        for p, t in new.items()
    }
    (row,) = thread_scaling(a, b, scaling, ("handwritten", "assembled"))
    assert row.size == "8192" and row.a.best.threads == 64 and row.b.best.threads == 32
    assert row.compared_at == 64
    assert row.a.at(64).efficiency == pytest.approx(8.0 / (64 * 0.3))  # type: ignore[union-attr]
    assert row.efficiency_drop == pytest.approx(8 / (64 * 0.3) - 4 / (64 * 0.6))
    assert row.flagged and "moved 64 -> 32" in row.reason and "dropped" in row.reason
    same = thread_scaling(a, a, scaling)
    assert not same[0].flagged


def test_thread_scaling_leaves_throughput_benchmarks_out() -> None:
    """Curves, best points and efficiencies are defined on times: a throughput benchmark
    read as times had its best thread count and efficiency inverted. It gets no row."""
    scaling = ScalingConfig("threads", "num_envs", 0.10)
    name = "collector.track_env_steps_per_s"
    cfg = GateConfig(confirm=False, scaling=scaling, higher_is_better=(r"\.track_env_",))
    rates = {"base": {1: 100.0, 2: 200.0, 4: 400.0}, "head": {1: 100.0, 2: 100.0, 4: 100.0}}
    sides = [
        {key(name, num_envs=8, threads=p): meas(key(name, num_envs=8, threads=p), r, p, cv=0.0)
         for p, r in rates[side].items()}
        for side in ("base", "head")
    ]  # fmt: skip
    assert scaling_rows(sides[0], sides[1], cfg) == ([], [])
    times = [{k.canonical(): m for k, m in side.items()} for side in sides]
    renamed = [{replace(k, benchmark="b.time_x"): m for k, m in t.items()} for t in times]
    (row,), _ = scaling_rows(renamed[0], renamed[1], cfg)
    assert row.a.best.threads == 1  # the same numbers as times: fewest "seconds" at 1


def test_compile_times_are_reported_not_gated() -> None:
    """Compile benchmarks go to their own rows and never into the gated comparison."""
    k = key("b.track_compile_seconds")
    base, head = {k: Measurement(k, (2.0,))}, {k: Measurement(k, (3.0,))}
    assert compare_runs(base, head, NO_CONFIRM) == []
    (row,) = compile_times(base, head, NO_CONFIRM)
    assert row.ratio == 1.5


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
