"""perfgate.wall.compare.runs: variant vs baseline rows and speed-ups."""

from __future__ import annotations

import pytest
from cmp_helpers import key, meas

from perfgate.config import BaselinePair, GateConfig
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.runs import compare_variants


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
