"""Whether the two instruments agree on a case (pure).

Code of the head can tell it is being counted (valgrind answers its own client request
"running on valgrind" to anyone; the measured process's name and environment say so too)
and run other code there, so neither instrument is trusted blindly:

* the instruments *disagree* on a case where the wall clock, by its own rule, sees a stable
  slowdown of its single-thread twin (the lower end of its confidence interval above 1 +
  threshold: a row that would block on its own, confirmed or waiting for its confirmation)
  while the simulator compared the case and did not find it slower (unchanged or faster);
* such a case is undecided: a blocking one is an ERROR finding (the gate fails closed, exit 3,
  unless a stable regression elsewhere makes the run a REGRESSION), naming both figures, and
  its simulator row does not count as having seen the wall case
  (`perfgate.wall.visibility`).

A wall clock that is merely undecided (its interval reaches 1 + threshold, or below it) is
scatter, not evidence: there the simulator's count decides the single-thread twin
(`undecided_by_the_wall_clock`), and a wall-clock blind spot stays one in the report.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from perfgate.model import CaseComparison
from perfgate.verdict import CaseVerdict, GateVerdict

#: Sim verdicts that say "not slower" having compared both sides.
_SAME = frozenset({CaseVerdict.UNCHANGED, CaseVerdict.IMPROVED})


#: Sim verdicts of a case compared on both sides.
_COMPARED = _SAME | {CaseVerdict.REGRESSED}


def wall_sees_slowdown(wall: CaseComparison) -> bool:
    """True when the wall clock's own rule calls ``wall`` slower: its estimate and the lower
    end of its interval both beyond 1 + threshold (what blocks when confirmed)."""
    if wall.ratio is None or wall.ci_low is None:
        return False
    bound = 1.0 + wall.threshold
    return wall.ratio > bound and wall.ci_low > bound


def disagree(wall: CaseComparison | None, sim: CaseComparison | None) -> bool:
    """True when the wall clock sees a stable slowdown of ``wall`` (`wall_sees_slowdown`)
    and ``sim`` (its twin) compared both sides and found the case not slower."""
    if wall is None or sim is None:
        return False
    return wall_sees_slowdown(wall) and sim.verdict in _SAME


def undecided_by_the_wall_clock(wall: CaseComparison, sim: CaseComparison | None) -> bool:
    """True when inconclusive ``wall`` is left to its sim twin ``sim``: the wall clock does
    not see a slowdown by its own rule and the simulator compared both sides (its verdict,
    a regression included, then decides the case)."""
    if wall.verdict is not CaseVerdict.INCONCLUSIVE or sim is None:
        return False
    return not wall_sees_slowdown(wall) and sim.verdict in _COMPARED


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
