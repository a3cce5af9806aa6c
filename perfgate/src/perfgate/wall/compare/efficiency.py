"""Parallel efficiency as compared cases: a stable drop at any thread count can block.

Take the time cases of one group that differ only in their thread count (one task, profile,
path and N) and ``p0``, the fewest threads both sides measured. Each paired round *i* gives
the relative cost ``c_p,i = median(T_p, round i) / median(T_p0, round i)``. Parallel
efficiency is ``e_p = p0 T_p0 / (p T_p) = p0 / (p c_p)``, so head/base of ``c_p`` is
base/head of ``e_p``: a ratio above 1 means the efficiency at ``p`` threads dropped by that
factor, whatever happened to the time at ``p0``. Because both times of a round come from the
same asv process run, the ratio cancels the slow drifts that a round shares.

These derived cases go through the time cases' rule (`compare_pairs`: paired bootstrap CI,
one Benjamini-Hochberg correction over them, confirmation by the re-run) with the threshold
``scaling.efficiency_threshold``; they block when the family of their time cases blocks,
except where the time case at ``p0`` itself became stably faster (IMPROVED): then the drop
is that speed-up seen from ``p`` threads, nothing ran slower, and the row is reported only.
Switched off (no rows at all) while that threshold is unset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from perfgate.case_pairs import CasePair
from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey, CaseVerdict, Measurement, natural_key
from perfgate.wall.compare.rows import compare_pairs

#: Appended to the time benchmark's name to name its efficiency cases.
EFFICIENCY_SUFFIX = ".parallel_efficiency"
#: The unit of an efficiency case's samples (T_p / T_p0 of one round).
RELATIVE_COST = "relative cost"

Side = Mapping[CaseKey, Measurement]


def efficiency_key(key: CaseKey) -> CaseKey:
    """The efficiency case of the time case ``key`` (same params, thread count included)."""
    return CaseKey(key.benchmark + EFFICIENCY_SUFFIX, key.params)


def time_benchmark(efficiency_benchmark: str) -> str:
    """The time benchmark behind an efficiency case's benchmark name."""
    return efficiency_benchmark.removesuffix(EFFICIENCY_SUFFIX)


def relative_cost(at_p: Measurement, at_p0: Measurement) -> Measurement | None:
    """Per paired round, median time at ``p`` over median time at ``p0`` (None: not paired,
    failed or invalid on a side; the time rows already say so).

    Only the rounds both cases ran count: every case of a phase runs in its first rounds
    and extra rounds go to a subset, so the common prefix is the rounds they shared.
    """
    if at_p.failed or at_p0.failed or not at_p.valid or not at_p0.valid:
        return None
    if not at_p.rounds or not at_p0.rounds:
        return None
    shared = zip(at_p.rounds, at_p0.rounds, strict=False)
    costs = tuple(float(np.median(rp)) / float(np.median(r0)) for rp, r0 in shared)
    rounds = tuple((c,) for c in costs)
    key = efficiency_key(at_p.key)
    return Measurement(key, costs, rounds=rounds, version=at_p.version, unit=RELATIVE_COST)


def _groups(
    side: Side, config: GateConfig, thread_param: str
) -> dict[CaseKey, dict[int, CaseKey]]:
    """Time cases per group (the key without its thread count), by thread count."""
    groups: dict[CaseKey, dict[int, CaseKey]] = {}
    for key in side:
        name = key.benchmark
        if config.is_higher_better(name) or config.is_compile_time(name):
            continue
        value = key.param(thread_param)
        if value is None or not value.isdigit() or int(value) < 1:
            continue
        groups.setdefault(key.without(thread_param), {})[int(value)] = key
    return groups


def efficiency_measurements(
    base: Side, head: Side, config: GateConfig
) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """The (base, head) efficiency cases that both sides can form, one per thread count
    above the group's fewest common threads."""
    out_base: dict[CaseKey, Measurement] = {}
    out_head: dict[CaseKey, Measurement] = {}
    if config.scaling is None:
        return out_base, out_head
    param = config.scaling.thread_param
    gb, gh = _groups(base, config, param), _groups(head, config, param)
    for group in set(gb) & set(gh):
        counts = sorted(set(gb[group]) & set(gh[group]))
        for p in counts[1:]:
            kp, k0 = gb[group][p], gb[group][counts[0]]
            b = relative_cost(base[kp], base[k0])
            h = relative_cost(head[gh[group][p]], head[gh[group][counts[0]]])
            if b is not None and h is not None:
                out_base[b.key], out_head[h.key] = b, h
    return out_base, out_head


