"""Whether the two instruments agree on a case (pure).

Code of the head can tell it is being counted (valgrind answers its own client request
"running on valgrind" to anyone; the measured process's name and environment say so too)
and run other code there: a probe's head skipped work under valgrind, and the simulator
counted 1.001 ("same") for a slowdown of +6.4% the wall clock estimated (CI 1.038-1.099).
Valgrind cannot be hidden, so neither instrument is trusted blindly:

* the instruments *disagree* on a case where the wall clock's estimate of its single-thread
  twin is beyond that row's threshold, with its confidence interval above 1 (the wall clock
  sees a slowdown, not scatter: an A/A run's noisy 1.051, CI 0.864-1.079, on this VM made
  ``make gate`` an ERROR), while the simulator compared the case and did not find it slower
  (unchanged or faster);
* such a case is undecided: a blocking one is an ERROR finding (the gate fails closed, exit 3,
  unless a stable regression elsewhere makes the run a REGRESSION), naming both figures, and
  its simulator row does not count as having seen the wall case
  (`perfgate.wall.visibility`).

The wall clock's own rule still applies to its row whatever the simulator says (a blind spot
stays one); the simulator only adds: its stable regressions block, and where it agrees it is
named as having counted the case too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from perfgate.model import CaseComparison
from perfgate.verdict import CaseVerdict, GateVerdict

#: Sim verdicts that say "not slower" having compared both sides.
_SAME = frozenset({CaseVerdict.UNCHANGED, CaseVerdict.IMPROVED})


def disagree(wall: CaseComparison | None, sim: CaseComparison | None) -> bool:
    """True when ``wall``'s estimate is beyond its threshold with its CI above 1 and ``sim``
    (its twin) compared both sides and found the case not slower (see the module)."""
    if wall is None or sim is None or wall.ratio is None or wall.ci_low is None:
        return False
    slower = wall.ratio > 1.0 + wall.threshold and wall.ci_low > 1.0
    return slower and sim.verdict in _SAME


@dataclass(frozen=True)
class Disagreement:
    """A wall-clock row and its sim twin that disagree (`disagree`)."""

    wall: CaseComparison
    sim: CaseComparison

    @property
    def blocking(self) -> bool:
        return self.wall.blocking or self.sim.blocking

    def text(self) -> str:
        """The finding: both figures, and why the case is left undecided."""
        wall, sim = self.wall, self.sim
        ci = ""
        if wall.ci_low is not None and wall.ci_high is not None:
            ci = f" (CI {wall.ci_low:.3f}–{wall.ci_high:.3f})"
        figure = f" {sim.figure}" if sim.figure else ""
        return (
            f"head vs base {wall.key.label()}: the instruments disagree: the wall clock "
            f"estimates {wall.ratio:.3f}{ci}, beyond 1 + threshold {1 + wall.threshold:.3f}, "
            f"while the simulator counted {sim.ratio:.4f}{figure} ({sim.verdict.value}, "
            f"{sim.key.label()}): undecided (code can tell it is being counted)"
        )


def disagreements(
    pairs: Iterable[tuple[CaseComparison | None, CaseComparison | None]],
) -> list[Disagreement]:
    """The (wall, sim) ``pairs`` (`perfgate.twins.side_by_side`) whose
    instruments disagree, in order."""
    return [
        Disagreement(w, s) for w, s in pairs if w is not None and s is not None and disagree(w, s)
    ]


def findings(
    pairs: Iterable[tuple[CaseComparison | None, CaseComparison | None]],
) -> list[tuple[GateVerdict, str]]:
    """An ERROR case finding per blocking disagreement (the decide stage's input)."""
    return [(GateVerdict.ERROR, d.text()) for d in disagreements(pairs) if d.blocking]
