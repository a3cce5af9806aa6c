"""Projected thread scaling from per-thread counts (pure): Amdahl with measured imbalance.

One measured call at T threads, counted by callgrind per thread (Numba's workqueue layer:
the calling thread runs everything outside the parallel regions), is split into the
**serial work** S (the calling thread's counts: binding, allocation, launching and joining
the regions, logging) and the **worker shares** w_1..w_T (each worker's chunks of every
region of the call; P = sum of w_j), each weighted as the cost model's estimated cycles
(`perfgate.sim.cost`) or as instructions alone. For T free cores:

* critical path C = S + max_j w_j (the serial work, then the slowest worker);
* projected parallel efficiency E(T) = (S + P) / (T x C);
* serial share = S / (S + P); imbalance = max_j w_j / mean_j w_j (1.0: even chunks).

Over several measured calls (weighted as the single-thread family weighs them) the work and
the critical path are weighted means of the per-call values: E(T) is the loop's efficiency.
Not simulated (they stay with the wall clock on pinned runners): memory bandwidth, NUMA
placement, false sharing, cache coherence and clock frequency; and an imbalance that moves
between workers from one region of a call to the next is averaged out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perfgate.sim.cost import Events

#: what a count is weighted by: the cost model's estimated cycles, or instructions alone
WEIGHTINGS: dict[str, Callable[[Events], int]] = {
    "cycles": lambda e: e.cycles,
    "instructions": lambda e: e.ir,
}


@dataclass(frozen=True)
class ThreadCounts:
    """One measured call's counts: the calling thread's and each worker's."""

    serial: Events
    workers: tuple[Events, ...]

    def __post_init__(self) -> None:
        if not self.workers:
            raise ValueError("ThreadCounts: expected at least one worker's counts")


@dataclass(frozen=True)
class Scaling:
    """The model's projection at `threads` threads (work in the weighting's unit per call)."""

    threads: int
    serial: float
    parallel: float
    largest_share: float

    @property
    def total(self) -> float:
        """All the work of a call: serial and parallel."""
        return self.serial + self.parallel

    @property
    def critical_path(self) -> float:
        """The projected time of a call on `threads` free cores: serial, then the slowest
        worker."""
        return self.serial + self.largest_share

    @property
    def efficiency(self) -> float:
        """E(T) = total / (T x critical path)."""
        return self.total / (self.threads * self.critical_path)

    @property
    def serial_share(self) -> float:
        """The serial work's share of all the work."""
        return self.serial / self.total

    @property
    def imbalance(self) -> float:
        """The largest worker share over the mean share (1.0: even chunks)."""
        mean = self.parallel / self.threads
        return self.largest_share / mean if mean > 0 else 1.0

    def figures(self) -> dict[str, float]:
        """The figures a scaling family stores per case."""
        return {
            "efficiency": self.efficiency,
            "serial_share": self.serial_share,
            "imbalance": self.imbalance,
            "critical_path": self.critical_path,
        }


def project(
    calls: Sequence[ThreadCounts], weights: Sequence[int], weighting: str = "cycles"
) -> Scaling:
    """The projection of measured ``calls`` (each with the same number of workers, T),
    their work and critical paths averaged with ``weights`` (see the module)."""
    if not calls or len(calls) != len(weights):
        raise ValueError(
            f"expected one weight per measured call, got {len(weights)} for {len(calls)}"
        )
    if any(w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(f"weights: expected non-negative weights with a positive sum: {weights}")
    threads = {len(c.workers) for c in calls}
    if len(threads) != 1:
        raise ValueError(f"measured calls with different worker counts: {sorted(threads)}")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting: expected one of {sorted(WEIGHTINGS)}, got {weighting!r}")
    cost = WEIGHTINGS[weighting]
    total = float(sum(weights))
    serial = sum(w * cost(c.serial) for c, w in zip(calls, weights, strict=True)) / total
    parallel = sum(
        w * sum(cost(e) for e in c.workers) for c, w in zip(calls, weights, strict=True)
    )
    largest = sum(w * max(cost(e) for e in c.workers) for c, w in zip(calls, weights, strict=True))
    scaling = Scaling(threads.pop(), serial, parallel / total, largest / total)
    if scaling.critical_path <= 0:
        raise ValueError("measured calls with no work at all: nothing to project")
    return scaling


def figures(calls: Sequence[ThreadCounts], weights: Sequence[int]) -> dict[str, float]:
    """What a scaling family stores per case: the cycle-weighted figures, and the
    efficiency and serial share of instructions alone (``*_instructions``: they do not
    move with where data lie, see `perfgate.sim.scaling.compare`)."""
    by_cycles = project(calls, weights, "cycles").figures()
    by_instructions = project(calls, weights, "instructions").figures()
    return {
        **by_cycles,
        "efficiency_instructions": by_instructions["efficiency"],
        "serial_share_instructions": by_instructions["serial_share"],
        "critical_path_instructions": by_instructions["critical_path"],
    }


#: benchmark method of a scaling family -> (figure of `figures`, asv unit)
SCALING_FIGURES = {
    "track_efficiency": ("efficiency", "efficiency"),
    "track_serial_share": ("serial_share", "share"),
    "track_imbalance": ("imbalance", "ratio"),
    "track_critical_path": ("critical_path", "cycles"),
    "track_efficiency_instructions": ("efficiency_instructions", "efficiency"),
    "track_serial_share_instructions": ("serial_share_instructions", "share"),
    "track_critical_path_instructions": ("critical_path_instructions", "instructions"),
}
#: the benchmark naming a case of a scaling family (its E(T)); a gate whose base has one
#: counts the base twice (`perfgate.sim.phase.unchecked`)
SCALING_DECISIVE = "track_efficiency"
