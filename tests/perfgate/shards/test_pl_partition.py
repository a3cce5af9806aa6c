"""Sharding a plan over N runners: deterministic, cost-balanced, related cases together."""

from __future__ import annotations

import random

import pytest

from perfgate.config import BaselinePair, GateConfig, ScalingConfig
from perfgate.errors import UserError
from perfgate.model import CaseKey
from perfgate.settings import ShardSpec
from perfgate.shards import partition
from perfgate.wall import plan

CONFIG = GateConfig(
    min_samples=6,
    blocking=(r"^hot\.",),
    baselines=(BaselinePair(param="path", variant="assembled", baseline="handwritten"),),
    scaling=ScalingConfig(),
)


def _key(bench: str, **params: object) -> CaseKey:
    return CaseKey(bench, tuple((k, str(v)) for k, v in params.items()))


def _plan(costs: dict[CaseKey, float], config: GateConfig = CONFIG) -> plan.Plan:
    return plan.plan_rounds(costs, config, 1e9, "test")


def _cases() -> dict[CaseKey, float]:
    out = {}
    for n in (2048, 8192, 65536):
        for threads in (1, 2):
            for path in ("numpy", "handwritten", "assembled"):
                out[_key("hot.Slice.time_step", n=n, path=path, threads=threads)] = n / 2048
    out.update({_key("compile_time.Kernels.track_compile", kernel=k): 20.0 for k in "abcd"})
    return out


def test_parse_shard() -> None:
    assert partition.parse_shard("2/3") == ShardSpec(2, 3)
    assert partition.parse_shard(" 1 / 1 ").label == "1/1"
    for bad in ("0/2", "3/2", "2", "a/b", "1/0", "1/65"):
        with pytest.raises(UserError, match="expected K/N"):
            partition.parse_shard(bad)


def test_partition_is_deterministic_whatever_the_order_of_the_cases() -> None:
    """Every runner computes it alone: same plan -> same shards, whatever the input order."""
    costs = _cases()
    first = partition.partition(_plan(costs), 3, CONFIG)
    items = list(costs.items())
    for seed in range(5):
        random.Random(seed).shuffle(items)
        again = partition.partition(_plan(dict(items)), 3, CONFIG)
        assert again == first
    assert first.digest == partition.plan_digest(_plan(costs), 3)
    assert partition.partition(_plan(costs), 2, CONFIG).digest != first.digest


def test_partition_covers_every_case_once_and_is_balanced() -> None:
    costs = _cases()
    planned = _plan(costs)
    for count in (1, 2, 3, 4):
        cut = partition.partition(planned, count, CONFIG)
        every = [k for shard in cut.shards for k in shard]
        assert sorted(every) == sorted(costs) and len(every) == len(set(every))
        groups: dict[CaseKey, float] = {}
        for c in planned.cases:
            g = partition.group_key(c.key, CONFIG)
            groups[g] = groups.get(g, 0.0) + c.seconds
        # the greedy's bound: no shard exceeds another by more than the largest group
        assert max(cut.seconds) - min(cut.seconds) <= max(groups.values()) + 1e-9
        assert sum(cut.seconds) == pytest.approx(planned.expected_s)


def test_cases_compared_with_each_other_stay_in_one_shard() -> None:
    """Variant and baseline, and every thread count of a case, are paired round by round on
    one runner: never split."""
    cut = partition.partition(_plan(_cases()), 4, CONFIG)
    where = {k: i for i, shard in enumerate(cut.shards) for k in shard}
    for key, shard in where.items():
        for other, other_shard in where.items():
            if key.without("path", "threads") == other.without("path", "threads"):
                assert shard == other_shard, (key, other)


def test_more_shards_than_groups_leaves_shards_empty() -> None:
    costs = {_key("hot.Slice.time_step", n=8, path=p): 1.0 for p in ("handwritten", "assembled")}
    cut = partition.partition(_plan(costs), 2, CONFIG)
    assert [len(s) for s in cut.shards] == [2, 0]
    assert cut.cases(ShardSpec(2, 2)) == ()


def test_longest_first_onto_the_least_loaded_shard() -> None:
    """LPT, equal costs in key order: 5 -> 1, 4 -> 2, 3 (i=0) -> 2, 3 (i=2) -> 1, 3 (i=4) -> 2."""
    config = GateConfig(min_samples=1, blocking=(".",))
    costs = {_key("b", i=i): s for i, s in enumerate((3.0, 5.0, 3.0, 4.0, 3.0))}
    cut = partition.partition(_plan(costs, config), 2, config)
    assert cut.seconds == (8.0, 10.0)
    assert cut.shards == (
        (_key("b", i=1), _key("b", i=2)),
        (_key("b", i=0), _key("b", i=3), _key("b", i=4)),
    )


def test_a_shard_counts_the_other_shards_cases_as_nulls() -> None:
    """``elsewhere_tests``: BH as if that many more cases had p = 1: q = p * (m + k) / rank
    for the smallest p, never below the q of the cases alone."""
    from perfgate.model import Measurement
    from perfgate.wall.compare.runs import compare_runs

    key = _key("hot.Slice.time_step", n=8)
    rounds = [(1.0 + i / 100,) for i in range(8)]
    base = {key: Measurement(key, tuple(r[0] for r in rounds), tuple(rounds))}
    slower = tuple((r[0] * 1.2,) for r in rounds)
    head = {key: Measurement(key, tuple(r[0] for r in slower), slower)}
    alone = compare_runs(base, head, GateConfig(confirm=False))[0]
    cautious = compare_runs(base, head, GateConfig(confirm=False, elsewhere_tests=3))[0]
    assert alone.p == cautious.p and alone.q is not None
    assert cautious.q == pytest.approx(min(1.0, alone.q * 4))
