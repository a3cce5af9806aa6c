"""Confirmation and bisection of one suspected regression by measurement (pure over a prober).

A change the history suspects (last good measured commit A, first bad measured commit B) is
re-measured: B against A, paired and interleaved (`perfgate.watch.probes.prober`). Stably worse ->
confirmed; not worse -> not-confirmed (the history's suspicion is dropped, never alerted);
unknown -> it stays suspected and the probe is recorded (a later run tries again).

One run per stored commit drifts by a few percent between runs, so the history can place a
real step one measured commit early (A..B not worse, although the regime after B is). When
B's regime holds later measured commits (up to ``regime_end``, the last one before the
case's next change), a B not worse than A is not the end: A is measured against
``regime_end``, and if that is stably worse the culprit lies in B..regime_end, which is
bisected with B as the good end (every probe still against A). When
B is A's next first-parent commit, a confirmed change is bisected at once: B is the culprit.
Otherwise, asked to, the range is bisected (`perfgate.watch.probes.bisect`) from where earlier runs
left it (``narrowed_good`` .. ``narrowed_bad``), and a culprit found names its pull request.

Only regressions are probed (improvements are recorded, not alerted), and only those of the
machine the prober runs on: a measurement on another machine says nothing about this one.
Each change gets at most one new snapshot per run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perfgate.watch.alerts.pulls import pull_request_number
from perfgate.watch.changes.detect import ChangeStatus, Direction
from perfgate.watch.probes.bisect import Budget, narrow
from perfgate.watch.probes.prober import Probe, ProbeCase, Prober, ProbeVerdict
from perfgate.watch.records.state import WatchedChange, advance


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


def follow_up(
    change: WatchedChange, case: ProbeCase, plan: FollowUp, regime_end: str | None = None
) -> WatchedChange | None:
    """The next snapshot of ``change`` after this run's probes, or None when none ran.

    ``regime_end``: the last measured commit of the regime that starts at ``change.commit``
    (see the module docstring); None or ``change.commit``: B is the only one.
    """
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
        if _worth_the_regime(current, probe, plan, regime_end):
            assert regime_end is not None
            if not plan.budget.allows(1):  # not-confirmed is final: leave it for a later run
                return change.updated(probes=(*change.probes, probe))
            later = prober.measure(
                case, change.machine, change.last_good_commit, regime_end, plan.budget.remaining()
            )
            current, steps = _confirmed_later(change, (probe, later), plan, regime_end), 2
    if current.status is ChangeStatus.CONFIRMED and plan.bisect:
        current = _bisected(current, case, plan, steps)
    if current is change:
        return None
    if current.status in _MEASURED and current.checked_through is None:
        current = dataclasses.replace(
            current, checked_through=newest_probed(current, plan.history)
        )
    return dataclasses.replace(current, sequence=change.sequence + 1)


def newest_probed(change: WatchedChange, history: Sequence[str]) -> str:
    """The newest commit (in ``history`` order) a probe of ``change`` measured as its head;
    ``change.commit`` when none is in the history."""
    position = {sha: i for i, sha in enumerate(history)}
    heads = [p.head for p in change.probes if p.head in position]
    return max(heads, key=position.__getitem__, default=change.commit)


#: Statuses a probe showed stably worse: later commits are re-measured for a recovery.
_MEASURED = frozenset({ChangeStatus.CONFIRMED, ChangeStatus.BISECTED})


def _confirmed(change: WatchedChange, probe: Probe, plan: FollowUp) -> WatchedChange:
    """``change`` after the A/B of its range: confirmed (or bisected), not confirmed, or as it
    was with the probe recorded."""
    return _measured(
        change, (*change.probes, probe), plan, (change.last_good_commit, change.commit)
    )


def _worth_the_regime(
    after: WatchedChange, probe: Probe, plan: FollowUp, regime_end: str | None
) -> bool:
    """Whether a B found not worse leaves later commits of its regime to measure."""
    return (
        probe.verdict is ProbeVerdict.NOT_WORSE
        and regime_end is not None
        and _span(plan.history, after.commit, regime_end) > 0
    )


def _confirmed_later(
    change: WatchedChange, made: tuple[Probe, Probe], plan: FollowUp, regime_end: str
) -> WatchedChange:
    """``change`` after ``made`` = (A vs B: not worse, A vs ``regime_end``): confirmed in
    B..regime_end (bisected when that is one commit), not confirmed, or still suspected with
    both probes recorded."""
    return _measured(change, (*change.probes, *made), plan, (change.commit, regime_end))


def _measured(
    change: WatchedChange, probes: tuple[Probe, ...], plan: FollowUp, span: tuple[str, str]
) -> WatchedChange:
    """``change`` after its newest probe (the last of ``probes``) measured A against the bad
    end of ``span`` = (good, bad): worse -> confirmed in that range (bisected when it is one
    commit), not worse -> not confirmed, unknown -> as it was with the probes recorded."""
    verdict = probes[-1].verdict
    if verdict is ProbeVerdict.NOT_WORSE:
        return advance(change, ChangeStatus.NOT_CONFIRMED, probes=probes)
    if verdict is ProbeVerdict.UNKNOWN:
        return change.updated(probes=probes)
    good, bad = span
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
    (a catch-up run may have moved the change's measured commits since), or inside
    B..regime end where B was found not worse (`_confirmed_later`: good is B or later)."""
    position = {sha: i for i, sha in enumerate(history)}
    good, bad = change.last_good_commit, change.commit
    narrowed_good, narrowed_bad = change.narrowed_good, change.narrowed_bad
    if narrowed_good is not None and narrowed_bad is not None and bad in position:
        good_at, bad_at = position.get(narrowed_good, -1), position.get(narrowed_bad, -1)
        if position[bad] <= good_at < bad_at:
            return narrowed_good, narrowed_bad
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
