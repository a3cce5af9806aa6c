"""Where a run's minutes went, planned against actual per phase (pure): the report's
"Where the minutes went" table.

Actual: this run's timeline (`perfgate.formats.timeline`): set-up, parity, each
instrument's phase before the wall clock (the sim phase, by family), the wall clock's main
rounds, its extra rounds and its confirmation re-run. Planned: the same phases of the
newest earlier run of the same kind, the timeline ``--plan`` reads (a sim phase scaled to
this run's counts of each family); none where no earlier run recorded the phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfgate.formats.timeline import PhaseTime, RoundTime, Timeline


@dataclass(frozen=True)
class PhaseRow:
    """One phase: what it was, its planned seconds (None: nothing to plan from) and the
    seconds it took."""

    phase: str
    detail: str
    planned_s: float | None
    actual_s: float


def _rounds_s(rounds: Sequence[RoundTime]) -> float:
    return sum(r.seconds for r in rounds)


def _split(t: Timeline, min_samples: int) -> dict[str, list[RoundTime]]:
    """The wall clock's rounds by part: main (up to min_samples), extra, confirmation."""
    main = [r for r in t.rounds if r.phase == "main"]
    return {
        "main rounds": main[:min_samples],
        "extra rounds": main[min_samples:],
        "confirmation": [r for r in t.rounds if r.phase == "confirm"],
    }


def _planned_phase(actual: PhaseTime, earlier: Timeline | None) -> float | None:
    """An instrument's phase as the earlier run's seconds per count give it for this run's
    counts (its whole seconds where it recorded no family); None: not recorded."""
    before = earlier.phase(actual.instrument) if earlier is not None else None
    if before is None:
        return None
    if not actual.families:
        return before.seconds
    per_count = {f.family: f.per_count_s for f in before.families}
    total = 0.0
    for f in actual.families:
        seconds = per_count.get(f.family)
        if seconds is None:
            return None
        total += seconds * f.cases * f.runs
    return total


def _planned_parity(actual: Timeline, earlier: Timeline | None) -> float | None:
    """The earlier run's parity seconds of the same command (0: this run took CI's)."""
    if actual.parity_s is None:
        return 0.0
    if earlier is None or earlier.parity_command != actual.parity_command:
        return None
    return earlier.parity_s


def _phase_detail(p: PhaseTime) -> str:
    families = ", ".join(f"{f.family} {f.cases} case(s) x {f.runs} count(s)" for f in p.families)
    return families or "measured before the wall clock"


def views(actual: Timeline | None, earlier: Timeline | None, min_samples: int) -> list[PhaseRow]:
    """The table's rows (empty: the run recorded no timeline), then a total row."""
    if actual is None:
        return []
    rows = [
        PhaseRow(
            "set-up",
            "exports, machine checks",
            earlier.setup_s if earlier is not None else None,
            actual.setup_s,
        ),
        PhaseRow(
            "parity",
            actual.parity_command if actual.parity_s is not None else "from CI",
            _planned_parity(actual, earlier),
            actual.parity_s or 0.0,
        ),
    ]
    rows += [
        PhaseRow(p.instrument, _phase_detail(p), _planned_phase(p, earlier), p.seconds)
        for p in actual.phases
    ]
    planned_parts = _split(earlier, min_samples) if earlier is not None else {}
    for part, rounds in _split(actual, min_samples).items():
        before = planned_parts.get(part)
        planned = _rounds_s(before) if before is not None else None
        if rounds or before:
            rows.append(
                PhaseRow(f"wall: {part}", f"{len(rounds)} round(s)", planned, _rounds_s(rounds))
            )
    planned_all = [r.planned_s for r in rows]
    total = None if any(p is None for p in planned_all) else sum(p or 0.0 for p in planned_all)
    rows.append(PhaseRow("total", "", total, sum(r.actual_s for r in rows)))
    return rows
