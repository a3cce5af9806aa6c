"""The pairs of a gate run: head vs base per case, and each variant vs its baseline at head
(from the baseline map in ``[tool.perfgate]``) and relative to base
(`perfgate.wall.compare.variant_drift`), compared by `perfgate.wall.compare.rows`."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from perfgate.case_pairs import CasePair, explained
from perfgate.config import BaselinePair, GateConfig
from perfgate.model import (
    CaseComparison,
    CaseKey,
    Measurement,
    Reason,
    VariantComparison,
    natural_key,
)
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare import variant_drift
from perfgate.wall.compare.broken import mark_broken
from perfgate.wall.compare.measurements import split_by_param
from perfgate.wall.compare.rows import compare_pairs


def _timed(key: CaseKey, config: GateConfig) -> bool:
    """A case these statistics compare: not a compile time (its own table) and not a count
    of the sim family (`perfgate.sim.compare` decides those)."""
    return not config.is_compile_time(key.benchmark) and not config.is_sim(key.benchmark)


def _canonical(floors: Mapping[CaseKey, float]) -> dict[CaseKey, float]:
    """Noise floors keyed by `CaseKey.canonical`, so that param order does not matter."""
    return {k.canonical(): v for k, v in floors.items()}


def _run_pairs(
    base: Mapping[CaseKey, Measurement],
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
    noise_floors: Mapping[CaseKey, float],
) -> list[CasePair]:
    keys = sorted(
        (k for k in set(base) | set(head) if _timed(k, config)),
        key=natural_key,
    )
    return [CasePair(k, base.get(k), head.get(k), noise_floors.get(k.canonical())) for k in keys]


def compare_runs(
    base: Mapping[CaseKey, Measurement],
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
    *,
    noise_floors: Mapping[CaseKey, float] | None = None,
    confirmation: tuple[Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement]]
    | None = None,
) -> list[CaseComparison]:
    """Head vs base for every case (compile-time benchmarks are reported apart)."""
    floors = _canonical(noise_floors or {})
    pairs = _run_pairs(base, head, config, floors)
    confirm = None
    if confirmation is not None:
        confirm = {p.key: p for p in _run_pairs(*confirmation, config, floors)}
    rows = compare_pairs(
        pairs, config, blocking=lambda k: config.can_block(k.benchmark), confirm=confirm
    )
    return [mark_broken(r) for r in rows]


def _groups(
    measured: Mapping[CaseKey, Measurement], pair: BaselinePair, config: GateConfig
) -> dict[CaseKey, dict[str, CaseKey]]:
    """Group (the case without ``pair.param``) -> {variant or baseline value: case}."""
    regex = re.compile(pair.benchmarks)
    groups: dict[CaseKey, dict[str, CaseKey]] = {}
    for key in measured:
        if not _timed(key, config) or not regex.search(key.benchmark):
            continue
        value = key.param(pair.param)
        if value in (pair.variant, pair.baseline):
            groups.setdefault(key.without(pair.param), {})[value] = key
    return groups


def _group_floor(keys: Mapping[str, CaseKey], floors: Mapping[CaseKey, float]) -> float | None:
    """The larger noise floor of a group's two cases (None: neither calibrated)."""
    return max((floors.get(k.canonical(), 0.0) for k in keys.values()), default=0.0) or None


def _variant_pairs(
    head: Mapping[CaseKey, Measurement],
    pair: BaselinePair,
    config: GateConfig,
    floors: Mapping[CaseKey, float],
) -> list[CasePair]:
    groups = _groups(head, pair, config)
    out = []
    for group in sorted(groups, key=natural_key):
        vk = groups[group].get(pair.variant)
        bk = groups[group].get(pair.baseline)
        out.append(
            CasePair(
                key=group,
                base=head[bk] if bk else None,
                head=head[vk] if vk else None,
                noise_floor=_group_floor(groups[group], floors),
                threshold=pair.threshold,
                check_version=False,
            )
        )
    return out


def _drift_pairs(
    sides: tuple[Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement]],
    pair: BaselinePair,
    config: GateConfig,
    floors: Mapping[CaseKey, float],
) -> list[CasePair]:
    """Variant/baseline ratio at head vs at base, for the groups that had both at base."""
    base_groups = _groups(sides[0], pair, config)
    head_groups = _groups(sides[1], pair, config)
    at_base = variant_drift.side_ratios(base_groups, sides[0], pair.variant, pair.baseline)
    at_head = variant_drift.side_ratios(head_groups, sides[1], pair.variant, pair.baseline)
    return [
        CasePair(
            key=group,
            base=at_base[group],
            head=at_head.get(group),
            noise_floor=_group_floor({**base_groups[group], **head_groups.get(group, {})}, floors),
            threshold=pair.threshold,
            check_version=False,
        )
        for group in sorted(at_base, key=natural_key)
    ]


