"""Planning a history run before it starts (pure): its expected time, and shards that fit.

The history job measures the full grid for up to ``CATCH_UP`` commits per run on one machine
class. Its expected time comes from the costs the machine stored last time: asv's
per-benchmark ``durations`` in the newest result file of that machine on ``perf-results``
(``<build>`` is paid once per commit a runner measures; anything without a stored duration,
a suite module new since, costs the gate planner's fallback). When the run would not fit the
job's timeout (times a headroom), it is split across runners of the machine class:

1. benchmark modules are packed into the fewest groups whose cost per commit fits
   (longest first onto the lightest group: deterministic, cost-balanced; ties go to the lower
   group and the module's name). One group (the usual case) means no ``--bench`` at all;
   otherwise each group is a set of ``--bench`` regexes, and one group also holds the
   modules nobody has measured yet (a negative look-ahead over the known ones), so every
   benchmark is measured exactly once;
2. each group's commits are dealt out in runs of as many commits as fit, newest first.

Every shard is one ``asv run`` of its commits (newest first: asv discovers the suites at the
first hash, the commit ``history append --suite-ref`` names) with its group's regexes.
Without stored costs the plan cannot size anything: one commit per shard, time unknown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfgate.wall.plan import FALLBACK_COST_S, setup_cache_module

#: Share of the job's timeout a shard may be planned to fill (setup, noise, slower runs).
DEFAULT_HEADROOM = 0.75
#: The ``durations`` key of asv's environment build (paid once per commit and runner).
BUILD_KEY = "<build>"


def module_costs(durations: Mapping[str, float]) -> tuple[float, dict[str, float]]:
    """(seconds paid once per commit, seconds per suite module) from asv's ``durations``.

    A benchmark ``hot_slice.HotSlice.time_x`` counts for module ``hot_slice``; a
    ``<setup_cache hot_slice:12>`` entry for its module; ``<build>`` and any other
    bracketed phase are per-commit overhead.
    """
    overhead, modules = 0.0, dict[str, float]()
    for key, seconds in durations.items():
        if not math.isfinite(seconds) or seconds < 0:
            continue
        cache = setup_cache_module(key)
        module = cache if cache else (None if key.startswith("<") else key)
        if module is None:
            overhead += seconds
            continue
        name = module.split(".")[0]
        modules[name] = modules.get(name, 0.0) + seconds
    return overhead, modules


def group_modules(modules: Mapping[str, float], capacity_s: float) -> list[tuple[str, ...]]:
    """Modules packed into the fewest groups whose cost fits ``capacity_s`` (one group per
    module at most; a module costlier than the capacity alone is its own group)."""
    names = sorted(modules, key=lambda m: (-modules[m], m))
    total = sum(modules.values())
    count = max(1, math.ceil(total / capacity_s)) if capacity_s > 0 else len(names)
    while True:
        groups: list[list[str]] = [[] for _ in range(max(1, min(count, len(names))))]
        loads = [0.0] * len(groups)
        for name in names:
            k = min(range(len(groups)), key=lambda i: (loads[i], i))
            groups[k].append(name)
            loads[k] += modules[name]
        if max(loads) <= capacity_s or len(groups) >= len(names):
            return [tuple(sorted(g)) for g in groups if g]
        count = len(groups) + 1


def group_regexes(group: Sequence[str], known: Sequence[str], catch_all: bool) -> tuple[str, ...]:
    """asv ``--bench`` regexes of one group; ``catch_all`` adds the modules not in ``known``."""
    out = [f"^{re.escape(m)}\\." for m in group]
    if catch_all:
        alternatives = "|".join(re.escape(m) for m in sorted(known))
        out.append(f"^(?!(?:{alternatives})\\.)")
    return tuple(out)


@dataclass(frozen=True)
class Shard:
    """One runner's part: its commits (newest first), ``--bench`` regexes (empty: all) and
    expected seconds (None: unknown)."""

    commits: tuple[str, ...]
    bench: tuple[str, ...]
    expected_s: float | None


@dataclass(frozen=True)
class HistoryPlan:
    """The planned history run of one machine class."""

    machine: str
    commits: tuple[str, ...]
    shards: tuple[Shard, ...]
    capacity_s: float
    expected_s: float | None
    basis: str

    @property
    def fits(self) -> bool | None:
        """Whether every shard is expected within the capacity (None: costs unknown)."""
        if any(s.expected_s is None for s in self.shards):
            return None
        return all((s.expected_s or 0.0) <= self.capacity_s for s in self.shards)

    def matrix(self) -> list[dict[str, object]]:
        """One GitHub Actions matrix entry per shard (strings, as the workflow passes them)."""
        n = len(self.shards)
        return [
            {
                "machine": self.machine,
                "shard": f"{k}/{n}",
                "hashes": " ".join(s.commits),
                "bench": " ".join(s.bench),
                "expected_minutes": None if s.expected_s is None else round(s.expected_s / 60, 1),
            }
            for k, s in enumerate(self.shards, start=1)
        ]

    def to_json(self) -> dict[str, object]:
        """The plan as JSON (``perfgate history plan --json``)."""
        return {
            "machine": self.machine,
            "commits": list(self.commits),
            "basis": self.basis,
            "capacity_minutes": round(self.capacity_s / 60, 1),
            "expected_minutes": None
            if self.expected_s is None
            else round(self.expected_s / 60, 1),
            "fits": self.fits,
            "shards": self.matrix(),
        }


def _deal(commits: Sequence[str], per_shard: int) -> list[tuple[str, ...]]:
    """``commits`` (newest first) in consecutive runs of ``per_shard``, balanced in size."""
    count = math.ceil(len(commits) / max(1, per_shard))
    size, extra = divmod(len(commits), count)
    out, start = [], 0
    for k in range(count):
        end = start + size + (1 if k < extra else 0)
        out.append(tuple(commits[start:end]))
        start = end
    return out


def plan_history(
    machine: str,
    commits: Sequence[str],
    durations: Mapping[str, float] | None,
    timeout_s: float,
    headroom: float = DEFAULT_HEADROOM,
) -> HistoryPlan:
    """Plan the run of ``commits`` (newest first) on ``machine`` within ``timeout_s``."""
    capacity = timeout_s * headroom
    if not commits:
        return HistoryPlan(machine, (), (), capacity, 0.0, "nothing to measure")
    if not durations:
        shards = tuple(Shard((c,), (), None) for c in commits)
        basis = "no stored durations of this machine: one commit per runner"
        return HistoryPlan(machine, tuple(commits), shards, capacity, None, basis)
    overhead, modules = module_costs(durations)
    modules["(new modules)"] = FALLBACK_COST_S  # whatever was not measured last time
    groups = group_modules(modules, max(0.0, capacity - overhead))
    known = sorted(m for m in modules if m != "(new modules)")
    planned: list[Shard] = []
    for group in groups:
        per_commit = overhead + sum(modules[m] for m in group)
        named = [m for m in group if m != "(new modules)"]
        catch_all = "(new modules)" in group
        bench = () if len(groups) == 1 else group_regexes(named, known, catch_all)
        fit = max(1, math.floor(capacity / per_commit)) if per_commit > 0 else len(commits)
        planned += [Shard(run, bench, per_commit * len(run)) for run in _deal(commits, fit)]
    expected = sum(s.expected_s or 0.0 for s in planned)
    basis = f"asv durations stored for {machine}; {len(groups)} benchmark group(s)"
    return HistoryPlan(machine, tuple(commits), tuple(planned), capacity, expected, basis)
