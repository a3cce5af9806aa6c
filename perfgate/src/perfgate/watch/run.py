"""One watch run, without the I/O: series and stored state in; changes, snapshots, actions out.

For each series: `detect` with the case's threshold (the gate's per-benchmark rule,
`case_threshold`; the sim family's counts are deterministic and read as such) and
`[tool.perfgate]`'s ``watch_alpha`` / ``watch_min_segment``,
then `state.reconcile` against what earlier runs recorded. Asked to, the regressions are then
re-measured and bisected (`confirm.follow_up`). The alerts (`issues.Alerter`) then act on the
current state of every change of the watched series. What the probes and the alerts did is
recorded as one more snapshot per change and run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from perfgate.config import GateConfig
from perfgate.watch.alerts.issues import Action, Alerter
from perfgate.watch.changes.detect import detect
from perfgate.watch.changes.series import Series
from perfgate.watch.confirm import FollowUp, follow_up
from perfgate.watch.probes.prober import ProbeCase
from perfgate.watch.recheck import recheck
from perfgate.watch.records.state import WatchedChange, latest, reconcile

Case = tuple[str, tuple[str, ...], str]


@dataclass(frozen=True)
class Analysis:
    """The changes of the watched series after this run, and the snapshots it adds."""

    changes: tuple[WatchedChange, ...]  # current state, in case then commit order
    snapshots: tuple[WatchedChange, ...]
    series: dict[Case, Series]


def analyse(
    all_series: Sequence[Series], config: GateConfig, stored: Sequence[WatchedChange]
) -> Analysis:
    """Detect and reconcile every series against the ``stored`` snapshots."""
    current = latest(stored)
    snapshots: list[WatchedChange] = []
    by_case: dict[Case, Series] = {}
    for series in all_series:
        by_case[(series.benchmark, series.params, series.machine)] = series
        sim = config.is_sim(series.benchmark)
        threshold = case_threshold(config, series.benchmark)
        found = detect(
            series,
            threshold,
            config.watch_alpha,
            min_segment=config.watch_min_segment,
            deterministic=sim,
        )
        for snap in reconcile(current, series, found, threshold):
            snapshots.append(snap)
            current[snap.change_id] = snap
    positions = {(case, p.commit): p.position for case, s in by_case.items() for p in s.points}
    watched = [c for c in current.values() if c.case in by_case]
    watched.sort(key=lambda c: (c.case, positions.get((c.case, c.commit), -1), c.change_id))
    return Analysis(tuple(watched), tuple(snapshots), by_case)


def case_threshold(config: GateConfig, benchmark: str) -> float:
    """The gate's threshold of a case: the sim family's for its counts, else the rule of
    ``thresholds``."""
    if config.is_sim(benchmark):
        return config.sim_threshold_for(benchmark)
    return config.threshold_for(benchmark)


def follow_up_all(
    analysis: Analysis,
    plan: FollowUp,
    case_of: Callable[[WatchedChange], ProbeCase | None],
) -> Analysis:
    """Re-measure (and bisect) every change that needs it, then re-measure each open
    regression at a tip its probes have not covered, in the same run (`perfgate.watch.recheck`:
    a recovery); the analysis with the results (one snapshot per change).

    ``case_of(change)`` names the case to measure (None: it cannot be selected, skipped).
    """
    made = {s.change_id: s for s in analysis.snapshots}
    changes = []
    for change in analysis.changes:
        case = case_of(change)
        snap = None
        if case is not None:
            snap = follow_up(change, case, plan, regime_end(change, analysis))
            again = recheck(snap or change, case, plan, tip_of(change, analysis))
            snap = replace(again, sequence=change.sequence + 1) if again is not None else snap
        changes.append(_merge(made, change, snap))
    return Analysis(tuple(changes), tuple(made.values()), analysis.series)


def tip_of(change: WatchedChange, analysis: Analysis) -> str | None:
    """The newest measured commit of ``change``'s series (None: no series)."""
    series = analysis.series.get(change.case)
    return series.points[-1].commit if series is not None and series.points else None


def regime_end(change: WatchedChange, analysis: Analysis) -> str | None:
    """The last measured commit of the regime ``change`` starts: the one before the first
    bad commit of the case's next change, else the series' newest (None: not in a series)."""
    series = analysis.series.get(change.case)
    commits = [p.commit for p in series.points] if series is not None else []
    if change.commit not in commits:
        return None
    start = commits.index(change.commit)
    later = [
        commits.index(c.commit)
        for c in analysis.changes
        if c.case == change.case and c.commit in commits and commits.index(c.commit) > start
    ]
    return commits[min(later, default=len(commits)) - 1]


def alert(
    analysis: Analysis,
    alerter: Alerter,
    alert_suspected: bool,
    unit_of: Callable[[str], str] = lambda _: "",
) -> tuple[list[tuple[WatchedChange, Action]], Analysis]:
    """Sync every change's issue; the actions and the analysis with their snapshots merged."""
    actions = []
    made = {s.change_id: s for s in analysis.snapshots}
    changes = []
    for change in analysis.changes:
        series = analysis.series[change.case]
        action, snap = alerter.sync(change, series, alert_suspected, unit_of(change.benchmark))
        actions.append((change, action))
        changes.append(_merge(made, change, snap))
    return actions, Analysis(tuple(changes), tuple(made.values()), analysis.series)


def _merge(
    made: dict[str, WatchedChange], change: WatchedChange, snap: WatchedChange | None
) -> WatchedChange:
    """Record ``snap`` (the next snapshot of ``change``) in ``made``; the change's current
    state. One snapshot per change and run: a change that already has one this run keeps
    its sequence number."""
    if snap is None:
        return change
    if change.change_id in made:
        snap = replace(snap, sequence=made[change.change_id].sequence)
    made[change.change_id] = snap
    return snap
