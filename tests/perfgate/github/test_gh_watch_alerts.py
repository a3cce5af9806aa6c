"""`perfgate watch` end to end: a scripted history in git, state on a bare remote's
``perf-results`` branch, issues on the fake GitHub API (checked against GitHub's OpenAPI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gh_env import TOKEN, MakeServer
from gh_fake_api import OWNER, REPO, Scripted
from gh_watch_run import run_watch, state_files
from watch_history import scripted_history, slowdown

from perfgate.config import GateConfig
from perfgate.history.branch import branch_git, fetch_tip, list_tree, read_blobs
from perfgate.watch.alerts.issues import Alerter, Github3Issues
from perfgate.watch.alerts.text import Links
from perfgate.watch.changes.detect import ChangeStatus
from perfgate.watch.changes.load import load_series
from perfgate.watch.records.state import advance, latest
from perfgate.watch.records.store import read_state, record_state
from perfgate.watch.run import alert, analyse

pytestmark = pytest.mark.subprocess

STORED = (1, 4, 8, 12)


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def test_a_regression_opens_exactly_one_issue_and_a_second_run_none(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    first = run_watch(history, server, alert_suspected=True, as_json=True)
    (record,) = json.loads(first)
    assert record["commit"] == history.commits[7]  # commit 8: the first bad measured one
    assert record["last_good_commit"] == history.commits[3]
    assert (record["direction"], record["status"], record["issue"]) == (
        "regression",
        "suspected",
        1,
    )
    assert 1.05 < record["ratio"] < 1.11
    (issue,) = server.fake.issues.values()
    assert issue["state"] == "open" and issue["labels"] == ["perfgate-watch"]
    assert history.commits[7][:8] in issue["title"] and "time_compute" in issue["title"]
    assert issue["body"].startswith(f"<!-- perfgate-watch:{record['change_id']} -->")
    assert "| ratio (worse > 1) |" in issue["body"] and "```svg\n<svg" in issue["body"]
    assert (
        f"https://github.example/octo-org/bench-repo/commit/{history.commits[7]}" in issue["body"]
    )
    assert len(state_files(history)) == 1

    second = run_watch(history, server, alert_suspected=True)
    assert len(server.fake.issues) == 1
    assert "#1" in second and "suspected" in second
    assert len(state_files(history)) == 1  # nothing new to record
    posts = [r for r in server.fake.requests if r.method in ("POST", "PATCH")]
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in posts] == [("POST", "issues")]


def test_no_slowdown_no_issue(tmp_path: Path, make_server: MakeServer) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, {})
    out = run_watch(history, server, alert_suspected=True, as_json=True)
    assert json.loads(out) == []
    assert server.fake.issues == {} and server.fake.requests == []
    assert state_files(history) == []


def test_a_recovery_closes_the_issue_with_a_comment(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    levels = slowdown(7, end=11)
    history.measure((1, 4, 8), levels)
    run_watch(history, server, alert_suspected=True)
    assert [i["state"] for i in server.fake.issues.values()] == ["open"]

    history.measure((12,), levels, seed=8)
    out = json.loads(run_watch(history, server, alert_suspected=True, as_json=True))
    regression = next(r for r in out if r["direction"] == "regression")
    assert regression["status"] == "recovered"
    assert regression["recovered_by"] == history.commits[11]
    assert [i["state"] for i in server.fake.issues.values()] == ["closed"]
    (comment,) = [c for c in server.fake.comments.values() if c["issue"] == 1]
    assert "Recovered" in comment["body"] and history.commits[11][:10] in comment["body"]
    assert len(server.fake.issues) == 1

    run_watch(history, server, alert_suspected=True)  # a third run: nothing more
    assert len([c for c in server.fake.comments.values() if c["issue"] == 1]) == 1


def test_suspected_regressions_are_not_alerted_by_default(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    (record,) = json.loads(run_watch(history, server, as_json=True))
    assert (record["status"], record["issue"]) == ("suspected", None)
    assert server.fake.requests == []
    assert len(state_files(history)) == 1  # recorded, so a later step can confirm it


def test_dry_run_prints_the_issue_and_posts_and_records_nothing(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    out = run_watch(history, server, alert_suspected=True, dry_run=True)
    assert "would open a new issue" in out and "title: Performance regression:" in out
    assert server.fake.requests == [] and state_files(history) == []


def test_an_issue_whose_number_the_state_lost_is_adopted_not_duplicated(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    run_watch(history, server, alert_suspected=True, use_state=False)  # opened, nothing recorded
    assert state_files(history) == []
    out = run_watch(history, server, alert_suspected=True)
    assert len(server.fake.issues) == 1 and "#1" in out
    assert len(state_files(history)) == 1


def test_a_failed_create_is_retried_without_a_duplicate(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    config = GateConfig()
    loaded = load_series(history.results, history.commits, config.is_higher_better)
    analysis = analyse(loaded.series, config, [])
    server.fake.script.append(Scripted(status=502, method="POST"))
    alerter = Alerter(
        lambda: Github3Issues(server.api_url, TOKEN, f"{OWNER}/{REPO}"),
        Links(),
        sleep=lambda _: None,
    )
    actions, after = alert(analysis, alerter, alert_suspected=True)
    assert [(a.verb, a.issue) for _, a in actions] == [("open", 1)]
    assert len(server.fake.issues) == 1 and after.changes[0].issue == 1
    assert [r.status for r in server.fake.requests if r.method == "POST"] == [502, 201]


def test_a_dry_run_alerter_never_makes_a_client(tmp_path: Path) -> None:
    history = scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    config = GateConfig()
    loaded = load_series(history.results, history.commits, config.is_higher_better)
    actions, after = alert(analyse(loaded.series, config, []), Alerter(None, Links()), True)
    assert [a.verb for _, a in actions] == ["open"] and after.snapshots[0].issue is None


def test_a_change_a_later_step_confirmed_is_alerted_without_the_flag(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    run_watch(history, server)  # suspected: recorded, not alerted
    assert server.fake.issues == {}
    stored = latest(read_state(history.repo, str(history.remote), "perf-results"))
    (suspected,) = stored.values()
    confirmed = advance(suspected, ChangeStatus.CONFIRMED)  # what the confirmation step does
    record_state(history.repo, str(history.remote), "perf-results", [confirmed], "2026-12-01")
    (record,) = json.loads(run_watch(history, server, as_json=True))
    assert (record["status"], record["issue"]) == ("confirmed", 1)
    assert "(confirmed)" in server.fake.issues[1]["body"]


def test_a_secret_in_a_parameter_never_reaches_the_issue_or_the_state(
    tmp_path: Path, make_server: MakeServer
) -> None:
    """Issue 37 item 1: with ``GITHUB_TOKEN`` set and a stored parameter holding it, stdout
    was redacted but the filed issue's title and body held the token, and so did the watch
    state committed to perf-results. A second run still finds its change and its issue
    (the state is matched under the redacted name): no second issue, nothing re-recorded."""
    import shutil

    from pg_results_factory import Bench, write_benchmarks_json, write_machine_json, write_result
    from watch_history import BENCH

    server, history = make_server(), scripted_history(tmp_path)
    bench = Bench(BENCH.name, ("token",), ((repr(f"k={TOKEN}"),),))
    shutil.rmtree(history.results)
    write_benchmarks_json(history.results, [bench])
    write_machine_json(history.results)
    level = slowdown(7)
    for k in STORED:
        samples = [level[k] * (1.0 + 0.001 * i) for i in range(-10, 10)]
        write_result(history.results, history.commits[k - 1], [bench], {bench.name: [samples]})
    first = run_watch(history, server, alert_suspected=True)
    (issue,) = server.fake.issues.values()
    git = branch_git(history.repo)
    tip = fetch_tip(git, str(history.remote), "perf-results")
    tree = list_tree(git, tip)
    files = state_files(history)
    stored = b"".join(read_blobs(git, [tree[p] for p in files])).decode()
    pieces = {TOKEN[i : i + 8] for i in range(len(TOKEN) - 7)}
    texts = {"stdout": first, "title": issue["title"], "body": issue["body"], "state": stored}
    assert {name: sorted(p for p in pieces if p in text) for name, text in texts.items()} == {
        name: [] for name in texts
    }
    assert "***" in issue["title"] and "***" in stored
    second = run_watch(history, server, alert_suspected=True)
    assert len(server.fake.issues) == 1 and "#1" in second
    assert state_files(history) == files
