"""Thread scaling per problem size (informational): best thread count and parallel efficiency
of each side, compared at the largest thread count both measured."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from perfgate import stats
from perfgate.config import GateConfig, ScalingConfig
from perfgate.model import CaseKey, Measurement, natural_key
from perfgate.wall.compare.measurements import split_by_param


@dataclass(frozen=True)
class ScalingPoint:
    """One thread count: median time and parallel efficiency (relative to the fewest threads)."""

    threads: int
    time: float
    efficiency: float


@dataclass(frozen=True)
class ScalingCurve:
    """Times over thread counts for one side."""

    label: str
    points: tuple[ScalingPoint, ...]

    @property
    def best(self) -> ScalingPoint:
        """The fastest thread count (ties -> fewer threads)."""
        return min(self.points, key=lambda p: (p.time, p.threads))

    def at(self, threads: int) -> ScalingPoint | None:
        """The point at *threads*, if measured."""
        return next((p for p in self.points if p.threads == threads), None)


@dataclass(frozen=True)
class ScalingRow:
    """Two sides' scaling curves for one group (e.g. one N); flags a moved optimum or drop."""

    group: CaseKey
    size: str | None
    a: ScalingCurve
    b: ScalingCurve
    compared_at: int
    efficiency_drop: float
    best_shifted: bool
    flagged: bool
    reason: str = ""


def _curve(label: str, times: Mapping[int, float]) -> ScalingCurve:
    """Efficiency is T_min * p_min / (p * T_p), i.e. T1 / (p Tp) when 1 thread was measured."""
    p0 = min(times)
    t0 = times[p0]
    points = tuple(
        ScalingPoint(p, times[p], stats.parallel_efficiency(t0 * p0, times[p], p))
        for p in sorted(times)
    )
    return ScalingCurve(label, points)


def _by_group(
    measurements: Mapping[CaseKey, Measurement],
    thread_param: str,
    higher_is_better: Callable[[str], bool],
) -> dict[CaseKey, dict[int, float]]:
    """Median times per thread count of each group; throughput benchmarks are left out
    (the curves, their best point and efficiency are defined on times)."""
    groups: dict[CaseKey, dict[int, float]] = {}
    for key, m in measurements.items():
        if higher_is_better(key.benchmark):
            continue
        value = key.param(thread_param)
        median = m.median
        if value is None or median is None or m.failed or not value.isdigit() or int(value) < 1:
            continue
        groups.setdefault(key.without(thread_param), {})[int(value)] = median
    return groups


def thread_scaling(
    a: Mapping[CaseKey, Measurement],
    b: Mapping[CaseKey, Measurement],
    scaling: ScalingConfig,
    labels: tuple[str, str] = ("base", "head"),
    higher_is_better: Callable[[str], bool] = lambda _name: False,
) -> list[ScalingRow]:
    """Per group: best thread count and efficiency on each side, compared at the largest
    thread count both sides measured. Flags a moved optimum or an efficiency drop larger than
    ``scaling.max_efficiency_drop`` (absolute, e.g. 0.10 = 10 points). Benchmarks for which
    ``higher_is_better(name)`` holds are not time curves and are skipped."""
    param = scaling.thread_param
    ga, gb = _by_group(a, param, higher_is_better), _by_group(b, param, higher_is_better)
    rows = []
    for group in sorted(set(ga) & set(gb), key=natural_key):
        common = set(ga[group]) & set(gb[group])
        if len(common) < 2:
            continue
        ca = _curve(labels[0], {p: ga[group][p] for p in common})
        cb = _curve(labels[1], {p: gb[group][p] for p in common})
        at = max(common)
        pa, pb = ca.at(at), cb.at(at)
        assert pa is not None and pb is not None
        drop = pa.efficiency - pb.efficiency
        shifted = ca.best.threads != cb.best.threads
        size = group.param(scaling.size_param) if scaling.size_param else None
        reasons = []
        if shifted:
            reasons.append(f"best thread count moved {ca.best.threads} -> {cb.best.threads}")
        if drop > scaling.max_efficiency_drop:
            reasons.append(f"efficiency at {at} threads dropped {100 * drop:.1f} points")
        row = ScalingRow(group, size, ca, cb, at, drop, shifted, bool(reasons), "; ".join(reasons))
        rows.append(row)
    return rows


def scaling_rows(
    base: Mapping[CaseKey, Measurement], head: Mapping[CaseKey, Measurement], config: GateConfig
) -> tuple[list[ScalingRow], list[ScalingRow]]:
    """Thread scaling of head vs base, and of each variant vs its baseline at head."""
    if config.scaling is None:
        return [], []
    better = config.is_higher_better
    runs = thread_scaling(base, head, config.scaling, higher_is_better=better)
    variants: list[ScalingRow] = []
    for pair in config.baselines:
        a = split_by_param(head, pair.param, pair.baseline, pair.benchmarks)
        b = split_by_param(head, pair.param, pair.variant, pair.benchmarks)
        labels = (pair.baseline, pair.variant)
        variants += thread_scaling(a, b, config.scaling, labels, higher_is_better=better)
    return runs, variants
