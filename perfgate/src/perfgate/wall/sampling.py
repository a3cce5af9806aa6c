"""The sampling stage (pure): from the rounds so far, in memory, to the cases to run next.

Extra rounds go to blocking cases that more data could settle (Pinpoint's UNKNOWN -> more
attempts) and to blind spots that more rounds can bring to their target; the confirmation
re-runs the cases flagged slower or faster, and keeps going while a flag is neither
replicated nor ruled out. `selection_regexes` turns cases into
asv ``--bench`` regexes that select exactly those cases.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from perfgate.config import GateConfig
from perfgate.model import (
    CaseComparison,
    CaseKey,
    Measurement,
    Reason,
    VariantComparison,
    natural_key,
)
from perfgate.verdict import CaseVerdict
from perfgate.wall import visibility
from perfgate.wall.compare.confirm import confirmation_pending
from perfgate.wall.compare.efficiency import EFFICIENCY_SUFFIX, compare_efficiency, time_cases
from perfgate.wall.compare.runs import compare_runs, compare_variants
from perfgate.wall.rounds import RoundLog, measurements, side_measurements, variant_aligned

Floors = Mapping[CaseKey, float]


def undecided(rows: Iterable[CaseComparison], config: GateConfig) -> list[CaseKey]:
    """Blocking cases that more rounds could settle (Pinpoint's UNKNOWN -> more attempts).

    That is INCONCLUSIVE cases, and likely improvements whose q is not yet small. Cases that
    failed, are invalid, new or removed are decided already; a version mismatch cannot be
    fixed by measuring more.
    """
    out = []
    for row in rows:
        if not row.blocking:
            continue
        if row.verdict is CaseVerdict.INCONCLUSIVE and row.reason is not Reason.VERSION_DIFFERS:
            out.append(row.key)
        elif _improvement_pending(row, config):
            out.append(row.key)
    return out


def _improvement_pending(row: CaseComparison, config: GateConfig) -> bool:
    """CI wholly below 1/(1 + threshold) but q not yet small: more rounds can confirm it."""
    if row.verdict is not CaseVerdict.UNCHANGED or row.ci_high is None or row.q is None:
        return False
    return row.ci_high < 1.0 / (1.0 + row.threshold) and row.q >= config.alpha


#: Verdicts that send a case to the confirmation re-run.
FLAGGED = (CaseVerdict.REGRESSED, CaseVerdict.IMPROVED)


def flagged(rows: Iterable[CaseComparison]) -> list[CaseKey]:
    """Blocking cases flagged slower or faster (before confirmation): they get an independent
    re-run. Non-blocking ones do not: the re-run's budget and its Benjamini-Hochberg
    correction belong to the cases that can block (a null re-run of a report-only case
    would otherwise raise the q of a real regression)."""
    return [r.key for r in rows if r.verdict in FLAGGED and r.blocking]


def variant_head_cases(
    variants: Iterable[VariantComparison], head_keys: Iterable[CaseKey]
) -> list[CaseKey]:
    """The head cases (variant and baseline side) behind each of ``variants``' rows."""
    keys = list(head_keys)
    out: list[CaseKey] = []
    for v in variants:
        sides = (v.pair.variant, v.pair.baseline)
        out += [
            k
            for k in keys
            if k.without(v.pair.param) == v.row.key and k.param(v.pair.param) in sides
        ]
    return out


#: A variant row in the confirmation's targets: its group and whether it is the relative row.
VariantRowId = tuple[CaseKey, bool]


def variant_row_id(v: VariantComparison, row: CaseComparison) -> VariantRowId:
    """Which of ``v``'s rows ``row`` is (absolute or relative to base share a group key)."""
    return (row.key, row is v.relative)


def flagged_variants(variants: Iterable[VariantComparison]) -> list[VariantComparison]:
    """Variants with a blocking row (absolute, or relative to base) flagged slower or
    faster: both sides go to the confirmation.

    A faster variant is re-run too: otherwise the report could only say "= same" for a
    variant that beats its baseline, which is the question the pairing exists to answer.
    """
    return [v for v in variants if any(r.blocking and r.verdict in FLAGGED for r in v.rows)]


def undecided_variant_cases(
    variants: Iterable[VariantComparison], head_keys: Iterable[CaseKey], config: GateConfig
) -> list[CaseKey]:
    """Head cases behind variant rows that more rounds could settle (as :func:`undecided`)."""
    return variant_head_cases([v for v in variants if undecided(v.rows, config)], head_keys)


def _interim(log: RoundLog, config: GateConfig, floors: Floors) -> list[CaseComparison]:
    """Rows of the data so far, without confirmation (to see what is still undecided):
    time cases, then parallel efficiency cases (whose keys `_as_cases` maps to cases)."""
    base_m, head_m = measurements(log)
    cfg = replace(config, confirm=False)
    rows = compare_runs(base_m, head_m, cfg, noise_floors=floors)
    return rows + compare_efficiency(base_m, head_m, cfg, rows)


def _as_cases(keys: Iterable[CaseKey], log: RoundLog, config: GateConfig) -> list[CaseKey]:
    """Row keys as cases to run: an efficiency case becomes the two time cases behind it."""
    keys = list(keys)
    derived = [k for k in keys if k.benchmark.endswith(EFFICIENCY_SUFFIX)]
    if not derived:
        return keys
    behind = time_cases(derived, log.paired_keys, config)
    plain = [k for k in keys if k not in derived]
    return plain + [k for k in behind if k not in plain]


def _interim_variants(
    log: RoundLog, config: GateConfig, floors: Floors
) -> tuple[list[VariantComparison], dict[CaseKey, Measurement]]:
    """Variant rows (no confirmation) over the round-aligned data of ``log``; the head cases."""
    cfg = replace(config, confirm=False)
    aligned = variant_aligned(log, cfg.baselines)
    head_m = side_measurements(aligned, "head")
    sides = (side_measurements(aligned, "base"), head_m)
    return compare_variants(head_m, cfg, noise_floors=floors, sides=sides), head_m


def short_sighted(rows: Iterable[CaseComparison], config: GateConfig) -> list[CaseKey]:
    """Blind spots (`perfgate.wall.plan`) that ``max_rounds`` rounds could bring to their
    target: more rounds narrow their CI until the run could see a slowdown near the
    threshold. Cases that would need more rounds than allowed are left (and reported)."""
    out = []
    for row in visibility.blind_spots(list(rows), config):
        need = visibility.rounds_to_target(row, min(row.n_base, row.n_head), config)
        if need is not None and need <= config.max_rounds:
            out.append(row.key)
    return out


def suspects(rows: Iterable[CaseComparison]) -> list[CaseKey]:
    """Undecided blocking rows whose estimate is already a slowdown beyond their threshold,
    most evident (smallest p) first.

    Only these can still become a stable regression, the one outcome that blocks a merge;
    a run that cannot afford a round of every undecided case spends its last rounds on them
    rather than stop (`perfgate.wall.measure.Measurer.extra_round`).
    """
    leaning = [
        r
        for r in rows
        if r.blocking
        and r.verdict is CaseVerdict.INCONCLUSIVE
        and r.ratio is not None
        and r.ratio > 1.0 + r.threshold
    ]
    leaning.sort(key=lambda r: (r.p if r.p is not None else 1.0, natural_key(r.key)))
    return [r.key for r in leaning]


@dataclass(frozen=True)
class ExtraRound:
    """What an extra main round may run: every case more rounds could settle, and the cases
    behind the suspected regressions among them (most evident first; a prefix of them is
    the round the budget can still pay for when the whole is too dear)."""

    cases: tuple[CaseKey, ...]
    suspects: tuple[CaseKey, ...]


def next_extra_cases(log: RoundLog, config: GateConfig, floors: Floors) -> ExtraRound:
    """The cases an extra main round should run: undecided rows, blind spots more rounds can
    cure (an efficiency row as the two time cases behind it), then undecided variant rows'
    head cases not already among them (empty: nothing more rounds could settle); and the
    cases behind the suspected regressions (:func:`suspects`), in their order."""
    rows = _interim(log, config, floors)
    keys = undecided(rows, config)
    keys += [k for k in short_sighted(rows, config) if k not in set(keys)]
    todo = _as_cases(keys, log, config)
    variants, head_m = _interim_variants(log, config, floors)
    known = set(todo)
    cases = undecided_variant_cases(variants, head_m, replace(config, confirm=False))
    todo += [k for k in dict.fromkeys(cases) if k not in known]
    behind: list[CaseKey] = []
    for key in suspects(rows):
        behind += [k for k in _as_cases([key], log, config) if k not in behind]
    return ExtraRound(tuple(todo), tuple(behind))


@dataclass(frozen=True)
class ConfirmTargets:
    """What the confirmation re-runs: flagged rows and their direction, and the cases to run."""

    rows: Mapping[CaseKey, CaseVerdict]
    variants: Mapping[VariantRowId, CaseVerdict]
    cases: tuple[CaseKey, ...]


def confirm_targets(main: RoundLog, config: GateConfig, floors: Floors) -> ConfirmTargets:
    """The flagged rows (and variant rows) of the main phase and the cases behind them."""
    rows = _interim(main, config, floors)
    variants, head_m = _interim_variants(main, config, floors)
    flagged_rows = set(flagged(rows))
    chosen = flagged_variants(variants)
    keys = [*_as_cases(flagged_rows, main, config), *variant_head_cases(chosen, head_m)]
    return ConfirmTargets(
        rows={r.key: r.verdict for r in rows if r.key in flagged_rows},
        variants={
            variant_row_id(v, r): r.verdict
            for v in chosen
            for r in v.rows
            if r.blocking and r.verdict in FLAGGED
        },
        cases=tuple(sorted(set(keys), key=natural_key)),
    )


def confirm_pending(
    log: RoundLog, config: GateConfig, floors: Floors, targets: ConfirmTargets
) -> list[CaseKey]:
    """Target cases whose re-run has neither replicated nor ruled out its flag yet (the
    re-run's q is over the flagged cases only: no other shard's tests count)."""
    config = replace(config, elsewhere_tests=0)
    alpha = config.alpha
    rows = {r.key: r for r in _interim(log, config, floors)}
    todo = [
        key
        for key, direction in targets.rows.items()
        if key in rows and confirmation_pending(rows[key], direction, alpha)
    ]
    todo = _as_cases(todo, log, config)
    variants, head_m = _interim_variants(log, config, floors)
    open_variants = [
        v
        for v in variants
        for r in v.rows
        if variant_row_id(v, r) in targets.variants
        and confirmation_pending(r, targets.variants[variant_row_id(v, r)], alpha)
    ]
    todo += variant_head_cases(open_variants, head_m)
    return sorted(set(todo), key=natural_key)


def selection_regexes(keys: Iterable[CaseKey], names: Mapping[CaseKey, str]) -> list[str]:
    """Anchored regexes that select exactly ``keys`` (a key without a name is a KeyError)."""
    out = []
    for key in sorted(set(keys), key=natural_key):
        if key not in names:
            raise KeyError(f"{key.label()}: not in benchmarks.json; cannot select it")
        out.append("^" + re.escape(names[key]) + "$")
    return out
