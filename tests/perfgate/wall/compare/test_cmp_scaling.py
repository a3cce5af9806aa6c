"""perfgate.wall.compare.scaling: thread-scaling rows."""

from __future__ import annotations

from dataclasses import replace

import pytest
from cmp_helpers import key, meas

from perfgate.config import GateConfig, ScalingConfig
from perfgate.wall.compare.scaling import scaling_rows, thread_scaling


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
