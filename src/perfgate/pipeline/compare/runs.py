"""The pairs of a gate run: head vs base per case, and each variant vs its baseline at head
(from the baseline map in ``[tool.perfgate]``), compared by `perfgate.pipeline.compare.rows`."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from perfgate.config import BaselinePair, GateConfig
from perfgate.model import (
    CaseComparison,
    CaseKey,
    Measurement,
    Reason,
    VariantComparison,
    natural_key,
)
from perfgate.pipeline.compare.measurements import split_by_param
from perfgate.pipeline.compare.pairs import CasePair, explained
from perfgate.pipeline.compare.rows import compare_pairs
from perfgate.verdict import CaseVerdict


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
        (k for k in set(base) | set(head) if not config.is_compile_time(k.benchmark)),
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
    return compare_pairs(
        pairs, config, blocking=lambda k: config.can_block(k.benchmark), confirm=confirm
    )


def _variant_pairs(
    head: Mapping[CaseKey, Measurement],
    pair: BaselinePair,
    config: GateConfig,
    floors: Mapping[CaseKey, float],
) -> list[CasePair]:
    regex = re.compile(pair.benchmarks)
    groups: dict[CaseKey, dict[str, CaseKey]] = {}
    for key in head:
        if config.is_compile_time(key.benchmark) or not regex.search(key.benchmark):
            continue
        value = key.param(pair.param)
        if value in (pair.variant, pair.baseline):
            groups.setdefault(key.without(pair.param), {})[value] = key
    out = []
    for group in sorted(groups, key=natural_key):
        vk = groups[group].get(pair.variant)
        bk = groups[group].get(pair.baseline)
        floor = max(
            floors.get(vk.canonical(), 0.0) if vk else 0.0,
            floors.get(bk.canonical(), 0.0) if bk else 0.0,
        )
        out.append(
            CasePair(
                key=group,
                base=head[bk] if bk else None,
                head=head[vk] if vk else None,
                noise_floor=floor or None,
                threshold=pair.threshold,
                check_version=False,
            )
        )
    return out


def compare_variants(
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
    *,
    noise_floors: Mapping[CaseKey, float] | None = None,
    confirmation_head: Mapping[CaseKey, Measurement] | None = None,
) -> list[VariantComparison]:
    """Variant vs baseline rows for every pair of the baseline map, at one commit."""
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
        reference = (
            split_by_param(head, pair.param, pair.reference, pair.benchmarks)
            if pair.reference
            else {}
        )
        for r in rows:
            ref = reference.get(r.key)
            better = config.is_higher_better(r.key.benchmark)
            out.append(VariantComparison(pair, r, ref.median if ref else None, better))
    return out


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
