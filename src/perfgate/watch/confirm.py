"""Confirmation and bisection of one suspected regression by measurement (pure over a prober).

A change the history suspects (last good measured commit A, first bad measured commit B) is
re-measured: B against A, paired and interleaved (`perfgate.watch.prober`). Stably worse ->
confirmed; not worse -> not-confirmed (the history's suspicion is dropped, never alerted);
unknown -> it stays suspected and the probe is recorded (a later run tries again). When
B is A's next first-parent commit, a confirmed change is bisected at once: B is the culprit.
Otherwise, asked to, the range is bisected (`perfgate.watch.bisect`) from where earlier runs
left it (``narrowed_good`` .. ``narrowed_bad``), and a culprit found names its pull request.

Only regressions are probed (improvements are recorded, not alerted), and only those of the
machine the prober runs on: a measurement on another machine says nothing about this one.
Each change gets at most one new snapshot per run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perfgate.watch.bisect import Budget, narrow
from perfgate.watch.detect import ChangeStatus, Direction
from perfgate.watch.prober import Probe, ProbeCase, Prober, ProbeVerdict
from perfgate.watch.pulls import pull_request_number
from perfgate.watch.state import WatchedChange, advance


@dataclass(frozen=True)
class FollowUp:
    """How far to follow changes up in this run, and with what.

    ``history`` is the first-parent history of the watched ref, oldest first;
    ``subject_of(sha)`` a commit's subject line (for its pull request number).
    """

    prober: Prober
    budget: Budget
    history: Sequence[str]
    bisect: bool = True
    subject_of: Callable[[str], str] = lambda _sha: ""


def wants_probe(change: WatchedChange, machine: str, bisect: bool) -> bool:
    """Whether ``change`` has a measurement to do on ``machine`` in this run."""
    if change.direction is not Direction.REGRESSION or change.machine != machine:
        return False
    if change.status is ChangeStatus.SUSPECTED:
        return True
    return bisect and change.status is ChangeStatus.CONFIRMED


def follow_up(change: WatchedChange, case: ProbeCase, plan: FollowUp) -> WatchedChange | None:
    """The next snapshot of ``change`` after this run's probes, or None when none ran."""
    prober = plan.prober
    if not wants_probe(change, prober.machine, plan.bisect):
        return None
    current, steps = change, 0
    if change.status is ChangeStatus.SUSPECTED:
        if not plan.budget.allows(0):
            return None
        probe = prober.measure(
            case, change.machine, change.last_good_commit, change.commit, plan.budget.remaining()
        )
        current, steps = _confirmed(change, probe, plan), 1
    if current.status is ChangeStatus.CONFIRMED and plan.bisect:
        current = _bisected(current, case, plan, steps)
    if current is change:
        return None
    return dataclasses.replace(current, sequence=change.sequence + 1)


def _confirmed(change: WatchedChange, probe: Probe, plan: FollowUp) -> WatchedChange:
    """``change`` after the A/B of its range: confirmed (or bisected), not confirmed, or as it
    was with the probe recorded."""
    probes = (*change.probes, probe)
    if probe.verdict is ProbeVerdict.NOT_WORSE:
        return advance(change, ChangeStatus.NOT_CONFIRMED, probes=probes)
    if probe.verdict is ProbeVerdict.UNKNOWN:
        return change.updated(probes=probes)
    good, bad = change.last_good_commit, change.commit
    if _span(plan.history, good, bad) == 1:
        return advance(
            change,
            ChangeStatus.BISECTED,
            probes=probes,
            culprit=bad,
            culprit_pr=pull_request_number(plan.subject_of(bad)),
            narrowed_good=good,
            narrowed_bad=bad,
        )
    return advance(
        change, ChangeStatus.CONFIRMED, probes=probes, narrowed_good=good, narrowed_bad=bad
    )


def _bisected(change: WatchedChange, case: ProbeCase, plan: FollowUp, steps: int) -> WatchedChange:
    """``change`` (confirmed) bisected as far as this run's budget and probes allow."""
    good, bad = resume_range(change, plan.history)
    if _span(plan.history, good, bad) < 1:
        return change

    def probe(reference: str, sha: str, seconds: float) -> Probe:
        return plan.prober.measure(case, change.machine, reference, sha, seconds)

    done = narrow(
        plan.history, change.last_good_commit, good, bad, probe, plan.budget, steps_taken=steps
    )
    probes = (*change.probes, *done.probes)
    if done.culprit is not None:
        return advance(
            change,
            ChangeStatus.BISECTED,
            probes=probes,
            culprit=done.culprit,
            culprit_pr=pull_request_number(plan.subject_of(done.culprit)),
            narrowed_good=done.good,
            narrowed_bad=done.bad,
        )
    if not done.probes:
        return change
    return change.updated(probes=probes, narrowed_good=done.good, narrowed_bad=done.bad)


def resume_range(change: WatchedChange, history: Sequence[str]) -> tuple[str, str]:
    """Where bisection goes on: the range narrowed so far, kept inside the change's range
    (a catch-up run may have moved the change's measured commits since)."""
    position = {sha: i for i, sha in enumerate(history)}
    good, bad = change.last_good_commit, change.commit
    narrowed_good, narrowed_bad = change.narrowed_good, change.narrowed_bad
    if narrowed_good is not None and position.get(narrowed_good, -1) > position.get(good, -1):
        good = narrowed_good
    if narrowed_bad is not None and -1 < position.get(narrowed_bad, -1) < position.get(bad, -1):
        bad = narrowed_bad
    if position.get(good, -1) >= position.get(bad, -1):  # inconsistent: start over
        return change.last_good_commit, change.commit
    return good, bad


def _span(history: Sequence[str], good: str, bad: str) -> int:
    """Commits after ``good`` up to ``bad`` (0 when either is not in the history)."""
    position = {sha: i for i, sha in enumerate(history)}
    if good not in position or bad not in position:
        return 0
    return position[bad] - position[good]
