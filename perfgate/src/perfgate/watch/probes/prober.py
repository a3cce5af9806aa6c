"""What a re-measurement of one case tells the watch: the prober interface and its answer.

A prober measures one case on one machine at two commits of main, A (older) and B (newer),
the way the gate measures a pull request: paired, interleaved A/B rounds
(`perfgate.watch.probes.gate_prober` wraps the gate's pipeline; tests plant a culprit in a fake).
Its answer is a `Probe`: whether B is *stably worse* than A by the gate's rule (the CI of
the ratio above 1 + threshold, significant, confirmed), with the ratio and its CI. Pure data.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol


class ProbeVerdict(Enum):
    """The answer of one paired A/B comparison, as confirmation and bisection read it."""

    WORSE = "worse"  # B is stably worse than A: the gate's REGRESSED
    NOT_WORSE = "not-worse"  # the gate's UNCHANGED or IMPROVED: B is not worse beyond noise
    UNKNOWN = "unknown"  # inconclusive, failed, or not comparable: decides nothing


@dataclass(frozen=True)
class ProbeCase:
    """The one case to measure: benchmark, parameter value texts, and asv's ``--bench``
    regex selecting exactly that parameter combination."""

    benchmark: str
    params: tuple[str, ...]
    selection: str


@dataclass(frozen=True)
class Probe:
    """One A/B comparison: ``head`` (B) against ``base`` (A), worse-is-> 1 ratio and its CI.

    ``seconds`` is how long the measurement took; ``note`` says why the verdict is UNKNOWN
    (or what the gate noted), empty otherwise.
    """

    base: str
    head: str
    verdict: ProbeVerdict
    ratio: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    seconds: float = 0.0
    note: str = ""

    def describe(self) -> str:
        """``abcdef12..12345678 worse: ratio 1.081 (CI 1.062-1.099), 3.1 min``."""
        figures = "no ratio"
        if self.ratio is not None:
            figures = f"ratio {self.ratio:.3f}"
            if self.ci_low is not None and self.ci_high is not None:
                figures += f" (CI {self.ci_low:.3f}-{self.ci_high:.3f})"
        text = f"{self.base[:8]}..{self.head[:8]} {self.verdict.value}: {figures}"
        text += f", {self.seconds / 60:.1f} min"
        return text + (f" ({self.note})" if self.note else "")


class Prober(Protocol):
    """Measures one case at two commits on one machine (the machine it runs on)."""

    @property
    def machine(self) -> str:
        """The asv machine name whose results this prober's measurements stand beside."""
        ...

    def measure(
        self, case: ProbeCase, machine: str, sha_a: str, sha_b: str, budget_s: float
    ) -> Probe:
        """B (``sha_b``) against A (``sha_a``) for ``case`` on ``machine``, within about
        ``budget_s`` seconds; failures to measure are an UNKNOWN probe, not an exception."""
        ...


def probe_record(probe: Probe) -> dict[str, object]:
    """One A/B probe as plain data (the verdict as its enum value)."""
    return {
        "base": probe.base,
        "head": probe.head,
        "verdict": probe.verdict.value,
        "ratio": probe.ratio,
        "ci_low": probe.ci_low,
        "ci_high": probe.ci_high,
        "seconds": probe.seconds,
        "note": probe.note,
    }
