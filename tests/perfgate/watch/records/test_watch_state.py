"""The watch state: status transitions, reconciling a run with stored snapshots, recovery."""

from __future__ import annotations

import dataclasses
import json

import pytest
from watch_fakes import series_of, sha

from perfgate.errors import ResultFileError
from perfgate.watch.changes.detect import ChangePoint, ChangeStatus, Direction, Evidence
from perfgate.watch.records.state import TransitionError, advance, latest, new_change, reconcile
from perfgate.watch.records.state_file import (
    is_record_path,
    parse_record,
    record_bytes,
    record_path,
)

SERIES = series_of(
    [1.0, 1.0, 1.0, 1.08, 1.08, 1.08, 1.0, 1.0], positions=[0, 3, 4, 7, 8, 9, 11, 12]
)


def _change(index: int, before: float, after: float) -> ChangePoint:
    ratio = after / before
    return ChangePoint(
        index=index,
        last_good_commit=sha(index - 1),
        first_bad_commit=sha(index),
        before=before,
        after=after,
        ratio=ratio,
        direction=Direction.REGRESSION if ratio > 1 else Direction.IMPROVEMENT,
        p_value=0.001,
        evidence=Evidence.SAMPLES,
    )


REGRESSION = _change(3, 1.0, 1.08)
RECOVERY = _change(6, 1.08, 1.0)


def test_statuses_only_move_forward() -> None:
    change = new_change(SERIES, REGRESSION)
    confirmed = advance(change, ChangeStatus.CONFIRMED)
    bisected = advance(confirmed, ChangeStatus.BISECTED, culprit=sha(99))
    assert (bisected.status, bisected.culprit, bisected.sequence) == (
        ChangeStatus.BISECTED,
        sha(99),
        3,
    )
    recovered = advance(bisected, ChangeStatus.RECOVERED, recovered_by=sha(6))
    with pytest.raises(TransitionError, match="from recovered to suspected"):
        advance(recovered, ChangeStatus.SUSPECTED)
    with pytest.raises(TransitionError, match="from bisected to confirmed"):
        advance(bisected, ChangeStatus.CONFIRMED)


def test_a_new_change_is_recorded_once_and_found_again_records_nothing() -> None:
    (first,) = reconcile({}, SERIES, [REGRESSION], 0.05)
    assert (first.sequence, first.status, first.commit) == (1, ChangeStatus.SUSPECTED, sha(3))
    assert reconcile({first.change_id: first}, SERIES, [REGRESSION], 0.05) == []


def test_a_narrowed_range_is_the_same_change_updated() -> None:
    wide = new_change(SERIES, REGRESSION)
    narrowed = dataclasses.replace(REGRESSION, index=3, last_good_commit=sha(2))
    stored = dataclasses.replace(wide, last_good_commit=sha(1))
    (update,) = reconcile({stored.change_id: stored}, SERIES, [narrowed], 0.05)
    assert (update.change_id, update.sequence, update.last_good_commit) == (
        stored.change_id,
        2,
        sha(2),
    )


def test_a_later_improvement_back_to_the_old_level_recovers_the_regression() -> None:
    stored = dataclasses.replace(new_change(SERIES, REGRESSION), issue=4)
    out = reconcile({stored.change_id: stored}, SERIES, [REGRESSION, RECOVERY], 0.05)
    recovered = next(c for c in out if c.change_id == stored.change_id)
    assert (recovered.status, recovered.recovered_by, recovered.issue, recovered.sequence) == (
        ChangeStatus.RECOVERED,
        sha(6),
        4,
        2,
    )
    improvement = next(c for c in out if c.change_id != stored.change_id)
    assert improvement.direction is Direction.IMPROVEMENT


def test_a_partial_improvement_does_not_recover() -> None:
    stored = new_change(SERIES, REGRESSION)
    partial = _change(6, 1.08, 1.065)  # still 6.5% above the level before
    out = reconcile({stored.change_id: stored}, SERIES, [REGRESSION, partial], 0.05)
    assert all(c.status is ChangeStatus.SUSPECTED for c in out)


def test_a_throughput_recovery_reads_larger_as_better() -> None:
    series = dataclasses.replace(SERIES, higher_is_better=True)
    drop = dataclasses.replace(_change(3, 1.08, 1.0), direction=Direction.REGRESSION)
    back = dataclasses.replace(_change(6, 1.0, 1.08), direction=Direction.IMPROVEMENT)
    stored = new_change(series, drop)
    out = reconcile({stored.change_id: stored}, series, [drop, back], 0.05)
    assert next(c for c in out if c.change_id == stored.change_id).status is ChangeStatus.RECOVERED


def test_latest_takes_the_highest_sequence_and_breaks_ties_the_same_way() -> None:
    first = new_change(SERIES, REGRESSION)
    a = first.updated(issue=1)
    b = first.updated(issue=2, ratio=1.2)
    assert latest([first, a, b])[first.change_id] == b
    assert latest([b, a, first])[first.change_id] == b


def test_records_round_trip_and_are_named_by_their_content() -> None:
    snap = new_change(SERIES, REGRESSION).updated(issue=7)
    content = record_bytes(snap, "2026-12-01T17:00:00Z")
    path = record_path(snap, content)
    assert is_record_path(path) and path.startswith(f"watch/{snap.change_id}/0002-")
    assert parse_record(content, path) == snap
    assert record_path(snap, record_bytes(snap, "2026-12-01T18:00:00Z")) != path


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{", "not JSON"),
        (b'{"kind": "other"}', "not a perfgate-watch-change record"),
        (b'{"kind": "perfgate-watch-change", "api_version": 9}', "unsupported api_version"),
        (b'{"kind": "perfgate-watch-change", "api_version": 1}', "malformed record"),
    ],
)
def test_a_malformed_record_names_its_path(content: bytes, problem: str) -> None:
    with pytest.raises(ResultFileError, match=f"watch/x.json: {problem}"):
        parse_record(content, "watch/x.json")


def test_a_record_from_before_the_probes_reads_as_none_yet() -> None:
    snap = new_change(SERIES, REGRESSION)
    data = json.loads(record_bytes(snap, "2026-12-01T17:00:00Z"))
    for key in ("culprit_pr", "narrowed_good", "narrowed_bad", "probes"):
        del data[key]
    content = (json.dumps(data, indent=1) + "\n").encode()
    old = parse_record(content, record_path(snap, content))
    assert old == snap and old.probes == () and old.culprit_pr is None


def test_a_malformed_probe_is_refused_naming_the_file() -> None:
    snap = new_change(SERIES, REGRESSION)
    data = json.loads(record_bytes(snap, "2026-12-01T17:00:00Z"))
    data["probes"] = [{"base": "a", "head": "b", "verdict": "worse", "ratio": "x"}]
    content = json.dumps(data).encode()
    with pytest.raises(ResultFileError, match="malformed record"):
        parse_record(content, "watch/x.json")
