"""The history of one benchmark case on one machine, in first-parent commit order.

Plain, validated data: the watch reads nothing itself. A point is one measured commit of main;
commits that were never measured are simply absent, so consecutive points may be several
positions apart. A change between two points is then a range of commits that a later step
bisects.
"""

from __future__ import annotations

import math
import numbers
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from perfgate.errors import UserError

_SHA = re.compile(r"[0-9a-f]{7,64}")
_MEDIAN_RTOL = 1e-9


class SeriesError(UserError):
    """A history point or series is malformed; the message names it and what was expected."""


def _check_measure(what: str, x: object) -> float:
    """`x` as a float, or SeriesError: values feed ratios and logarithms, so they must be > 0."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise SeriesError(f"{what} must be a number, got {x!r}")
    if not math.isfinite(float(x)) or float(x) <= 0.0:
        raise SeriesError(f"{what} must be a finite number > 0, got {x!r}")
    return float(x)


def _as_tuple(what: str, items: object) -> tuple[object, ...]:
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise SeriesError(f"{what} must be a sequence, got {type(items).__name__}")
    return tuple(items)


@dataclass(frozen=True)
class HistoryPoint:
    """One measured commit: its sha, its position in first-parent order, and its measurement.

    `value` is the median of `samples` (asv stores a per-commit sample list). `samples` may be
    empty when only the value was stored (asv `track_*` benchmarks have no sample list).
    """

    commit: str
    position: int
    value: float
    samples: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.commit, str) or not _SHA.fullmatch(self.commit):
            raise SeriesError(
                f"history point commit must be a lowercase hex sha of 7-64 digits, "
                f"got {self.commit!r}"
            )
        where = f"history point {self.commit}"
        if not isinstance(self.position, int) or isinstance(self.position, bool):
            raise SeriesError(f"{where}: position must be an int, got {self.position!r}")
        if self.position < 0:
            raise SeriesError(f"{where}: position must be >= 0, got {self.position}")
        object.__setattr__(self, "value", _check_measure(f"{where}: value", self.value))
        samples = tuple(
            _check_measure(f"{where}: sample {i}", s)
            for i, s in enumerate(_as_tuple(f"{where}: samples", self.samples))
        )
        object.__setattr__(self, "samples", samples)
        if samples and not math.isclose(
            self.value, statistics.median(samples), rel_tol=_MEDIAN_RTOL
        ):
            raise SeriesError(
                f"{where}: value {self.value!r} is not the median of its samples "
                f"({statistics.median(samples)!r})"
            )

    @classmethod
    def from_samples(cls, commit: str, position: int, samples: Sequence[float]) -> HistoryPoint:
        """The point whose value is the median of `samples` (at least one)."""
        if isinstance(samples, (str, bytes)) or not isinstance(samples, Sequence) or not samples:
            raise SeriesError(f"history point {commit}: samples must be a non-empty sequence")
        values = [
            _check_measure(f"history point {commit}: sample {i}", s) for i, s in enumerate(samples)
        ]
        return cls(commit, position, statistics.median(values), tuple(values))


@dataclass(frozen=True)
class Series:
    """The measured history of one case (benchmark + parameter values) on one machine.

    `params` holds the case's parameter values as asv writes them (strings, e.g. `'2048'`).
    `higher_is_better` marks throughput-like benchmarks: for them a drop is the regression.
    Points are in first-parent order: positions strictly increase, and no commit repeats.
    """

    benchmark: str
    params: tuple[str, ...]
    machine: str
    higher_is_better: bool
    points: tuple[HistoryPoint, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.benchmark, str) or not self.benchmark:
            raise SeriesError(
                f"series benchmark must be a non-empty string, got {self.benchmark!r}"
            )
        params = _as_tuple(f"series {self.benchmark}: params", self.params)
        if not all(isinstance(p, str) for p in params):
            raise SeriesError(f"series {self.benchmark}: params must be strings, got {params!r}")
        object.__setattr__(self, "params", params)
        if not isinstance(self.machine, str) or not self.machine:
            raise SeriesError(
                f"series {self.benchmark}: machine must be a non-empty string, "
                f"got {self.machine!r}"
            )
        if not isinstance(self.higher_is_better, bool):
            raise SeriesError(f"{self.label}: higher_is_better must be a bool")
        points = _as_tuple(f"{self.label}: points", self.points)
        object.__setattr__(self, "points", points)
        self._check_order()

    def _check_order(self) -> None:
        seen: set[str] = set()
        for i, point in enumerate(self.points):
            if not isinstance(point, HistoryPoint):
                raise SeriesError(f"{self.label}: point {i} must be a HistoryPoint")
            if point.commit in seen:
                raise SeriesError(f"{self.label}: commit {point.commit} appears twice")
            seen.add(point.commit)
            if i and point.position <= self.points[i - 1].position:
                raise SeriesError(
                    f"{self.label}: points must be in first-parent order (strictly increasing "
                    f"positions); point {i} ({point.commit}) is at {point.position}, "
                    f"after {self.points[i - 1].position}"
                )

    @property
    def label(self) -> str:
        """The case and machine, as messages name them: `bench(p1, p2) on machine`."""
        return f"{self.benchmark}({', '.join(self.params)}) on {self.machine}"

    @property
    def values(self) -> tuple[float, ...]:
        """The point values (medians), in commit order."""
        return tuple(p.value for p in self.points)
