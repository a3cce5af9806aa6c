"""The machine-readable form of a change point: one flat JSON-ready record per change."""

from __future__ import annotations

from perfgate.watch.detect import ChangePoint
from perfgate.watch.series import Series

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
    the gate's reports; `direction`, `status` and `evidence` (`commits` or `samples`) are their
    enum values.
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
