"""Variant vs baseline *relative to base*: did the pull request change the variant/baseline
ratio, not "is the variant slower than its baseline at head".

A variant that is already slower than its baseline on the base commit (as upstream's
assembled kernel was) would otherwise block every pull request, whatever it changes. So for
a group whose variant and baseline both exist at base, the row that gates compares the
per-round ratio variant/baseline at head with the same ratio at base: its ratio is
(variant/baseline at head) / (variant/baseline at base), above 1 meaning the pull request
made the variant worse relative to its baseline, tested by the usual rule
(`perfgate.wall.compare.rows`) against the pair's threshold. A group whose variant is
new at head has no such row: its absolute row decides, as before.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from perfgate.model import CaseKey, Measurement

#: The unit of a ratio measurement (variant/baseline: no dimension).
RATIO_UNIT = "ratio"


def _round_ratios(variant: Measurement, baseline: Measurement) -> tuple[float, ...] | None:
    """variant/baseline per round (medians), or None when the rounds do not pair up."""
    v, b = variant.rounds, baseline.rounds
    if v is None or b is None or len(v) != len(b):
        return None
    return tuple(float(np.median(rv)) / float(np.median(rb)) for rv, rb in zip(v, b, strict=True))


def ratio_measurement(
    key: CaseKey, variant: Measurement | None, baseline: Measurement | None
) -> Measurement | None:
    """The per-round variant/baseline ratios of one side as a measurement (one sample a
    round); None when either side of the pair is absent. A failed side fails the ratio;
    rounds that do not pair up leave no sample (too few samples: never a pass)."""
    if variant is None or baseline is None:
        return None
    if variant.failed or baseline.failed:
        return Measurement(key, (), failed=True, unit=RATIO_UNIT)
    if not variant.valid or not baseline.valid:
        return Measurement(key, (0.0,), rounds=((0.0,),), unit=RATIO_UNIT)  # invalid data
    ratios = _round_ratios(variant, baseline)
    if ratios is None:
        return Measurement(key, (), rounds=(), unit=RATIO_UNIT)
    return Measurement(key, ratios, rounds=tuple((r,) for r in ratios), unit=RATIO_UNIT)


def side_ratios(
    sides: Mapping[CaseKey, Mapping[str, CaseKey]],
    measurements: Mapping[CaseKey, Measurement],
    variant: str,
    baseline: str,
) -> dict[CaseKey, Measurement]:
    """Group -> ratio measurement of one commit, for the groups that have both cases."""
    out: dict[CaseKey, Measurement] = {}
    for group, keys in sides.items():
        vk, bk = keys.get(variant), keys.get(baseline)
        found = ratio_measurement(
            group,
            measurements.get(vk) if vk else None,
            measurements.get(bk) if bk else None,
        )
        if found is not None:
            out[group] = found
    return out
