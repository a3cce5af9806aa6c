"""Sharding a planned run over N identical runners (pure): which cases shard K of N measures.

Every shard computes the partition on its own, so it must come out the same on every runner:
it depends only on the planned cases, their planned seconds (`perfgate.wall.plan`: cost
of one round times planned rounds) and N, never on the runner. Cases that are compared with
each other, not only base against head, stay in one shard, because their statistics pair
them round by round on one machine: the cases of one thread-scaling group (parallel
efficiency, scaling rows: same case but for ``thread_param``) and of one variant group
(``[[tool.perfgate.baseline]]``: same case but for the pair's ``param``).

Groups go to shards longest first (the longest-processing-time greedy), each onto the shard
with the fewest planned seconds so far, ties broken by the lower shard number; groups of equal
seconds are taken in the natural order of their key, so the result is deterministic. The
partition's digest names the plan it was cut from: the merge refuses shards of different
plans.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from perfgate.config import GateConfig
from perfgate.errors import UserError
from perfgate.model import CaseKey, natural_key
from perfgate.settings import ShardSpec
from perfgate.wall.plan import CasePlan, Plan

#: More shards than this is a typo, not a fleet of pinned runners.
MAX_SHARDS = 64


def parse_shard(text: str) -> ShardSpec:
    """``K/N`` with 1 <= K <= N <= `MAX_SHARDS`; anything else is a `UserError`."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if match is None:
        raise UserError(f"expected K/N (e.g. 1/2), got {text!r}")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= index <= count <= MAX_SHARDS:
        raise UserError(f"expected K/N with 1 <= K <= N <= {MAX_SHARDS}, got {text!r}")
    return ShardSpec(index, count)


def group_key(key: CaseKey, config: GateConfig) -> CaseKey:
    """The group ``key`` is measured with: without its thread count and without the param of
    every variant pair that applies to its benchmark."""
    names = [config.scaling.thread_param] if config.scaling is not None else []
    names += [p.param for p in config.baselines if re.search(p.benchmarks, key.benchmark)]
    return key.without(*names)


@dataclass(frozen=True)
class Partition:
    """The cases of each shard (index 0 is shard 1), their planned seconds, the digest."""

    shards: tuple[tuple[CaseKey, ...], ...]
    seconds: tuple[float, ...]
    digest: str

    @property
    def count(self) -> int:
        """N, the number of shards."""
        return len(self.shards)

    def cases(self, spec: ShardSpec) -> tuple[CaseKey, ...]:
        """The cases shard ``spec`` measures (sorted naturally)."""
        if spec.count != self.count:
            raise ValueError(f"shard {spec.label} of a partition into {self.count}")
        return self.shards[spec.index - 1]


def plan_digest(plan: Plan, count: int) -> str:
    """A digest of what the partition is computed from: the cases, their blocking flag,
    cost and rounds, and N (costs rounded to the millisecond, as printed by ``--plan``)."""
    doc = {
        "count": count,
        "cases": [
            [c.key.label(), c.blocking, round(c.cost_s, 3), c.rounds]
            for c in sorted(plan.cases, key=lambda c: natural_key(c.key))
        ],
    }
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _groups(
    cases: Sequence[CasePlan], config: GateConfig
) -> list[tuple[CaseKey, float, list[CasePlan]]]:
    """(group key, planned seconds, cases) per group, longest first, then by natural order."""
    grouped: dict[CaseKey, list[CasePlan]] = {}
    for case in cases:
        grouped.setdefault(group_key(case.key, config), []).append(case)
    out = [(g, sum(c.seconds for c in members), members) for g, members in grouped.items()]
    out.sort(key=lambda item: (-item[1], natural_key(item[0])))
    return out


def partition(plan: Plan, count: int, config: GateConfig) -> Partition:
    """Split ``plan``'s cases into ``count`` shards (see the module docstring)."""
    if not 1 <= count <= MAX_SHARDS:
        raise ValueError(f"shard count {count} outside 1..{MAX_SHARDS}")
    loads = [0.0] * count
    shards: list[list[CaseKey]] = [[] for _ in range(count)]
    for _group, seconds, members in _groups(plan.cases, config):
        target = min(range(count), key=lambda i: (loads[i], i))
        loads[target] += seconds
        shards[target] += [c.key for c in members]
    return Partition(
        shards=tuple(tuple(sorted(s, key=natural_key)) for s in shards),
        seconds=tuple(loads),
        digest=plan_digest(plan, count),
    )