def p0_cases(base: Side, head: Side, config: GateConfig) -> dict[CaseKey, CaseKey]:
    """Efficiency case -> the time case at its ``p0`` (the group's fewest common threads)."""
    if config.scaling is None:
        return {}
    param = config.scaling.thread_param
    gb, gh = _groups(base, config, param), _groups(head, config, param)
    out: dict[CaseKey, CaseKey] = {}
    for group in set(gb) & set(gh):
        counts = sorted(set(gb[group]) & set(gh[group]))
        for p in counts[1:]:
            out[efficiency_key(gb[group][p])] = gb[group][counts[0]]
    return out


#: The note of an efficiency row that does not block because its ``p0`` case got faster.
SPEEDUP_NOTE = "reported only: the drop comes from a stable speed-up at {threads} thread(s)"


def _explained_by_speedup(
    rows: list[CaseComparison], time_rows: Sequence[CaseComparison], p0: Mapping[CaseKey, CaseKey]
) -> list[CaseComparison]:
    """``rows`` with the efficiency drops whose ``p0`` time case IMPROVED made non-blocking."""
    improved = {r.key for r in time_rows if r.verdict is CaseVerdict.IMPROVED}
    out = []
    for row in rows:
        base_case = p0.get(row.key)
        if row.blocking and base_case in improved and base_case is not None:
            threads = ", ".join(f"{k}={v}" for k, v in base_case.params if k == "threads")
            note = SPEEDUP_NOTE.format(threads=threads or "p0")
            row = replace(row, blocking=False, note="; ".join(n for n in (row.note, note) if n))
        out.append(row)
    return out


def time_cases(
    keys: Iterable[CaseKey], measured: Iterable[CaseKey], config: GateConfig
) -> list[CaseKey]:
    """The time cases behind efficiency cases ``keys``: the case at ``p`` and the group's
    case at ``p0`` (the fewest threads among ``measured``), so that re-running them
    re-measures the efficiency case (the sampler sends these to extra and confirmation
    rounds)."""
    if config.scaling is None:
        return []
    param = config.scaling.thread_param
    by_group: dict[CaseKey, dict[int, CaseKey]] = {}
    for k in measured:
        value = k.param(param)
        if value is not None and value.isdigit():
            by_group.setdefault(k.without(param), {})[int(value)] = k
    out: list[CaseKey] = []
    for key in keys:
        at_p = CaseKey(time_benchmark(key.benchmark), key.params)
        group = by_group.get(at_p.without(param), {})
        if at_p in group.values():
            out += [at_p, group[min(group)]]
    return sorted(set(out), key=natural_key)


def _pairs(base: Side, head: Side, config: GateConfig, threshold: float) -> list[CasePair]:
    b, h = efficiency_measurements(base, head, config)
    return [CasePair(k, b[k], h[k], threshold=threshold) for k in sorted(b, key=natural_key)]


def compare_efficiency(
    base: Side,
    head: Side,
    config: GateConfig,
    time_rows: Sequence[CaseComparison],
    *,
    confirmation: tuple[Side, Side] | None = None,
) -> list[CaseComparison]:
    """Head vs base parallel efficiency at every measured thread count (see module doc).

    ``time_rows`` are the head vs base rows of the time cases (a drop whose ``p0`` case
    IMPROVED does not block). ``confirmation`` is the re-run's (base, head); an efficiency
    case it cannot form (its ``p0`` case was not re-run) stays unconfirmed, never a failure.
    """
    scaling = config.scaling
    if scaling is None or scaling.efficiency_threshold is None:
        return []
    threshold = scaling.efficiency_threshold
    pairs = _pairs(base, head, config, threshold)
    confirm = None
    if confirmation is not None:
        confirm = {p.key: p for p in _pairs(*confirmation, config, threshold)}
    rows = compare_pairs(
        pairs,
        config,
        blocking=lambda k: config.can_block(time_benchmark(k.benchmark)),
        confirm=confirm,
    )
    return _explained_by_speedup(rows, time_rows, p0_cases(base, head, config))
