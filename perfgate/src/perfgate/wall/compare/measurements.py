"""From stored data to `Measurement`s: asv results, sample files, paired rounds."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TypeVar

from perfgate.formats.asv_results import CaseState, ResultSet
from perfgate.formats.samples import SampleRun
from perfgate.model import CaseKey, Measurement, Samples

_V = TypeVar("_V")


def measurements_from_results(results: ResultSet) -> dict[CaseKey, Measurement]:
    """asv results -> measurements; skipped (NaN) cases are left out, failures kept."""
    out: dict[CaseKey, Measurement] = {}
    for key, case in results.cases.items():
        if case.state is CaseState.SKIPPED:
            continue
        if case.state is CaseState.FAILED:
            out[key] = Measurement(key, (), failed=True, version=case.version, unit=case.unit)
            continue
        samples = case.samples if case.samples else (float(case.value or math.nan),)
        out[key] = Measurement(key, samples, version=case.version, unit=case.unit)
    return out


def side_measurement(
    key: CaseKey, runs: Sequence[Samples], unit: str = "seconds", paired: bool = True
) -> Measurement:
    """One side of one case from its runs, in order: failed when any run failed;
    ``paired=False`` pools the runs as independent samples (no rounds)."""
    if any(r is None for r in runs):
        return Measurement(key, (), failed=True, unit=unit)
    kept = tuple(r for r in runs if r is not None)
    rounds = kept if paired else None
    return Measurement(key, tuple(s for r in kept for s in r), rounds=rounds, unit=unit)


def paired_measurements(
    key: CaseKey, base_rounds: Sequence[Samples], head_rounds: Sequence[Samples], unit: str
) -> tuple[Measurement, Measurement]:
    """(base, head) of one case from its paired rounds (round *i* of each side is a pair).

    A failure at head in any round marks head failed (it blocks). Rounds in which only base
    failed are dropped from both sides, so the pairing holds and the others still compare:
    one flaky base run must not turn a measured regression into "failed on base" (which
    does not block). Base failing in every round is a failed base.
    """
    if all(h is not None for h in head_rounds) and any(b is not None for b in base_rounds):
        kept = [i for i, b in enumerate(base_rounds) if b is not None]
        base_rounds = tuple(base_rounds[i] for i in kept)
        head_rounds = tuple(head_rounds[i] for i in kept)
    return side_measurement(key, base_rounds, unit), side_measurement(key, head_rounds, unit)


def measurements_from_samples(
    run: SampleRun,
) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """A perfgate sample file -> (base, head) measurements with paired rounds."""
    base, head = {}, {}
    for k, c in run.cases.items():
        base[k], head[k] = paired_measurements(k, c.base_rounds, c.head_rounds, run.unit)
    return base, head


def select(measurements: Mapping[CaseKey, _V], pattern: str | None) -> dict[CaseKey, _V]:
    """Keep the cases whose benchmark name matches *pattern* (``re.search``); None keeps all
    (measurements, or the samples of one round)."""
    if not pattern:
        return dict(measurements)
    regex = re.compile(pattern)
    return {k: m for k, m in measurements.items() if regex.search(k.benchmark)}


def split_by_param(
    measurements: Mapping[CaseKey, Measurement], param: str, value: str, pattern: str = "."
) -> dict[CaseKey, Measurement]:
    """Cases whose *param* equals *value*, keyed without that param."""
    regex = re.compile(pattern)
    return {
        k.without(param): m
        for k, m in measurements.items()
        if k.param(param) == value and regex.search(k.benchmark)
    }
