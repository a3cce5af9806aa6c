"""`perfgate watch --confirm/--bisect` end to end with a fake prober (planted culprit): the
scripted history of the issue (12 commits, 8% slower from commit 7, results of commits 1, 4,
8 and 12), state on a bare remote's ``perf-results``, issues on the fake GitHub API."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from fake_prober import FakeProber
from gh_env import MakeServer
from gh_fake_api import FakeServer
from gh_watch_run import run_watch, state_files
from watch_history import MACHINE, ScriptedHistory, scripted_history, slowdown

from perfgate.config import GateConfig
from perfgate.watch.service import watched_branch

pytestmark = pytest.mark.subprocess

STORED = (1, 4, 8, 12)


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _subject(k: int) -> str:
    return f"Change {k} (#{100 + k})"


def _run(
    history: ScriptedHistory, server: FakeServer, prober: FakeProber, **options: object
) -> str:
    def make(config: GateConfig) -> FakeProber:
        assert config.watch_max_steps == 8
        return prober

    return run_watch(history, server, make, **options)


def _prober(history: ScriptedHistory, culprit: int | None) -> FakeProber:
    sha = history.commits[culprit - 1] if culprit is not None else None
    return FakeProber(history.commits, sha, machine_name=MACHINE)


def test_suspected_4_to_8_is_bisected_to_7_with_one_issue_and_a_rerun_adds_none(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path, subject=_subject)
    history.measure(STORED, slowdown(7))
    prober = _prober(history, 7)
    (record,) = json.loads(_run(history, server, prober, bisect=True, as_json=True))
    c = history.commits
    assert (record["last_good_commit"], record["commit"]) == (c[3], c[7])  # 4..8
    assert (record["status"], record["culprit"], record["culprit_pr"]) == ("bisected", c[6], 107)
    assert (record["narrowed_good"], record["narrowed_bad"], record["issue"]) == (c[5], c[6], 1)
    assert [(p["base"], p["head"], p["verdict"]) for p in record["probes"]] == [
        (c[3], c[7], "worse"),
        (c[3], c[5], "not-worse"),
        (c[3], c[6], "worse"),
        (c[3], c[11], "worse"),  # the stored tip beyond B, for a recovery (still worse)
    ]
    assert prober.cases[0].selection == r"^hot_slice\.HotSlice\.time_compute\('assembled'\)$"
    (issue,) = server.fake.issues.values()
    assert c[6][:8] in issue["title"] and "(#107)" in issue["title"]
    assert "from pull request #107" in issue["body"] and "| A/B probe (A..B) |" in issue["body"]
    assert len(state_files(history)) == 1  # one snapshot: found, confirmed, bisected, alerted

    prober.calls.clear()
    second = _run(history, server, prober, bisect=True)
    assert prober.calls == [] and len(server.fake.issues) == 1
    assert f"culprit of hot_slice.HotSlice.time_compute(assembled) on {MACHINE}" in second
    posts = [r for r in server.fake.requests if r.method in ("POST", "PATCH")]
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in posts] == [("POST", "issues")]


def test_a_culprit_whose_subject_names_no_pull_request_is_looked_up_on_github(
    tmp_path: Path, make_server: MakeServer
) -> None:
    """A rebase merge keeps the pull request's own subject: the watch asks GitHub for the
    pull requests of the culprit commit and names the merged one (recorded in the state)."""
    server = make_server()
    history = scripted_history(tmp_path, subject=lambda k: f"Change {k}")
    history.measure(STORED, slowdown(7))
    c = history.commits
    server.fake.commit_pulls[c[6]] = [
        {"number": 301, "merged": False, "base": "main", "merge_commit_sha": None},
        {"number": 207, "merged": True, "base": "main", "merge_commit_sha": "a" * 40},
    ]
    (record,) = json.loads(_run(history, server, _prober(history, 7), bisect=True, as_json=True))
    assert (record["culprit"], record["culprit_pr"]) == (c[6], 207)
    (issue,) = server.fake.issues.values()
    assert "(#207)" in issue["title"] and "from pull request #207" in issue["body"]
    looked_up = [r.path for r in server.fake.requests if "/commits/" in r.path]
    assert looked_up[-1].endswith(f"/commits/{c[6]}/pulls")
    prober = _prober(history, 7)
    (again,) = json.loads(_run(history, server, prober, bisect=True, as_json=True))
    assert again["culprit_pr"] == 207 and prober.calls == []
    assert len([r for r in server.fake.requests if "/commits/" in r.path]) == len(looked_up)


def test_without_the_slowdown_nothing_is_probed_or_opened(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, {})
    prober = _prober(history, None)
    assert json.loads(_run(history, server, prober, bisect=True, as_json=True)) == []
    assert prober.calls == [] and server.fake.issues == {} and state_files(history) == []


def test_an_ab_that_does_not_confirm_opens_nothing_and_is_not_probed_again(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    prober = _prober(history, None)  # the history's step does not reproduce
    (record,) = json.loads(_run(history, server, prober, bisect=True, as_json=True))
    # A against B (8), then against the regime's last stored commit (12): neither is worse
    assert (record["status"], record["issue"], len(prober.calls)) == ("not-confirmed", None, 2)
    assert [head for _base, head in prober.calls] == [history.commits[7], history.commits[11]]
    assert server.fake.issues == {}
    _run(history, server, prober, bisect=True)
    assert len(prober.calls) == 2 and server.fake.issues == {}


def test_a_recovery_at_commit_11_closes_the_bisected_issue(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    levels = slowdown(7, end=11)
    history.measure((1, 4, 8), levels)
    _run(history, server, _prober(history, 7), bisect=True)
    assert [i["state"] for i in server.fake.issues.values()] == ["open"]
    history.measure((12,), levels, seed=8)
    out = json.loads(_run(history, server, _prober(history, 7), bisect=True, as_json=True))
    regression = next(r for r in out if r["direction"] == "regression")
    assert (regression["status"], regression["recovered_by"]) == ("recovered", history.commits[11])
    assert regression["culprit"] == history.commits[6]
    assert [i["state"] for i in server.fake.issues.values()] == ["closed"]


def test_a_recovery_the_history_misses_is_found_by_measuring_the_new_tip(
    tmp_path: Path, make_server: MakeServer
) -> None:
    """Commit 12's one stored run still looks slow (drift), but the paired A/B of A against
    it finds the case back (recovered at 11): the issue is closed; a rerun measures nothing."""
    server, history = make_server(), scripted_history(tmp_path)
    history.measure((1, 4, 8), slowdown(7))
    _run(history, server, _prober(history, 7), bisect=True)
    history.measure((12,), slowdown(7), seed=8)
    prober = FakeProber(
        history.commits, history.commits[6], machine_name=MACHINE, recovery=history.commits[10]
    )
    out = json.loads(_run(history, server, prober, bisect=True, as_json=True))
    regression = next(r for r in out if r["direction"] == "regression")
    assert (regression["status"], regression["recovered_by"]) == ("recovered", history.commits[11])
    assert prober.calls == [(history.commits[3], history.commits[11])]
    assert [i["state"] for i in server.fake.issues.values()] == ["closed"]
    _run(history, server, prober, bisect=True)
    assert len(prober.calls) == 1


def test_another_machines_change_is_left_to_its_runner(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    prober = FakeProber(history.commits, history.commits[6], machine_name="another-runner")
    (record,) = json.loads(_run(history, server, prober, bisect=True, as_json=True))
    assert (record["status"], prober.calls, server.fake.issues) == ("suspected", [], {})


def test_a_dry_run_names_the_probes_and_measures_nothing(
    tmp_path: Path, make_server: MakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    prober = _prober(history, 7)
    out = _run(history, server, prober, confirm=True, dry_run=True, alert_suspected=True)
    span = f"{history.commits[3][:8]}..{history.commits[7][:8]}"
    assert f"perfgate watch: would confirm {span} of" in capsys.readouterr().err
    assert "would open a new issue" in out
    assert prober.calls == [] and server.fake.requests == [] and state_files(history) == []


def test_an_issue_opened_on_suspicion_is_closed_when_the_ab_does_not_confirm(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    history.measure(STORED, slowdown(7))
    prober = _prober(history, None)
    _run(history, server, prober, alert_suspected=True)  # no --confirm: opened as suspected
    assert [i["state"] for i in server.fake.issues.values()] == ["open"]
    (record,) = json.loads(
        _run(history, server, prober, confirm=True, alert_suspected=True, as_json=True)
    )
    assert (record["status"], record["issue"]) == ("not-confirmed", 1)
    assert [i["state"] for i in server.fake.issues.values()] == ["closed"]
    (comment,) = [c for c in server.fake.comments.values() if c["issue"] == 1]
    assert comment["body"].splitlines()[1].startswith("Not confirmed: a paired A/B")


def test_the_workflow_split_probes_on_the_runner_then_one_job_alerts(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path, subject=_subject)
    history.measure(STORED, slowdown(7))
    prober = _prober(history, 7)
    (probed,) = json.loads(_run(history, server, prober, bisect=True, alerts=False, as_json=True))
    assert (probed["status"], probed["issue"], server.fake.requests) == ("bisected", None, [])
    assert len(state_files(history)) == 1
    (alerted,) = json.loads(_run(history, server, prober, as_json=True))  # the alerting job
    assert (alerted["status"], alerted["culprit"], alerted["issue"]) == (
        "bisected",
        history.commits[6],
        1,
    )
    assert len(prober.calls) == 4 and len(server.fake.issues) == 1  # 4v8, 4v6, 4v7, 4v12


def test_the_watched_branch_is_the_one_the_ref_names(tmp_path: Path) -> None:
    """A culprit's pull request must have merged into the watched branch: ``HEAD`` on main,
    ``origin/main`` and ``refs/heads/main`` all name main; a detached head names none."""
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@invalid"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@invalid"}
    git_ = ["git", "-C", str(repo)]
    subprocess.run([*git_, "commit", "-q", "--allow-empty", "-m", "c"], check=True, env=env)
    assert watched_branch(repo, "HEAD") == "main"
    assert watched_branch(repo, "refs/heads/main") == "main"
    subprocess.run([*git_, "checkout", "-q", "--detach"], check=True)
    assert watched_branch(repo, "HEAD") is None
