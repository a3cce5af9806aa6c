"""The merge policy against the fake GitHub API (every request checked against the OpenAPI
description): the pending status at the start of a gate run, and the
``perf-regression-accepted`` label that turns a stable regression into success, honoured
only when applied by a user with write access."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gh_env import actions_env
from gh_fake_api import FakeServer
from test_gh_poster import FAST, REPORT_URL, SHA, SleepLog, write_report

from perfgate import cli
from perfgate.acceptance import ACCEPT_LABEL, AcceptanceState, LabelEvent, judge, label_applier
from perfgate.gate.publish import AcceptOptions, post_pending, post_report


def _post(server: FakeServer, report_dir: Path, record: Path | None = None) -> int:
    return post_report(
        pr=1,
        report_dir=report_dir,
        report_url=REPORT_URL,
        env=actions_env(server),
        policy=FAST,
        sleep=SleepLog(),
        accept=AcceptOptions(ACCEPT_LABEL, record),
    )


def test_pending_status_at_the_start(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """``perfgate post --pending``: the perfgate status is pending while the gate runs."""
    for key, value in actions_env(server).items():
        monkeypatch.setenv(key, value)
    argv = ["post", "--pending", "--pr", "1", "--sha", SHA, "--report-url", REPORT_URL]
    assert cli.main(argv) == 0
    (status,) = server.fake.statuses
    assert status["state"] == "pending" and status["context"] == "perfgate"
    assert status["description"] == f"measuring {SHA[:12]}"
    assert post_pending(sha=SHA, env={}) == 3  # no token: an error, nothing set


def test_a_new_push_takes_the_acceptance_label_off(
    server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The label accepted the head it was applied for; the pending step of the next push
    (``--clear-label``) takes it off, so that push's regression is not accepted with it."""
    server.fake.label_events[1] = [("labeled", ACCEPT_LABEL, "maintainer")]
    server.fake.permissions["maintainer"] = "maintain"
    for key, value in actions_env(server).items():
        monkeypatch.setenv(key, value)
    argv = ["post", "--pending", "--pr", "1", "--sha", SHA, "--clear-label", ACCEPT_LABEL]
    assert cli.main(argv) == 0
    assert server.fake.active_labels(1) == []
    assert cli.main(argv) == 0  # nothing left to take off: still a pending status
    assert [s["state"] for s in server.fake.statuses] == ["pending", "pending"]
    record = tmp_path / "acceptance.json"
    assert _post(server, write_report(tmp_path / "r", "regression", 1), record) == 0
    assert server.fake.statuses[-1]["state"] == "failure" and not record.exists()


def test_a_maintainer_accepts_a_stable_regression(server: FakeServer, tmp_path: Path) -> None:
    server.fake.label_events[1] = [("labeled", ACCEPT_LABEL, "maintainer")]
    server.fake.permissions["maintainer"] = "maintain"
    record = tmp_path / "acceptance.json"
    assert _post(server, write_report(tmp_path / "r", "regression", 1), record) == 0
    (status,) = server.fake.statuses
    assert status["state"] == "success"
    assert status["description"].startswith("accepted by @maintainer: regression")
    (comment,) = server.fake.comments.values()
    assert "Regression accepted by @maintainer" in comment["body"]
    saved = json.loads(record.read_text())
    assert saved["accepted_by"] == "maintainer" and saved["head"] == SHA
    assert saved["pull_request"] == 1 and saved["label"] == ACCEPT_LABEL
    paths = [r.path for r in server.fake.requests]
    assert any(p.endswith("/issues/1/events") for p in paths)
    assert any(p.endswith("/collaborators/maintainer/permission") for p in paths)


@pytest.mark.parametrize("permission", ["read", "triage", None])
def test_a_user_without_write_access_cannot_accept(
    server: FakeServer, tmp_path: Path, permission: str | None
) -> None:
    server.fake.label_events[1] = [("labeled", ACCEPT_LABEL, "contributor")]
    if permission is not None:
        server.fake.permissions["contributor"] = permission
    record = tmp_path / "acceptance.json"
    assert _post(server, write_report(tmp_path / "r", "regression", 1), record) == 0
    (status,) = server.fake.statuses
    assert status["state"] == "failure"
    (comment,) = server.fake.comments.values()
    assert "applied by @contributor, who lacks write access" in comment["body"]
    assert not record.exists()


def test_the_label_never_turns_an_error_green(server: FakeServer, tmp_path: Path) -> None:
    """Only a stable regression can be accepted: an error report stays an error, and the
    label is not even looked up."""
    server.fake.label_events[1] = [("labeled", ACCEPT_LABEL, "maintainer")]
    server.fake.permissions["maintainer"] = "admin"
    _post(server, write_report(tmp_path / "r", "error", 3))
    assert [s["state"] for s in server.fake.statuses] == ["error"]
    assert not any(r.path.endswith("/events") for r in server.fake.requests)


def test_a_removed_label_accepts_nothing(server: FakeServer, tmp_path: Path) -> None:
    server.fake.label_events[1] = [
        ("labeled", ACCEPT_LABEL, "maintainer"),
        ("unlabeled", ACCEPT_LABEL, "maintainer"),
        ("labeled", "other", "maintainer"),
    ]
    server.fake.permissions["maintainer"] = "admin"
    assert _post(server, write_report(tmp_path / "r", "regression", 1)) == 0
    assert [s["state"] for s in server.fake.statuses] == ["failure"]


def test_label_rules_are_pure() -> None:
    events = [
        LabelEvent("labeled", ACCEPT_LABEL, "a"),
        LabelEvent("unlabeled", ACCEPT_LABEL, "a"),
        LabelEvent("labeled", ACCEPT_LABEL, "b"),
    ]
    assert label_applier(events, ACCEPT_LABEL) == "b"
    assert label_applier(events[:2], ACCEPT_LABEL) is None
    assert judge("b", "write").state is AcceptanceState.ACCEPTED
    assert judge("b", "read").state is AcceptanceState.REFUSED
    assert judge(None, None).state is AcceptanceState.NOT_REQUESTED
