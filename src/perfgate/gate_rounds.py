"""Pure bookkeeping of a gate's measurement rounds (no I/O).

A *round* runs the selected cases once for each side, back to back, alternating which side
goes first (B,H then H,B) so that position in the round cancels out. This module turns the
rounds into the perfgate sample-file document (``store`` format) and into `Measurement`s, and
holds the sequential rules: which cases need more rounds, which go to confirmation, and how to
select exactly those cases with asv's ``--bench`` regexes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from perfgate import compare, store
from perfgate.compare import CaseComparison, Measurement, VariantComparison
from perfgate.config import BaselinePair, GateConfig
from perfgate.store import CaseKey
from perfgate.verdict import CaseVerdict

SIDES = ("base", "head")
Samples = tuple[float, ...] | None  # None: the case failed (or timed out) on that side


def round_order(index: int) -> tuple[str, str]:
    """Side order of round ``index``: base first on even rounds, head first on odd rounds."""
    return ("base", "head") if index % 2 == 0 else ("head", "base")


@dataclass(frozen=True)
class Round:
    """One round: per side, the samples of every case that ran (skipped cases are absent)."""

    index: int
    phase: str
    order: tuple[str, str]
    base: Mapping[CaseKey, Samples]
    head: Mapping[CaseKey, Samples]
    seconds: float = 0.0

    def side(self, name: str) -> Mapping[CaseKey, Samples]:
        """The samples of side ``name`` ("base" or "head")."""
        return self.base if name == "base" else self.head


@dataclass
class RoundLog:
    """All rounds of one phase ("main" or "confirm") of a gate run."""

    phase: str
    rounds: list[Round] = field(default_factory=list)

    @property
    def paired_keys(self) -> list[CaseKey]:
        """Cases that ran on both sides in at least one round."""
        keys = {k for r in self.rounds for k in r.base if k in r.head}
        return sorted(keys, key=compare.natural_key)

    def never_paired(self) -> list[CaseKey]:
        """Cases that ran on both sides, but never in the same round (e.g. skipped on
        alternate sides): neither paired nor one-sided, compared as unpaired samples."""
        base = {k for r in self.rounds for k in r.base}
        head = {k for r in self.rounds for k in r.head}
        paired = set(self.paired_keys)
        return sorted((base & head) - paired, key=compare.natural_key)

    def one_sided(self, side: str) -> dict[CaseKey, Measurement]:
        """Cases seen only on ``side`` in every round they ran (NEW / REMOVED cases)."""
        other = "head" if side == "base" else "base"
        keys = {k for r in self.rounds for k in r.side(side)}
        keys -= {k for r in self.rounds for k in r.side(other)}
        return {key: _measurement(key, self.runs(key, side)) for key in keys}

    def runs(self, key: CaseKey, side: str) -> list[Samples]:
        """The samples of ``key`` on ``side`` in every round it ran there, in order."""
        return [r.side(side)[key] for r in self.rounds if key in r.side(side)]


def _measurement(key: CaseKey, runs: Sequence[Samples], paired: bool = True) -> Measurement:
    """The runs of one case on one side; ``paired=False`` pools them as independent samples."""
    if any(r is None for r in runs):
        return Measurement(key, (), failed=True)
    kept = tuple(r for r in runs if r is not None)
    return Measurement(key, tuple(s for r in kept for s in r), rounds=kept if paired else None)


def samples_document(
    log: RoundLog, base: str, head: str, fingerprint: Mapping[str, Any], created_at: str
) -> dict[str, Any]:
    """The ``perfgate-samples`` v1 document of ``log`` (paired cases only, see `store`)."""
    rounds = []
    for rnd in log.rounds:
        cases = [
            {
                "benchmark": key.benchmark,
                "params": dict(key.params),
                "base": None if rnd.base[key] is None else list(rnd.base[key] or ()),
                "head": None if rnd.head[key] is None else list(rnd.head[key] or ()),
            }
            for key in sorted(set(rnd.base) & set(rnd.head), key=compare.natural_key)
        ]
        rounds.append({"order": list(rnd.order), "phase": rnd.phase, "cases": cases})
    return {
        "api_version": store.SAMPLES_API_VERSION,
        "kind": store.SAMPLES_KIND,
        "created_at": created_at,
        "fingerprint": dict(fingerprint),
        "base": base,
        "head": head,
        "unit": "seconds",
        "rounds": rounds,
    }


def measurements(
    log: RoundLog, base: str, head: str
) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """(base, head) measurements: paired rounds from the sample document, plus one-sided."""
    doc = samples_document(log, base, head, {}, "")
    paired_base, paired_head = compare.measurements_from_samples(store.parse_samples(doc))
    base_m = {**log.one_sided("base"), **paired_base}
    head_m = {**log.one_sided("head"), **paired_head}
    for key in log.never_paired():  # pooled, as they never ran in the same round
        base_m[key] = _measurement(key, log.runs(key, "base"), paired=False)
        head_m[key] = _measurement(key, log.runs(key, "head"), paired=False)
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
    keys = {k for r in log.rounds for k in r.head}
    return {key: _measurement(key, log.runs(key, "head")) for key in keys}


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


# --------------------------------------------------------------------------------------------
# Sequential rules
# --------------------------------------------------------------------------------------------


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
        if row.verdict is CaseVerdict.INCONCLUSIVE and "version differs" not in row.note:
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


def flagged_variants(variants: Iterable[VariantComparison]) -> list[VariantComparison]:
    """Blocking variant rows flagged slower or faster: both sides go to the confirmation.

    A faster variant is re-run too: otherwise the report could only say "= same" for a
    variant that beats its baseline, which is the question the pairing exists to answer.
    """
    return [v for v in variants if v.row.blocking and v.row.verdict in FLAGGED]


def undecided_variant_cases(
    variants: Iterable[VariantComparison], head_keys: Iterable[CaseKey], config: GateConfig
) -> list[CaseKey]:
    """Head cases behind variant rows that more rounds could settle (as :func:`undecided`)."""
    rows = list(variants)
    pending = set(undecided((v.row for v in rows), config))
    return variant_head_cases([v for v in rows if v.row.key in pending], head_keys)


def benchmark_units(benchmarks: Mapping[str, Any]) -> dict[str, str]:
    """Benchmark -> unit from ``benchmarks.json`` data (asv's ``unit``; default seconds)."""
    return {
        name: str(entry.get("unit") or "seconds")
        for name, entry in benchmarks.items()
        if name != "version" and isinstance(entry, dict)
    }


def with_units(
    sides: tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]], units: Mapping[str, str]
) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """Both sides' measurements with each case's unit (the sample file holds seconds only)."""
    return with_unit(sides[0], units), with_unit(sides[1], units)


