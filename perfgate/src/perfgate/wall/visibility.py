"""What a gate run could see (pure): per blocking case, the smallest slowdown its data could
have called stable, against the case's target (its threshold plus ``detect_margin``).

A blocking case whose detectable slowdown exceeds its target is a *blind spot*: the report
lists it first, so a PASS never hides it, and the sampling stage gives it extra rounds while
the budget lasts. A wall-clock case is judged by the wall clock's own data: one whose
single-thread work the sim instrument also compared (`perfgate.twins.coverage`)
is still a blind spot when the wall clock was blind (code can tell it is being counted and
run other code there: `perfgate.agreement`); the report says what else
counted it, unless the two instruments disagree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from perfgate import agreement
from perfgate.config import GateConfig
from perfgate.model import CaseComparison
from perfgate.twins import coverage, covering
from perfgate.verdict import CaseVerdict


def detectable_slowdown(row: CaseComparison) -> float | None:
    """The smallest slowdown (0.05 = 5%) this row's data could have called stable.

    With the measured spread, a true ratio R gives a CI whose lower bound is about
    R * ci_low / ratio; it clears 1 + threshold when R > (1 + threshold) * ratio / ci_low.
    None when the row has no paired CI (failed, new, removed, too few samples).
    """
    if row.ratio is None or row.ci_low is None or row.ci_low <= 0 or row.ratio <= 0:
        return None
    spread = max(1.0, row.ratio / row.ci_low)
    return (1.0 + row.threshold) * spread - 1.0


#: Verdicts of rows that could hide a regression the run was too blind to see.
_UNSEEN = frozenset({CaseVerdict.UNCHANGED, CaseVerdict.INCONCLUSIVE, CaseVerdict.IMPROVED})


def detect_target(row: CaseComparison, config: GateConfig) -> float:
    """The detectable slowdown a blocking case should reach: its threshold plus the margin."""
    return row.threshold + config.detect_margin


def blind_spots(rows: Sequence[CaseComparison], config: GateConfig) -> list[CaseComparison]:
    """Blocking rows, compared and not found slower, whose detectable slowdown is unknown
    (too few rounds for a CI) or above their target. Failed, new and removed rows are
    decided by their own findings. The sim instrument's count of a wall case's work does not
    make it seen (see the module)."""
    out = []
    for row in rows:
        if not row.blocking or row.verdict not in _UNSEEN:
            continue
        seen = detectable_slowdown(row)
        if seen is None or seen > detect_target(row, config) + 1e-12:
            out.append(row)
    return out


def rounds_to_target(row: CaseComparison, rounds: int, config: GateConfig) -> int | None:
    """Paired rounds the row would need to reach its target (the CI's log-width shrinks as
    1/sqrt(rounds)); None when it cannot (no CI, or a target not above the threshold)."""
    seen = detectable_slowdown(row)
    if seen is None or rounds < 1:
        return None
    wanted = math.log((1.0 + detect_target(row, config)) / (1.0 + row.threshold))
    have = math.log((1.0 + seen) / (1.0 + row.threshold))
    if wanted <= 0:
        return None
    if have <= wanted:
        return rounds
    return math.ceil(rounds * (have / wanted) ** 2)


@dataclass(frozen=True)
class Visibility:
    """What the run could see of one blocking case: its detectable slowdown (None: no CI)
    against its target; ``blind`` when it is a blind spot."""

    row: CaseComparison
    detectable: float | None
    target: float
    blind: bool
    #: the sim row that compared this wall case's single-thread work (None: none did)
    covered_by: CaseComparison | None = None

    @property
    def seen(self) -> str:
        """The report's answer: a blind spot (whatever else counted it), seen, or seen by
        the simulator only (a row that is no blind spot: regressed or failed, say)."""
        if self.blind:
            return "blind spot" + (" (also counted by the simulator)" if self.covered_by else "")
        wall_saw = self.detectable is not None and self.detectable <= self.target + 1e-12
        if self.covered_by is not None and not wall_saw:
            return "by the simulator (single-thread work)"
        return "yes" if self.detectable is not None else self.row.verdict.value

    def to_json(self) -> dict[str, object]:
        """One entry of ``verdict.json``'s ``visibility`` list."""
        return {
            "case": self.row.key.label(),
            "instrument": self.row.instrument,
            "detectable_slowdown": self.detectable,
            "target": self.target,
            "blind_spot": self.blind,
            "covered_by": self.covered_by.key.label() if self.covered_by else None,
        }


def visibility(rows: Sequence[CaseComparison], config: GateConfig) -> list[Visibility]:
    """Every blocking row with what the run could see of it (report order kept)."""
    blind = {id(r) for r in blind_spots(rows, config)}
    covered = coverage(rows, config)
    return [
        Visibility(
            r,
            detectable_slowdown(r),
            detect_target(r, config),
            id(r) in blind,
            _agreeing(r, covering(r, covered, config)),
        )
        for r in rows
        if r.blocking
    ]


def _agreeing(row: CaseComparison, sim: CaseComparison | None) -> CaseComparison | None:
    """``sim``, the sim row that counted wall ``row``'s work, unless the two disagree
    (`agreement.disagree`): then no instrument saw the case."""
    return None if agreement.disagree(row, sim) else sim
