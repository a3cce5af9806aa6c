"""A fake `perfgate.watch.probes.prober.Prober` with a planted culprit, for the watch tests.

Commits are ordered by ``history`` (oldest first). B is stably worse than A exactly when A
is before the culprit and B is at or after it; ``unknown`` commits answer UNKNOWN as B, and
each probe advances a fake clock by ``minutes`` (for the budget tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from perfgate.watch.probes.prober import Probe, ProbeCase, ProbeVerdict


@dataclass
class FakeClock:
    """A clock the fake prober moves forward."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeProber:
    """Answers from the planted ``culprit`` (None: nothing is worse anywhere), undone at
    ``recovery`` (None: never)."""

    history: Sequence[str]
    culprit: str | None
    machine_name: str = "ci-runner"
    unknown: frozenset[str] = frozenset()
    minutes: float = 3.0
    factor: float = 1.08
    clock: FakeClock = field(default_factory=FakeClock)
    recovery: str | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    cases: list[ProbeCase] = field(default_factory=list)

    @property
    def machine(self) -> str:
        return self.machine_name

    def measure(
        self, case: ProbeCase, machine: str, sha_a: str, sha_b: str, budget_s: float
    ) -> Probe:
        assert machine == self.machine_name and budget_s > 0
        self.calls.append((sha_a, sha_b))
        self.cases.append(case)
        self.clock.now += 60.0 * self.minutes
        seconds = 60.0 * self.minutes
        if sha_b in self.unknown:
            return Probe(
                sha_a, sha_b, ProbeVerdict.UNKNOWN, 1.03, 0.99, 1.07, seconds, "straddles"
            )
        if self._worse(sha_a, sha_b):
            ratio = self.factor
            return Probe(
                sha_a, sha_b, ProbeVerdict.WORSE, ratio, ratio - 0.02, ratio + 0.02, seconds
            )
        return Probe(sha_a, sha_b, ProbeVerdict.NOT_WORSE, 1.0, 0.98, 1.02, seconds)

    def _worse(self, sha_a: str, sha_b: str) -> bool:
        if self.culprit is None:
            return False
        at = list(self.history).index
        back = self.recovery is not None and at(self.recovery) <= at(sha_b)
        return at(sha_a) < at(self.culprit) <= at(sha_b) and not back
