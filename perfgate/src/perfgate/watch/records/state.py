"""What the watch remembers between runs: each change it found, how far it got, its issue.

A `WatchedChange` is one snapshot of one change; every update is a new snapshot with the next
`sequence` (the store is append-only, `watch.records.state_file`), and the current state of
a change is its latest snapshot. Pure: the detector's change points and the stored snapshots in,
the snapshots to record out.

Statuses move forward only (`advance`): suspected -> confirmed -> bisected, and any of them ->
recovered; suspected -> not-confirmed when the A/B re-measurement finds no change (final: the
history's suspicion is dropped). The re-measurement (`perfgate.watch.confirm`) advances a
change to confirmed, and a bisection to bisected with the culprit; a bisection that stops
early records its narrowed range (``narrowed_good`` .. ``narrowed_bad``) and its probes, so
a later run continues from there. The alerts follow the status.

A change found again on a later run is the same change when it is on the same case and
machine, goes the same way, and its commit range (last good .. first bad) overlaps the stored
one: catch-up runs that measure commits inside the range narrow it, they do not make a new
change. A regression is recovered by a later improvement of the same case that brings the
case back to within its threshold of the level before the regression.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfgate.errors import UserError
from perfgate.watch.changes.detect import ChangePoint, ChangeStatus, Direction, Evidence
from perfgate.watch.changes.series import Series
from perfgate.watch.probes.prober import Probe

#: Where each status may go next.
TRANSITIONS: Mapping[ChangeStatus, frozenset[ChangeStatus]] = {
    ChangeStatus.SUSPECTED: frozenset(
        {
            ChangeStatus.CONFIRMED,
            ChangeStatus.BISECTED,
            ChangeStatus.RECOVERED,
            ChangeStatus.NOT_CONFIRMED,
        }
    ),
    ChangeStatus.CONFIRMED: frozenset({ChangeStatus.BISECTED, ChangeStatus.RECOVERED}),
    ChangeStatus.BISECTED: frozenset({ChangeStatus.RECOVERED}),
    ChangeStatus.RECOVERED: frozenset(),
    ChangeStatus.NOT_CONFIRMED: frozenset(),
}


class TransitionError(UserError):
    """A status change the lifecycle does not allow (e.g. recovered -> suspected)."""


@dataclass(frozen=True)
class WatchedChange:
    """One snapshot of a change of one case on one machine (see the module docstring).

    ``commit`` is the first bad measured commit, ``last_good_commit`` the measured one before
    it; ``culprit`` the commit a bisection named; ``issue`` the GitHub issue alerting it and
    ``issue_closed`` whether the watch closed it; ``recovered_by`` the first commit of the
    change that recovered it. ``culprit_pr`` is the pull request the culprit came from;
    ``narrowed_good`` .. ``narrowed_bad`` the range a bisection has narrowed the change to so
    far, and ``probes`` every A/B re-measurement made for it, oldest first;
    ``checked_through`` the newest measured commit its probes have covered (a newer one is
    re-measured for a recovery, `perfgate.watch.recheck`).
    """

    change_id: str
    sequence: int
    benchmark: str
    params: tuple[str, ...]
    machine: str
    last_good_commit: str
    commit: str
    ratio: float
    direction: Direction
    status: ChangeStatus
    evidence: Evidence
    p_value: float
    before: float
    after: float
    culprit: str | None = None
    issue: int | None = None
    issue_closed: bool = False
    recovered_by: str | None = None
    culprit_pr: int | None = None
    narrowed_good: str | None = None
    narrowed_bad: str | None = None
    checked_through: str | None = None
    probes: tuple[Probe, ...] = ()

    @property
    def case(self) -> tuple[str, tuple[str, ...], str]:
        """(benchmark, params, machine): the series this change belongs to."""
        return (self.benchmark, self.params, self.machine)

    @property
    def label(self) -> str:
        """``bench(p1, p2) on machine``, as `Series.label`."""
        return f"{self.benchmark}({', '.join(self.params)}) on {self.machine}"

    def updated(self, **fields: Any) -> WatchedChange:
        """The next snapshot: ``fields`` replaced, ``sequence`` one higher."""
        return dataclasses.replace(self, sequence=self.sequence + 1, **fields)


def advance(change: WatchedChange, status: ChangeStatus, **fields: Any) -> WatchedChange:
    """The next snapshot of ``change`` at ``status`` (and ``fields``), if the lifecycle allows."""
    if status not in TRANSITIONS[change.status]:
        raise TransitionError(
            f"{change.label}, change {change.change_id}: cannot go from "
            f"{change.status.value} to {status.value}"
        )
    return change.updated(status=status, **fields)


def change_id(series: Series, change: ChangePoint) -> str:
    """A stable name for a newly found change: its case, machine, range and direction."""
    text = "\0".join(
        (
            series.benchmark,
            *series.params,
            series.machine,
            change.last_good_commit,
            change.first_bad_commit,
            change.direction.value,
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def new_change(series: Series, change: ChangePoint) -> WatchedChange:
    """The first snapshot of a change the detector found."""
    return WatchedChange(
        change_id=change_id(series, change),
        sequence=1,
        benchmark=series.benchmark,
        params=series.params,
        machine=series.machine,
        last_good_commit=change.last_good_commit,
        commit=change.first_bad_commit,
        ratio=change.ratio,
        direction=change.direction,
        status=change.status,
        evidence=change.evidence,
        p_value=change.p_value,
        before=change.before,
        after=change.after,
    )


def latest(snapshots: Iterable[WatchedChange]) -> dict[str, WatchedChange]:
    """change_id -> its latest snapshot (highest sequence; ties, e.g. two machines writing
    at once, go to the larger ratio, then the later status, so every reader agrees)."""
    order = list(ChangeStatus)
    current: dict[str, WatchedChange] = {}
    for snap in snapshots:
        held = current.get(snap.change_id)
        rank = (snap.sequence, order.index(snap.status), snap.ratio)
        if held is None or rank > (held.sequence, order.index(held.status), held.ratio):
            current[snap.change_id] = snap
    return current


def reconcile(
    current: Mapping[str, WatchedChange],
    series: Series,
    found: Sequence[ChangePoint],
    threshold: float,
) -> list[WatchedChange]:
    """The snapshots to record after ``found`` (this run's change points of ``series``).

    New changes get a first snapshot; a stored change found again with a different range or
    size gets an updated one; an open regression that a later improvement undid is advanced
    to recovered. Unchanged changes record nothing.
    """
    positions = {p.commit: p.position for p in series.points}
    key = (series.benchmark, series.params, series.machine)
    mine = [c for c in current.values() if c.case == key]
    out: list[WatchedChange] = []
    for change in found:
        held = _same_change(mine, change, positions)
        if held is None:
            out.append(new_change(series, change))
            continue
        fresh = _refreshed(held, change)
        if fresh is not None:
            out.append(fresh)
    updated = {c.change_id: c for c in [*mine, *out]}
    out_ids = {c.change_id for c in out}
    for regression in updated.values():
        recovery = _recovery(regression, found, series, threshold)
        if recovery is not None:
            snap = advance(regression, ChangeStatus.RECOVERED, recovered_by=recovery)
            if regression.change_id in out_ids:  # one snapshot per change and run
                out = [c for c in out if c.change_id != regression.change_id]
                snap = dataclasses.replace(snap, sequence=regression.sequence)
            out.append(snap)
    return out


def _overlaps(held: WatchedChange, change: ChangePoint, positions: Mapping[str, int]) -> bool:
    """Whether the commit ranges (last good .. first bad) of the two overlap."""
    try:
        old = (positions[held.last_good_commit], positions[held.commit])
    except KeyError:  # a commit no longer measured or no longer in the history
        return held.commit == change.first_bad_commit
    new = (positions[change.last_good_commit], positions[change.first_bad_commit])
    return old[0] < new[1] and new[0] < old[1]


def _same_change(
    mine: list[WatchedChange], change: ChangePoint, positions: Mapping[str, int]
) -> WatchedChange | None:
    for held in mine:
        if held.direction is change.direction and _overlaps(held, change, positions):
            return held
    return None


def _refreshed(held: WatchedChange, change: ChangePoint) -> WatchedChange | None:
    """``held`` with this run's range and figures, or None when nothing that names it moved."""
    if (held.last_good_commit, held.commit) == (change.last_good_commit, change.first_bad_commit):
        return None
    return held.updated(
        last_good_commit=change.last_good_commit,
        commit=change.first_bad_commit,
        ratio=change.ratio,
        evidence=change.evidence,
        p_value=change.p_value,
        before=change.before,
        after=change.after,
    )


#: Regressions that no later improvement can recover: recovered already, or never confirmed.
_SETTLED = frozenset({ChangeStatus.RECOVERED, ChangeStatus.NOT_CONFIRMED})


def _recovery(
    regression: WatchedChange,
    found: Sequence[ChangePoint],
    series: Series,
    threshold: float,
) -> str | None:
    """The first commit of a later improvement that undoes ``regression``, if one was found.

    Undoes: the level after the improvement is within ``threshold`` of the level before the
    regression (worse-is->1 ratio <= 1 + threshold, in the case's direction).
    """
    positions = {p.commit: p.position for p in series.points}
    if regression.direction is not Direction.REGRESSION:
        return None
    if regression.status in _SETTLED or regression.commit not in positions:
        return None
    for change in found:
        if change.direction is not Direction.IMPROVEMENT:
            continue
        if positions[change.first_bad_commit] <= positions[regression.commit]:
            continue
        if series.higher_is_better:
            worse = regression.before / change.after
        else:
            worse = change.after / regression.before
        if worse <= 1.0 + threshold:
            return change.first_bad_commit
    return None
