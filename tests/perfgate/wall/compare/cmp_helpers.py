"""Measurements and one-row comparisons shared by the compare-stage tests."""

from __future__ import annotations

import numpy as np

from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey, Measurement
from perfgate.wall.compare.runs import compare_runs

NO_CONFIRM = GateConfig(confirm=False, resamples=500)


def key(name: str = "b.time_x", **params: object) -> CaseKey:
    return CaseKey(name, tuple((k, str(v)) for k, v in params.items()))


def meas(k: CaseKey, median: float, seed: int, n: int = 12, cv: float = 0.02) -> Measurement:
    rng = np.random.default_rng(seed)
    return Measurement(k, tuple(float(x) for x in median * np.exp(rng.normal(0, cv, n))))


def one(
    base: Measurement | None,
    head: Measurement | None,
    config: GateConfig = NO_CONFIRM,
    **kw: object,
) -> CaseComparison:
    k = (base or head).key  # type: ignore[union-attr]
    b = {k: base} if base else {}
    h = {k: head} if head else {}
    (row,) = compare_runs(b, h, config, **kw)  # type: ignore[arg-type]
    return row
