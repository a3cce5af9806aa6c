"""Recovery by measurement: an alerted regression re-measured at the newest stored commit.

One stored run per commit drifts by several percent, so the history alone can miss a commit
that undoes a regression (or see one that does not). Once a probe showed a regression stably
worse (confirmed or bisected), every later run whose series has a newer measured commit than
the change's ``checked_through`` measures A, its last good commit, against that tip with the
gate's paired A/B (`perfgate.watch.probes.prober`): not worse -> recovered (``recovered_by`` the
tip, the first stored commit seen back; the issue is then closed with a comment), worse ->
still open, checked through the tip; unknown -> as it was, with the probe recorded (a later
run tries again). Each tip is measured once per change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from perfgate.watch.changes.detect import ChangeStatus, Direction
from perfgate.watch.confirm import FollowUp
from perfgate.watch.probes.prober import ProbeCase, ProbeVerdict
from perfgate.watch.records.state import WatchedChange, advance

#: Regressions a probe showed stably worse and no recovery has settled.
OPEN = frozenset({ChangeStatus.CONFIRMED, ChangeStatus.BISECTED})


def wants_recheck(
    change: WatchedChange, machine: str, tip: str | None, history: Sequence[str]
) -> bool:
    """Whether ``change`` is an open measured regression of ``machine`` whose series has a
    measured commit (``tip``) newer than any its probes covered."""
    if change.direction is not Direction.REGRESSION or change.machine != machine:
        return False
    if change.status not in OPEN or tip is None:
        return False
    position = {sha: i for i, sha in enumerate(history)}
    covered = change.checked_through or change.commit
    return tip in position and covered in position and position[tip] > position[covered]


def recheck(
    change: WatchedChange, case: ProbeCase, plan: FollowUp, tip: str | None
) -> WatchedChange | None:
    """The next snapshot of ``change`` after measuring A against ``tip``, or None when no
    probe was due (or the budget is spent)."""
    prober = plan.prober
    if not wants_recheck(change, prober.machine, tip, plan.history) or not plan.budget.allows(0):
        return None
    assert tip is not None
    probe = prober.measure(
        case, change.machine, change.last_good_commit, tip, plan.budget.remaining()
    )
    probes = (*change.probes, probe)
    if probe.verdict is ProbeVerdict.NOT_WORSE:
        snap = advance(
            change, ChangeStatus.RECOVERED, probes=probes, recovered_by=tip, checked_through=tip
        )
    elif probe.verdict is ProbeVerdict.WORSE:
        snap = change.updated(probes=probes, checked_through=tip)
    else:
        snap = change.updated(probes=probes)
    return dataclasses.replace(snap, sequence=change.sequence + 1)
