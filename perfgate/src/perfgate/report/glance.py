"""The first screen of a report (pure): what blocked, what the run could see, what changed.

A reader of a gate report asks three things, in this order, before any table: did anything
block the merge (and what), could this run have seen a slowdown at all (one line: how many
cases were checked and how many could only have caught a large one), and did anything change
notably (improvements, and regressions in families that do not block). The reasons why
passing cases passed (a CI that straddles the threshold, reported only) come after.
Everything here is computed from the decided verdicts and rows; nothing is decided here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfgate.config import GateConfig
from perfgate.model import CaseComparison, GateDecision, VariantComparison
from perfgate.verdict import CaseVerdict, GateVerdict
from perfgate.wall import visibility

#: Verdicts of rows measured on both sides (what a slowdown could have been seen in).
_COMPARED = frozenset(
    {CaseVerdict.REGRESSED, CaseVerdict.IMPROVED, CaseVerdict.UNCHANGED, CaseVerdict.INCONCLUSIVE}
)


@dataclass(frozen=True)
class Change:
    """A notable change: which comparison, the case, its ratio and CI, blocking or not."""

    what: str
    row: CaseComparison


@dataclass(frozen=True)
class Glance:
    """The answers of a report's first screen."""

    blocked: tuple[str, ...]
    passed_notes: tuple[str, ...]
    measured: bool
    checked: int
    blind: tuple[float | None, ...]
    seen: tuple[float, ...]
    changes: tuple[Change, ...]
    #: the sim instrument's compared cases: what each would have caught
    counted: tuple[float, ...] = ()
    #: wall-clock cases seen by the wall clock whose work a sim case also compared
    covered: int = 0
    #: sim cases decided on instructions (their simulated misses follow the memory layout)
    by_instructions: int = 0

    @property
    def seen_line(self) -> str:
        """One line: the cases checked and what the blind ones could only have caught (the
        simulator's cases, and the wall clock's, each said for itself)."""
        if not self.measured:
            return "nothing was measured"
        if not self.checked:
            return "no blocking case was compared: this run could not have seen a slowdown"
        text = f"{self.checked} blocking case(s) checked"
        if self.counted:
            text += (
                f"; {len(self.counted)} counted by the simulator would have caught a slowdown "
                f"≥ {_pct(max(self.counted))} of their single-thread work"
            )
            if self.by_instructions:
                text += (
                    f" ({self.by_instructions} in instructions: their simulated misses "
                    "followed the memory layout)"
                )
        sizes = [b for b in self.blind if b is not None]
        timed = self.checked - len(self.counted)
        if sizes:
            low, high = min(sizes), max(sizes)
            spread = f" (up to {_pct(high)})" if high > low + 0.0005 else ""
            text += f"; {len(sizes)} could only have caught a slowdown ≥ {_pct(low)}{spread}"
        no_ci = len(self.blind) - len(sizes)
        if no_ci:
            text += f"; {no_ci} had no confidence interval (could not have caught any)"
        if self.seen and not self.counted:
            who = "every one" if not self.blind else f"the other {self.checked - len(self.blind)}"
            text += f"; {who} would have caught a slowdown ≥ {_pct(max(self.seen))}"
        elif self.seen:
            text += f"; the wall clock's {timed - len(self.blind)} timed case(s) "
            text += f"would have caught a slowdown ≥ {_pct(max(self.seen))}"
        if self.covered:
            text += f" ({self.covered} of them also counted by the simulator)"
        return text


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%" if value >= 0.095 else f"{100 * value:.1f}%"


def glance(
    decision: GateDecision,
    rows: Sequence[CaseComparison],
    variants: Sequence[VariantComparison],
    config: GateConfig,
) -> Glance:
    """The first screen of a report on ``decision`` (rows and variants as decided)."""
    blocking = tuple(str(f) for f in decision.findings if f.verdict is not GateVerdict.PASS)
    passing = tuple(f.text for f in decision.findings if f.verdict is GateVerdict.PASS)
    seen = [v for v in visibility.visibility(rows, config) if v.row.verdict in _COMPARED]
    timed = [v for v in seen if v.row.instrument != "sim"]
    counted = [v.detectable for v in seen if v.row.instrument == "sim"]
    return Glance(
        blocked=blocking,
        passed_notes=passing,
        measured=bool(rows or variants),
        checked=len(seen),
        blind=tuple(v.detectable for v in timed if v.blind),
        seen=tuple(v.detectable for v in timed if not v.blind and v.detectable is not None),
        changes=tuple(_changes(rows, variants)),
        counted=tuple(d for d in counted if d is not None),
        covered=sum(1 for v in timed if v.covered_by is not None and not v.blind),
        by_instructions=sum(1 for v in seen if v.row.figure == "instructions"),
    )


def _changes(
    rows: Sequence[CaseComparison], variants: Sequence[VariantComparison]
) -> list[Change]:
    """Improvements (head vs base, variant vs baseline) and regressions that do not block."""
    out = []
    for row in rows:
        if row.verdict is CaseVerdict.IMPROVED or (
            row.verdict is CaseVerdict.REGRESSED and not row.blocking
        ):
            out.append(Change("head vs base", row))
    for v in variants:
        for row in v.rows:
            what = v.pair.label if row is v.row else f"{v.pair.label}, change from base"
            if row.verdict is CaseVerdict.IMPROVED:
                out.append(Change(what, row))
    return out
