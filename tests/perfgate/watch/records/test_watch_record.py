"""The machine-readable change record."""

from __future__ import annotations

import json

from watch_fakes import sampled_series, series_of, sha, stepped

from perfgate.watch.changes.detect import detect
from perfgate.watch.records.record import RECORD_KEYS, change_record


def test_record_names_the_case_machine_first_bad_commit_ratio_direction_and_status() -> None:
    series = series_of(1e6 * stepped(40, 20, 0.8, seed=1), higher_is_better=True)
    (change,) = detect(series, 0.03, 0.05)
    record = change_record(series, change)
    assert tuple(record) == RECORD_KEYS
    assert record["benchmark"] == "hot_slice.HotSlice.time_compute"
    assert record["params"] == ["'assembled'", "2048", "1"]
    assert record["machine"] == "ci-runner"
    assert (record["commit"], record["last_good_commit"]) == (sha(20), sha(19))
    assert record["ratio"] == change.ratio > 1.2
    assert (record["direction"], record["status"]) == ("regression", "suspected")
    assert record["evidence"] == "commits"
    assert json.loads(json.dumps(record)) == record


def test_record_of_a_short_history_says_its_evidence_was_the_samples() -> None:
    series = sampled_series([1.0, 1.0, 1.08, 1.08], [1, 4, 8, 12], seed=0)
    (change,) = detect(series, 0.05, 0.05)
    record = change_record(series, change)
    assert (record["commit"], record["last_good_commit"]) == (sha(8), sha(4))
    assert record["evidence"] == "samples"
    assert json.loads(json.dumps(record)) == record
