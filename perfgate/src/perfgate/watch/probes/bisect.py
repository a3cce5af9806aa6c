"""Bisection of a confirmed regression's commit range with paired A/B probes (pure).

The range is first-parent history: the last good measured commit A, the commits after it,
and the first bad measured commit B, which a probe found stably worse than A. Each step
probes A against the middle commit M of what is left (Pinpoint compares neighbours; here the
question is always "is M stably worse than A?", so every step reads the same reference):
worse -> the culprit is in (lo, M], not worse -> in (M, hi]. The culprit is the first commit
stably worse than A: found when the range is down to one commit after ``lo``.

Invariant, and why a named culprit is never wrong by the probes' own evidence: ``hi`` was
probed worse than A (or is B), ``lo`` was probed not worse (or is A). An UNKNOWN probe
(inconclusive, failed) stops the bisection where it is instead of guessing a side, and so
does the budget (steps of this run, seconds left of the run's minutes): the range narrowed
so far is kept, and a later run continues from it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from perfgate.watch.probes.prober import Probe, ProbeVerdict

#: (reference A, commit M, seconds left) -> M measured against A.
ProbeFn = Callable[[str, str, float], Probe]


class Stop(Enum):
    """Why a bisection stopped."""

    FOUND = "found"  # one commit left: the culprit
    BUDGET = "budget"  # no step or minute left in this run
    UNKNOWN = "unknown"  # a probe could not tell worse from not worse


@dataclass
class Budget:
    """What one watch run may spend on probes: ``max_steps`` per change, ``seconds`` in all
    (shared by every change of the run, from when the budget was made)."""

    max_steps: int
    seconds: float
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=-1.0)

    def __post_init__(self) -> None:
        if self.started < 0:
            self.started = self.clock()

    def remaining(self) -> float:
        """Seconds left of the run's budget (<= 0: spent)."""
        return self.seconds - (self.clock() - self.started)

    def allows(self, steps_taken: int) -> bool:
        """Whether one more probe fits after ``steps_taken`` probes of the current change."""
        return steps_taken < self.max_steps and self.remaining() > 0


@dataclass(frozen=True)
class Narrowed:
    """Where a bisection got: ``good`` not worse than A, ``bad`` worse; the probes it ran."""

    good: str
    bad: str
    probes: tuple[Probe, ...]
    stop: Stop

    @property
    def culprit(self) -> str | None:
        """The first commit stably worse than A, once found."""
        return self.bad if self.stop is Stop.FOUND else None


def narrow(
    commits: Sequence[str],
    reference: str,
    good: str,
    bad: str,
    probe: ProbeFn,
    budget: Budget,
    steps_taken: int = 0,
) -> Narrowed:
    """Bisect ``good``..``bad`` (both in ``commits``, first-parent order, oldest first).

    ``reference`` is A, the change's last good measured commit: every probe is A against a
    middle commit. ``steps_taken`` probes of this change were already spent in this run
    (the confirmation). Raises ValueError when ``good`` is not before ``bad`` in ``commits``.
    """
    lo, hi = _index(commits, good, "good"), _index(commits, bad, "bad")
    if lo >= hi:
        raise ValueError(f"bisection range {good[:12]}..{bad[:12]}: good is not before bad")
    probes: list[Probe] = []
    while hi - lo > 1:
        if not budget.allows(steps_taken + len(probes)):
            return Narrowed(commits[lo], commits[hi], tuple(probes), Stop.BUDGET)
        mid = (lo + hi) // 2
        result = probe(reference, commits[mid], budget.remaining())
        probes.append(result)
        if result.verdict is ProbeVerdict.WORSE:
            hi = mid
        elif result.verdict is ProbeVerdict.NOT_WORSE:
            lo = mid
        else:
            return Narrowed(commits[lo], commits[hi], tuple(probes), Stop.UNKNOWN)
    return Narrowed(commits[lo], commits[hi], tuple(probes), Stop.FOUND)


def _index(commits: Sequence[str], sha: str, what: str) -> int:
    try:
        return list(commits).index(sha)
    except ValueError:
        raise ValueError(f"bisection: {what} commit {sha[:12]} is not in the history") from None