def _drift_rows(
    pair: BaselinePair,
    config: GateConfig,
    sides: tuple[Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement]] | None,
    confirmation: tuple[Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement]] | None,
    floors: Mapping[CaseKey, float],
) -> dict[CaseKey, CaseComparison]:
    """Group -> the relative-to-base row (none without base data, or for a new variant)."""
    if sides is None:
        return {}
    pairs = _drift_pairs(sides, pair, config, floors)
    confirm = None
    if confirmation is not None:
        confirm = {p.key: p for p in _drift_pairs(confirmation, pair, config, floors)}
    rows = compare_pairs(pairs, config, blocking=_always(pair.block_if_slower), confirm=confirm)
    return {r.key: _variant_reason(r, pair) for r in rows}


def compare_variants(
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
    *,
    noise_floors: Mapping[CaseKey, float] | None = None,
    confirmation_head: Mapping[CaseKey, Measurement] | None = None,
    sides: tuple[Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement]] | None = None,
    confirmation_sides: tuple[Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement]]
    | None = None,
) -> list[VariantComparison]:
    """Variant vs baseline rows for every pair of the baseline map, at one commit.

    With ``sides`` (base and head measurements of the variant cases, round-aligned), a group
    whose variant and baseline both ran at base also gets its relative-to-base row
    (`perfgate.wall.compare.variant_drift`), which then gates instead of the absolute
    row; the absolute row keeps blocking only with ``variant_absolute = "block"``.
    """
    floors = _canonical(noise_floors or {})
    out: list[VariantComparison] = []
    for pair in config.baselines:
        pairs = _variant_pairs(head, pair, config, floors)
        confirm = None
        if confirmation_head is not None:
            conf_pairs = _variant_pairs(confirmation_head, pair, config, floors)
            confirm = {p.key: p for p in conf_pairs}
        rows = compare_pairs(
            pairs, config, blocking=_always(pair.block_if_slower), confirm=confirm
        )
        rows = [_variant_reason(r, pair) for r in rows]
        drift = _drift_rows(pair, config, sides, confirmation_sides, floors)
        reference = (
            split_by_param(head, pair.param, pair.reference, pair.benchmarks)
            if pair.reference
            else {}
        )
        for r in rows:
            ref = reference.get(r.key)
            better = config.is_higher_better(r.key.benchmark)
            absolute, relative = _gating(r, drift.get(r.key), config)
            out.append(
                VariantComparison(pair, absolute, ref.median if ref else None, better, relative)
            )
    return out


def _gating(
    absolute: CaseComparison, relative: CaseComparison | None, config: GateConfig
) -> tuple[CaseComparison, CaseComparison | None]:
    """Which of a group's two rows may block.

    No relative row (a variant new at head, or no base data): the absolute row, as before.
    Otherwise the relative row, and only while the variant misses its absolute bar at head
    (a variant shown to be within its threshold of the baseline at head is fine whatever
    moved: a pull request that speeds up the baseline alone must not block); the absolute
    row is reported, and blocks too with ``variant_absolute = "block"``.
    """
    if relative is None:
        return absolute, None
    if absolute.verdict in (CaseVerdict.UNCHANGED, CaseVerdict.IMPROVED):
        relative = replace(relative, blocking=False)
    if config.variant_absolute != "block":
        absolute = replace(absolute, blocking=False)
    return absolute, relative


def _always(value: bool) -> Callable[[CaseKey], bool]:
    def blocking(_key: CaseKey) -> bool:
        return value

    return blocking


def _variant_reason(row: CaseComparison, pair: BaselinePair) -> CaseComparison:
    """A variant row without one side names the missing side of the pair."""
    if row.verdict is CaseVerdict.NEW:
        return explained(row, row.verdict, Reason.NO_BASELINE_CASE, baseline=pair.baseline)
    if row.verdict is CaseVerdict.REMOVED:
        return explained(row, row.verdict, Reason.NO_VARIANT_CASE, variant=pair.variant)
    return row