def with_unit(
    side: Mapping[CaseKey, Measurement], units: Mapping[str, str]
) -> dict[CaseKey, Measurement]:
    """One side's measurements with each case's unit (see :func:`with_units`)."""
    return {k: replace(m, unit=units.get(k.benchmark, m.unit)) for k, m in side.items()}


def case_names(benchmarks: Mapping[str, Any]) -> dict[CaseKey, str]:
    """CaseKey -> asv's selection name ``bench(repr1, repr2)`` from ``benchmarks.json`` data.

    asv matches ``--bench`` regexes against these names (parameter reprs joined by ", "),
    so an anchored, escaped name selects exactly one parameter combination.
    """
    out: dict[CaseKey, str] = {}
    for name, entry in benchmarks.items():
        if name == "version" or not isinstance(entry, dict):
            continue
        params = entry.get("params") or []
        names = entry.get("param_names") or []
        if not params:
            out[CaseKey(name)] = name
            continue
        for combo in itertools.product(*params):
            items = tuple((n, store.param_text(v)) for n, v in zip(names, combo, strict=True))
            out[CaseKey(name, items)] = f"{name}({', '.join(combo)})"
    return out


def selection_regexes(keys: Iterable[CaseKey], names: Mapping[CaseKey, str]) -> list[str]:
    """Anchored regexes that select exactly ``keys`` (a key without a name is a KeyError)."""
    out = []
    for key in sorted(set(keys), key=compare.natural_key):
        if key not in names:
            raise KeyError(f"{key.label()}: not in benchmarks.json; cannot select it")
        out.append("^" + re.escape(names[key]) + "$")
    return out
