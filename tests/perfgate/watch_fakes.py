"""Synthetic histories for the watch tests: seeded multiplicative Gaussian noise."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from perfgate.watch.changes.detect import ChangePoint, Direction, Evidence
from perfgate.watch.changes.series import HistoryPoint, Series
from perfgate.watch.records.state import WatchedChange, new_change

CV = 0.02  # the noise of every synthetic series: 2% coefficient of variation


def sha(i: int) -> str:
    """A distinct 40-digit sha for point `i`."""
    return f"{i:040x}"


def series_of(
    values: Sequence[float], *, higher_is_better: bool = False, positions: Sequence[int] = ()
) -> Series:
    """A series with one point per value, at `positions` (default 0, 1, 2, ...)."""
    where = list(positions) or list(range(len(values)))
    points = tuple(
        HistoryPoint(sha(i), p, float(v))
        for i, (p, v) in enumerate(zip(where, values, strict=True))
    )
    return Series(
        "hot_slice.HotSlice.time_compute",
        ("'assembled'", "2048", "1"),
        "ci-runner",
        higher_is_better,
        points,
    )


def noisy(n: int, seed: int, level: float = 1.0) -> np.ndarray:
    """`n` values at `level` with CV 2% Gaussian noise (seeded)."""
    return level * (1.0 + CV * np.random.default_rng(seed).standard_normal(n))


def stepped(n: int, at: int, factor: float, seed: int) -> np.ndarray:
    """A noisy series whose level is multiplied by `factor` from index `at` on."""
    values = noisy(n, seed)
    values[at:] *= factor
    return values


def sampled_series(
    levels: Sequence[float],
    positions: Sequence[int],
    seed: int,
    *,
    samples: int = 20,
    commit_cv: float = 0.0,
    higher_is_better: bool = False,
) -> Series:
    """A series of measured commits at `positions` (commit sha(position)), each with `samples`
    timings at its level.

    Every sample has CV 2% noise around its commit's level; `commit_cv` adds one offset per
    commit shared by all its samples (the build and the run), which pooled samples cannot see.
    """
    rng = np.random.default_rng(seed)
    points = []
    for position, level in zip(positions, levels, strict=True):
        offset = 1.0 + commit_cv * rng.standard_normal()
        timings = level * offset * (1.0 + CV * rng.standard_normal(samples))
        points.append(HistoryPoint.from_samples(sha(position), position, timings.tolist()))
    return Series(
        "hot_slice.HotSlice.time_compute",
        ("'assembled'", "2048", "1"),
        "ci-runner",
        higher_is_better,
        tuple(points),
    )


def step_change(
    series: Series,
    good: str,
    bad: str,
    direction: Direction = Direction.REGRESSION,
    index: int = 2,
) -> WatchedChange:
    """The first snapshot of an 8% step of ``series`` between commits ``good`` and ``bad``
    (the ratio oriented as the detector reports it: worse > 1 for a regression)."""
    point = ChangePoint(
        index=index,
        last_good_commit=good,
        first_bad_commit=bad,
        before=1.0,
        after=1.08,
        ratio=1.08,
        direction=direction,
        p_value=0.001,
        evidence=Evidence.SAMPLES,
    )
    return new_change(series, point)
