"""The rounds of one measurement phase, in memory, and the `Measurement`s they give (pure).

A *round* runs the selected cases once for each side, back to back, alternating which side
goes first (B,H then H,B) so that position in the round cancels out. The sample file of a
phase is only written at checkpoints (`perfgate.formats.samples`); every decision between
rounds reads the `RoundLog` directly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from perfgate.config import BaselinePair
from perfgate.model import CaseKey, Measurement, Round, Samples, natural_key
from perfgate.wall.compare.measurements import paired_measurements, side_measurement


def round_order(index: int) -> tuple[str, str]:
    """Side order of round ``index``: base first on even rounds, head first on odd rounds."""
    return ("base", "head") if index % 2 == 0 else ("head", "base")


@dataclass
class RoundLog:
    """All rounds of one phase ("main", "confirm" or "calibrate") of a run."""

    phase: str
    rounds: list[Round] = field(default_factory=list)

    @property
    def paired_keys(self) -> list[CaseKey]:
        """Cases that ran on both sides in at least one round."""
        keys = {k for r in self.rounds for k in r.base if k in r.head}
        return sorted(keys, key=natural_key)

    def never_paired(self) -> list[CaseKey]:
        """Cases that ran on both sides, but never in the same round (e.g. skipped on
        alternate sides): neither paired nor one-sided, compared as unpaired samples."""
        base = {k for r in self.rounds for k in r.base}
        head = {k for r in self.rounds for k in r.head}
        paired = set(self.paired_keys)
        return sorted((base & head) - paired, key=natural_key)

    def one_sided(self, side: str) -> dict[CaseKey, Measurement]:
        """Cases seen only on ``side`` in every round they ran (NEW / REMOVED cases)."""
        other = "head" if side == "base" else "base"
        keys = {k for r in self.rounds for k in r.side(side)}
        keys -= {k for r in self.rounds for k in r.side(other)}
        return {key: side_measurement(key, self.runs(key, side)) for key in keys}

    def runs(self, key: CaseKey, side: str) -> list[Samples]:
        """The samples of ``key`` on ``side`` in every round it ran there, in order."""
        return [r.side(side)[key] for r in self.rounds if key in r.side(side)]

    def paired_runs(self, key: CaseKey) -> tuple[list[Samples], list[Samples]]:
        """(base, head) samples of ``key`` in the rounds where it ran on both sides."""
        both = [r for r in self.rounds if key in r.base and key in r.head]
        return [r.base[key] for r in both], [r.head[key] for r in both]


def _paired(log: RoundLog) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """Paired (base, head) measurements of every case that ran on both sides of a round."""
    base: dict[CaseKey, Measurement] = {}
    head: dict[CaseKey, Measurement] = {}
    for key in sorted({k for r in log.rounds for k in r.base if k in r.head}):
        base[key], head[key] = paired_measurements(key, *log.paired_runs(key), "seconds")
    return base, head


def measurements(log: RoundLog) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """(base, head) measurements: paired rounds, plus one-sided and never-paired cases."""
    paired_base, paired_head = _paired(log)
    base_m = {**log.one_sided("base"), **paired_base}
    head_m = {**log.one_sided("head"), **paired_head}
    for key in log.never_paired():  # pooled, as they never ran in the same round
        base_m[key] = side_measurement(key, log.runs(key, "base"), paired=False)
        head_m[key] = side_measurement(key, log.runs(key, "head"), paired=False)
    for key, m in head_m.items():  # a head failure in a round that base skipped counts too
        if not m.failed and any(r is None for r in log.runs(key, "head")):
            head_m[key] = Measurement(key, (), failed=True)
    return base_m, head_m


def head_measurements(log: RoundLog) -> dict[CaseKey, Measurement]:
    """Every head case of ``log`` with its rounds as they ran (variant vs baseline data).

    Head only: what happened on the base commit (a failed or skipped run there) must not
    drop head rounds, or the variant and its baseline would lose different rounds and be
    paired out of step (or fall back to pooled samples).
    """
    return side_measurements(log, "head")


def side_measurements(log: RoundLog, side: str) -> dict[CaseKey, Measurement]:
    """Every case of ``side`` ("base" or "head") with its rounds of that side as they ran."""
    keys = {k for r in log.rounds for k in r.side(side)}
    return {key: side_measurement(key, log.runs(key, side)) for key in keys}


def variant_aligned(log: RoundLog, pairs: Sequence[BaselinePair]) -> RoundLog:
    """``log`` with each variant or baseline case kept only in rounds where its partner ran.

    Variant-vs-baseline statistics pair the two head cases round by round. An extra round
    that re-ran only one of them (it was undecided against base) would break that pairing,
    while rounds that ran both add paired data, so the p-value can keep shrinking.
    """
    rounds = []
    for rnd in log.rounds:
        drop = _partnerless(rnd.head, pairs)
        base = {k: v for k, v in rnd.base.items() if k not in drop}
        head = {k: v for k, v in rnd.head.items() if k not in drop}
        rounds.append(replace(rnd, base=base, head=head))
    return RoundLog(log.phase, rounds)


def variant_sides(
    log: RoundLog, pairs: Sequence[BaselinePair]
) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """(base, head) measurements of every case for variant vs baseline statistics: each side
    with its rounds as they ran, after `variant_aligned` (the gate's variant rows and
    ``perfgate compare``'s alike)."""
    aligned = variant_aligned(log, pairs)
    return side_measurements(aligned, "base"), side_measurements(aligned, "head")


def one_round(
    base: Mapping[CaseKey, Measurement], head: Mapping[CaseKey, Measurement], phase: str = "main"
) -> RoundLog:
    """Stored results of two commits as a log of one round: each commit's result is one asv
    run (its samples; ``None`` for a failed case), so no round pairs with another."""

    def samples(side: Mapping[CaseKey, Measurement]) -> dict[CaseKey, Samples]:
        return {k: None if m.failed else m.samples for k, m in side.items()}

    return RoundLog(phase, [Round(0, phase, ("base", "head"), samples(base), samples(head))])


def _partnerless(
    present: Mapping[CaseKey, Samples], pairs: Sequence[BaselinePair]
) -> set[CaseKey]:
    """Keys of ``present`` that are one side of a pair whose other side is absent."""
    out: set[CaseKey] = set()
    for pair in pairs:
        regex = re.compile(pair.benchmarks)
        sides = (pair.variant, pair.baseline)
        mine = [k for k in present if regex.search(k.benchmark) and k.param(pair.param) in sides]
        seen = {(k.without(pair.param), k.param(pair.param)) for k in mine}
        for k in mine:
            other = pair.baseline if k.param(pair.param) == pair.variant else pair.variant
            if (k.without(pair.param), other) not in seen:
                out.add(k)
    return out


def with_unit(
    side: Mapping[CaseKey, Measurement], units: Mapping[str, str]
) -> dict[CaseKey, Measurement]:
    """One side's measurements with each case's unit (the rounds hold seconds only)."""
    return {k: replace(m, unit=units.get(k.benchmark, m.unit)) for k, m in side.items()}


def with_units(
    sides: tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]], units: Mapping[str, str]
) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """Both sides' measurements with each case's unit."""
    return with_unit(sides[0], units), with_unit(sides[1], units)
