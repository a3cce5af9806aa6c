"""The machine-readable form of a change point: one flat JSON-ready record per change."""

from __future__ import annotations

from perfgate.watch.changes.detect import ChangePoint
from perfgate.watch.changes.series import Series
from perfgate.watch.probes.prober import probe_record
from perfgate.watch.records.state import WatchedChange

# The record's keys, in output order.
RECORD_KEYS = (
    "benchmark",
    "params",
    "machine",
    "commit",
    "last_good_commit",
    "ratio",
    "direction",
    "status",
    "evidence",
    "p_value",
    "before",
    "after",
)


def change_record(series: Series, change: ChangePoint) -> dict[str, object]:
    """`change` in `series` as plain data: `commit` is the first bad (first new-regime) commit.

    `last_good_commit` closes the range a later step bisects; `ratio` is worse-is-> 1, as in
    the gate's reports; `direction`, `status` and `evidence` (`commits`, `samples` or
    `counts`) are their enum values.
    """
    return {
        "benchmark": series.benchmark,
        "params": list(series.params),
        "machine": series.machine,
        "commit": change.first_bad_commit,
        "last_good_commit": change.last_good_commit,
        "ratio": change.ratio,
        "direction": change.direction.value,
        "status": change.status.value,
        "evidence": change.evidence.value,
        "p_value": change.p_value,
        "before": change.before,
        "after": change.after,
    }


def watched_record(change: WatchedChange) -> dict[str, object]:
    """A change as the watch tracks it: the keys of `change_record` (same meaning), then its
    ``change_id``, the ``issue`` alerting it, the bisected ``culprit`` and ``recovered_by``,
    the culprit's pull request ``culprit_pr``, the range a bisection narrowed it to so far
    (``narrowed_good`` .. ``narrowed_bad``) and its A/B ``probes`` (base, head, verdict,
    ratio, CI, seconds, note)."""
    return {
        "benchmark": change.benchmark,
        "params": list(change.params),
        "machine": change.machine,
        "commit": change.commit,
        "last_good_commit": change.last_good_commit,
        "ratio": change.ratio,
        "direction": change.direction.value,
        "status": change.status.value,
        "evidence": change.evidence.value,
        "p_value": change.p_value,
        "before": change.before,
        "after": change.after,
        "change_id": change.change_id,
        "issue": change.issue,
        "culprit": change.culprit,
        "recovered_by": change.recovered_by,
        "culprit_pr": change.culprit_pr,
        "narrowed_good": change.narrowed_good,
        "narrowed_bad": change.narrowed_bad,
        "checked_through": change.checked_through,
        "probes": [probe_record(p) for p in change.probes],
    }
