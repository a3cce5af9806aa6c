"""perfgate.history.plan: a history run's expected time and its shards, from synthetic costs
(deterministic, cost-balanced, every benchmark of every commit measured exactly once)."""

from __future__ import annotations

import random
import re

import pytest

from perfgate.history.plan import group_modules, module_costs, plan_history
from perfgate.wall.plan import FALLBACK_COST_S

C = [f"{k:x}" * 40 for k in range(1, 4)]  # three commits, newest first
HOUR = 3600.0


def _durations(**modules: float) -> dict[str, float]:
    out = {"<build>": 100.0}
    out.update({f"{name}.Suite.time_run": seconds for name, seconds in modules.items()})
    return out


def test_costs_by_module_and_per_commit_overhead() -> None:
    overhead, modules = module_costs(
        {
            "<build>": 50.0,
            "<setup_cache hot_slice:12>": 5.0,
            "hot_slice.HotSlice.time_a": 10.0,
            "hot_slice.HotSlice.time_b": 20.0,
            "collector.Collector.time_c": 7.0,
            "compile_time.K.time_d": float("nan"),
        }
    )
    assert overhead == 50.0
    assert modules == {"hot_slice": 35.0, "collector": 7.0}


def test_a_run_that_fits_is_one_shard_of_everything() -> None:
    """Three commits of 17 minutes in a 240-minute job: one runner, no --bench, as today."""
    plan = plan_history("m", C, _durations(hot_slice=600, compile_time=300), 4 * HOUR)
    per_commit = 100 + 600 + 300 + FALLBACK_COST_S
    assert plan.expected_s == pytest.approx(3 * per_commit)
    assert plan.fits is True
    assert plan.matrix() == [
        {
            "machine": "m",
            "shard": "1/1",
            "hashes": " ".join(C),
            "bench": "",
            "expected_minutes": round(3 * per_commit / 60, 1),
        }
    ]


def test_commits_that_do_not_fit_are_dealt_out_newest_first() -> None:
    """70 minutes a commit, 180 usable: two commits on one runner, the third on another."""
    plan = plan_history("m", C, _durations(hot_slice=70 * 60 - 110), 4 * HOUR)
    assert [s.commits for s in plan.shards] == [(C[0], C[1]), (C[2],)]
    assert all(s.bench == () for s in plan.shards)
    assert plan.fits is True
    assert plan.expected_s == pytest.approx(3 * 70 * 60)


def _covered(plan_bench: tuple[str, ...], name: str) -> bool:
    return not plan_bench or any(re.search(r, name) for r in plan_bench)


def test_a_commit_too_big_for_one_runner_is_split_by_module() -> None:
    """Each commit is 4.5 hours: its modules go to groups that fit, every benchmark (a new
    module too) is measured once per commit, and every shard fits."""
    costs = _durations(hot_slice=6000, compile_time=5000, thread_scaling=4000, collector=1000)
    plan = plan_history("m", C, costs, 2.5 * HOUR)
    assert plan.fits is True and plan.capacity_s == 2.5 * HOUR * 0.75
    names = [f"{m}.S.t" for m in ("hot_slice", "compile_time", "thread_scaling", "collector")]
    names.append("segments_new.S.t")  # a module with no stored duration
    for commit in C:
        shards = [s for s in plan.shards if commit in s.commits]
        for name in names:
            assert sum(_covered(s.bench, name) for s in shards) == 1, (commit, name)
    assert {s.commits[0] for s in plan.shards} <= set(C)
    assert all(list(s.commits) == [c for c in C if c in s.commits] for s in plan.shards)


def test_the_plan_is_deterministic() -> None:
    costs = _durations(a=900, b=800, c=700, d=600, e=500, f=400)
    shuffled = dict(random.Random(3).sample(sorted(costs.items()), len(costs)))
    first = plan_history("m", C, costs, 0.5 * HOUR)
    assert plan_history("m", C, shuffled, 0.5 * HOUR) == first
    assert len({s.bench for s in first.shards}) > 1  # it did split by module


@pytest.mark.parametrize("seed", range(20))
def test_groups_are_cost_balanced(seed: int) -> None:
    """Longest first onto the lightest group: every group fits when each module does, and
    no two groups differ by more than the largest module."""
    rng = random.Random(seed)
    modules = {f"m{k}": rng.uniform(10, 1000) for k in range(rng.randint(2, 30))}
    capacity = max(modules.values()) * rng.uniform(1.0, 4.0)
    groups = group_modules(modules, capacity)
    loads = [sum(modules[m] for m in g) for g in groups]
    assert sorted(m for g in groups for m in g) == sorted(modules)
    assert max(loads) <= capacity + 1e-9
    assert max(loads) - min(loads) <= max(modules.values()) + 1e-9


def test_without_stored_costs_one_commit_per_runner() -> None:
    plan = plan_history("m", C, None, 4 * HOUR)
    assert [s.commits for s in plan.shards] == [(c,) for c in C]
    assert plan.expected_s is None and plan.fits is None
    assert plan.to_json()["expected_minutes"] is None
