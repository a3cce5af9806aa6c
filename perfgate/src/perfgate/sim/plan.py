"""The sim phase's plan (pure): the cases it will count, how often per side, how long.

The sim phase (`perfgate.sim.phase`) prepares both sides, then counts the base, the head
and, unless a calibrated check covers every case counted, the base again: the scaling
family always (calibrate checks none of its cases). One count of a case gives several
figures (cycles, instructions, misses; E(T), serial share...): the plan lists a case once,
by its decisive figure (`perfgate.sim.phase.counted_case`). A count's seconds come from the
newest earlier run's timeline (the phase's seconds per family, shared by its counts, so the
preparing runs and the concurrency of the three runs are in them), else the documented
default of its family (:data:`DEFAULT_COUNT_S`). The gate's budget does not hold the sim
phase: its minutes come on top (``docs/gate.md``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from perfgate.formats.timeline import Timeline
from perfgate.model import CaseKey, natural_key
from perfgate.sim.phase import counted_case, family

#: Seconds of one case's count in the sim phase (its share of the phase's wall seconds,
#: the preparing runs included) when no earlier run recorded its family, on the 2-core
#: reference VM, rounded up: the single-thread family 202-207 s for 36 cases counted twice
#: (docs/sim.md, "The full grid, measured"), the scaling family 390-400 s for its 24 cases
#: counted three times (issue 48's trials).
DEFAULT_COUNT_S: tuple[tuple[str, float], ...] = (("sim_hot_slice", 3.0), ("sim_scaling", 5.6))
#: Seconds of one count of a family :data:`DEFAULT_COUNT_S` does not name.
FALLBACK_COUNT_S = 5.6
#: Counts per side: the base twice (the second with its memory layout shifted), the head once.
COUNTS = (("base", 2), ("head", 1))


def default_count_s(name: str) -> float:
    """The documented seconds of one count of a case of family ``name``."""
    return dict(DEFAULT_COUNT_S).get(name, FALLBACK_COUNT_S)


@dataclass(frozen=True)
class SimCasePlan:
    """One counted case: its family, its thread count (scaling family), its counts per side
    and the seconds of one count."""

    key: CaseKey
    family: str
    threads: int | None
    count_s: float

    @property
    def seconds(self) -> float:
        """Seconds of all its counts."""
        return self.count_s * sum(n for _side, n in COUNTS)


@dataclass(frozen=True)
class FamilyPlan:
    """One family's planned counts: its cases, their thread counts, their seconds."""

    family: str
    cases: int
    threads: tuple[int, ...]
    seconds: float


@dataclass(frozen=True)
class SimPlan:
    """The sim phase's planned counts and what their seconds rest on."""

    cases: tuple[SimCasePlan, ...]
    basis: str

    @property
    def expected_s(self) -> float:
        """Expected seconds of the phase, the base counted twice: as the run counts it
        without calibrated checks (no ``--floors-ref``) or with a scaling case selected;
        a run whose checks cover every case counted spares the second count."""
        return sum(c.seconds for c in self.cases)

    def families(self) -> tuple[FamilyPlan, ...]:
        """Per family: its cases, the thread counts among them and its expected seconds."""
        out = []
        for name in sorted({c.family for c in self.cases}):
            mine = [c for c in self.cases if c.family == name]
            threads = tuple(sorted({c.threads for c in mine if c.threads is not None}))
            out.append(FamilyPlan(name, len(mine), threads, sum(c.seconds for c in mine)))
        return tuple(out)

    def to_json(self) -> dict[str, object]:
        """The phase as ``--plan --json`` prints it."""
        return {
            "basis": self.basis,
            "expected_minutes": round(self.expected_s / 60.0, 2),
            "counts": dict(COUNTS),
            "families": {
                f.family: {
                    "cases": f.cases,
                    "threads": list(f.threads),
                    "minutes": round(f.seconds / 60.0, 2),
                }
                for f in self.families()
            },
            "cases": [
                {
                    "case": c.key.label(),
                    "family": c.family,
                    "threads": c.threads,
                    "counts": dict(COUNTS),
                    "count_s": round(c.count_s, 3),
                }
                for c in self.cases
            ],
        }


def threads_of(key: CaseKey) -> int | None:
    """The case's ``threads`` parameter (None: a single-thread family's case)."""
    value = key.param("threads")
    return int(value) if value is not None and value.isdigit() else None


def plan_sim(keys: Iterable[CaseKey], earlier: Timeline | None) -> SimPlan:
    """The counts of ``keys`` (the sim selection's discovered cases), each at the seconds
    of one count of its family in ``earlier`` (the newest earlier run's timeline), else its
    family's documented default."""
    phase = earlier.phase("sim") if earlier is not None else None
    measured = {f.family: f.per_count_s for f in phase.families} if phase is not None else {}
    counted = sorted((k for k in keys if counted_case(k)), key=natural_key)
    cases = []
    for key in counted:
        name = family(key.benchmark)
        seconds = measured.get(name)
        cost = seconds if seconds is not None else default_count_s(name)
        cases.append(SimCasePlan(key, name, threads_of(key), cost))
    from_run = sorted({c.family for c in cases if measured.get(c.family) is not None})
    defaults = sorted({c.family for c in cases} - set(from_run))
    parts = []
    if from_run:
        parts.append(f"the sim phase of the earlier run for {', '.join(from_run)}")
    if defaults:
        parts.append(f"documented defaults for {', '.join(defaults)}")
    basis = "; ".join(parts) or "no sim case selected"
    return SimPlan(tuple(cases), basis)
