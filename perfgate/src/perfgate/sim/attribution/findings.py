"""Where each sim case the gate found beyond its threshold moved (pure).

For every sim row the comparison decided REGRESSED or IMPROVED (its figure moved beyond the
threshold, whether or not the family blocks), the two sides' kept functions tables of the
case (`sides.KeptSide`) are diffed on the figure that decided the row (`diff.attribute`,
largest first, within the sim ``tolerance`` of the base's total), and the code of every
Numba kernel the case ran is compared (`code.compare`). A case whose tables are missing on
a side has state `State.MISSING` and says why; it never reads as "nothing moved". An A/A
run has no row beyond its threshold, so its list is empty; a case whose functions all
stayed within the tolerance is `State.NOTHING_MOVED`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from perfgate.model import CaseComparison, CaseKey
from perfgate.sim.attribution import code, diff, flame, keep
from perfgate.sim.attribution.code import CodeChange
from perfgate.sim.attribution.sides import KeptSide
from perfgate.sim.attribution.table import FIGURES, FunctionsTable
from perfgate.verdict import CaseVerdict

#: the name of the sim findings' table of `CaseAttribution` (`perfgate.instrument.Findings`)
ATTRIBUTION = "sim_attribution"
#: the verdicts of a case beyond its threshold
BEYOND = (CaseVerdict.REGRESSED, CaseVerdict.IMPROVED)


class State(enum.Enum):
    """What the attribution of one case found."""

    #: functions moved beyond the tolerance; the first is the largest
    NAMED = "named"
    #: both tables read, no function moved beyond the tolerance
    NOTHING_MOVED = "nothing moved"
    #: a side kept no table of the case (``missing`` says which and why)
    MISSING = "missing"


@dataclass(frozen=True)
class CaseAttribution:
    """One case beyond its threshold: its row's key and verdict, the state, the diff of the
    two sides' functions and the compiled kernels it ran, compared."""

    key: CaseKey
    verdict: CaseVerdict
    blocking: bool
    state: State
    attribution: diff.Attribution | None = None
    code: tuple[CodeChange, ...] = ()
    missing: str = ""
    #: the differential flame graph of the deciding figure (SVG text; empty: no tables)
    flame: str = ""
    #: (file name, unified diff) of the assembly and IR of each kernel whose code differs
    diffs: tuple[tuple[str, str], ...] = ()
    #: the wall-clock case this sim case's counts explain (its regression, at one thread),
    #: where the sim row itself stayed within its threshold; None: the sim row's own
    twin_of: CaseKey | None = None

    @property
    def first(self) -> diff.Charge | None:
        """Who is responsible for the largest change: a kernel (with what its code called) or
        a function outside the kernels (None: none moved, or no tables)."""
        charges = self.attribution.charges if self.attribution else ()
        return charges[0] if charges else None

    @property
    def changed_code(self) -> tuple[CodeChange, ...]:
        """The kernels whose machine code differs between the sides."""
        return tuple(c for c in self.code if c.changed)


def family_of(key: CaseKey) -> str:
    """The family folder of a sim row's key (its benchmark name without the figure)."""
    return key.benchmark.rsplit(".", 1)[0]


def slug_of(key: CaseKey) -> str:
    """The kept folder name of a row's case (`keep.case_slug` of its parameter values, as
    asv's results name them: strings unquoted, numbers as written)."""
    return keep.case_slug(tuple(value for _name, value in key.params))


def _table(side: KeptSide, key: CaseKey) -> FunctionsTable | None:
    return side.tables.get(family_of(key), {}).get(slug_of(key))


def _missing(which: Iterable[str], side_problems: Mapping[str, tuple[str, ...]]) -> str:
    parts = []
    for name in which:
        why = "; ".join(side_problems[name][:2])
        parts.append(f"no functions table kept at {name}" + (f" ({why})" if why else ""))
    return ", ".join(parts)


def _kernels(
    side: KeptSide, other: KeptSide, key: CaseKey, ran: frozenset[str]
) -> tuple[tuple[CodeChange, ...], tuple[tuple[str, str], ...]]:
    """The code of each kernel the case ran (``ran``: its tables' kernel labels), both sides,
    and the diffs of those whose code differs (`code.compare_all`)."""
    family = family_of(key)
    names = {label.split(" (")[0] for label in ran}
    return code.compare_all(side.code.get(family, {}), other.code.get(family, {}), names)


def attribute_row(
    row: CaseComparison, base: KeptSide, head: KeptSide, tolerance: float
) -> CaseAttribution:
    """The attribution of one row beyond its threshold (see the module)."""
    tables = {"base": _table(base, row.key), "head": _table(head, row.key)}
    absent = [name for name, t in tables.items() if t is None]
    if absent:
        problems = {"base": base.problems, "head": head.problems}
        return CaseAttribution(
            row.key, row.verdict, row.blocking, State.MISSING, missing=_missing(absent, problems)
        )
    a, b = tables["base"], tables["head"]
    assert a is not None and b is not None
    figure = row.figure if row.figure in FIGURES else "cycles"
    try:
        found = diff.attribute(a, b, figure, tolerance)
    except ValueError as exc:  # tables of different events: not comparable, never "nothing"
        return CaseAttribution(row.key, row.verdict, row.blocking, State.MISSING, missing=str(exc))
    state = State.NAMED if found.moved else State.NOTHING_MOVED
    changes, diffs = _kernels(base, head, row.key, a.kernels | b.kernels)
    svg = flame.render(a, b, figure, tolerance)
    return CaseAttribution(
        row.key, row.verdict, row.blocking, state, found, changes, flame=svg, diffs=diffs
    )


def attribute_rows(
    rows: Iterable[CaseComparison], base: KeptSide, head: KeptSide, tolerance: float
) -> list[CaseAttribution]:
    """Every sim row beyond its threshold attributed, blocking regressions first."""
    beyond = [r for r in rows if r.instrument == "sim" and r.verdict in BEYOND]
    beyond.sort(key=lambda r: (r.verdict is not CaseVerdict.REGRESSED, not r.blocking))
    return [attribute_row(r, base, head, tolerance) for r in beyond]


def attribute_twins(
    pairs: Iterable[tuple[CaseComparison | None, CaseComparison | None]],
    base: KeptSide,
    head: KeptSide,
    tolerance: float,
) -> list[CaseAttribution]:
    """Each wall-clock regression whose sim twin (``pairs``: (wall, sim) rows,
    `perfgate.twins.side_by_side`) the run counted but did not find beyond its threshold:
    where the twin's counts moved, marked as the wall case's (`CaseAttribution.twin_of`),
    with the wall row's verdict and blocking. A twin beyond its threshold is attributed
    already, as itself."""
    out = []
    for wall, sim in pairs:
        if wall is None or sim is None or wall.verdict is not CaseVerdict.REGRESSED:
            continue
        if sim.verdict in BEYOND:
            continue
        found = attribute_row(sim, base, head, tolerance)
        out.append(replace(found, verdict=wall.verdict, blocking=wall.blocking, twin_of=wall.key))
    return out
