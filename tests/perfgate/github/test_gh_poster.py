"""`perfgate post` against the fake GitHub API (every request checked against the OpenAPI spec)."""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
from gh_env import TOKEN, MakeServer, actions_env
from gh_fake_api import FakeServer, Scripted
from gh_openapi import OpenApi

from perfgate.commands import post as post_cmd
from perfgate.formats.report_files import MARKER
from perfgate.gate.publish import post_report
from perfgate.github import COMMENT_LIMIT, Github3Client, GitHubApiError, Poster
from perfgate.retry import RetryPolicy
from perfgate.verdict import CommitState

pytestmark = [pytest.mark.network, pytest.mark.subprocess]

SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
REPORT_URL = "https://ci.example/artifacts/perfgate-report.html"
FAST = RetryPolicy(attempts=4, base_delay=0.01, max_delay=1.5)
SAMPLE_MD = """## perfgate: no stable regression

| benchmark | base (ms) | head (ms) | ratio | verdict |
|---|---:|---:|---:|---|
| g1_walk.hot(N=2048, 1T) | 0.412 | 0.409 | 0.99 | same |
"""


def write_report(
    directory: Path, verdict: str = "pass", code: int = 0, markdown: str = SAMPLE_MD
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "report.md").write_text(markdown, encoding="utf-8")
    summary = {"pass": "no stable regression (12 benchmarks)"}.get(
        verdict, f"{verdict}: see report"
    )
    verdict_json = {"verdict": verdict, "exit_code": code, "summary": summary, "head": SHA}
    (directory / "verdict.json").write_text(json.dumps(verdict_json), encoding="utf-8")
    return directory


class SleepLog:
    """Injected sleep: records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def post(server: FakeServer, report_dir: Path, **kwargs: object) -> int:
    options: dict[str, object] = {"env": actions_env(server), "policy": FAST, "sleep": SleepLog()}
    options.update(kwargs)
    return post_report(pr=1, report_dir=report_dir, report_url=REPORT_URL, **options)  # type: ignore[arg-type]


def test_first_post_creates_comment_and_status(server: FakeServer, tmp_path: Path) -> None:
    assert post(server, write_report(tmp_path / "r")) == 0
    (comment,) = server.fake.comments.values()
    assert comment["body"].startswith(MARKER) and SAMPLE_MD.strip() in comment["body"]
    assert server.fake.statuses == [
        {
            "sha": SHA,
            "state": "success",
            "description": "no stable regression (12 benchmarks)",
            "target_url": REPORT_URL,
            "context": "perfgate",
        }
    ]


def test_another_context_keeps_its_own_status_and_comment(
    server: FakeServer, tmp_path: Path
) -> None:
    """The hosted sim job posts as `perfgate-sim`: its own status and its own sticky
    comment (its own marker), beside the gate's, neither touching the other."""
    assert post(server, write_report(tmp_path / "gate")) == 0
    sim_md = MARKER + "\n" + SAMPLE_MD.replace("same", "sim same")
    sim = write_report(tmp_path / "sim", markdown=sim_md)
    assert post(server, sim, context="perfgate-sim") == 0
    assert post(server, sim, context="perfgate-sim") == 0
    bodies = sorted(c["body"] for c in server.fake.comments.values())
    assert len(bodies) == 2 and bodies[0].startswith("<!-- perfgate-report -->")
    assert bodies[1].startswith("<!-- perfgate-sim-report -->") and MARKER not in bodies[1]
    contexts = [s["context"] for s in server.fake.statuses]
    assert contexts == ["perfgate", "perfgate-sim", "perfgate-sim"]
    parser = argparse.ArgumentParser()
    post_cmd.add_parser(parser.add_subparsers())
    with pytest.raises(SystemExit):
        parser.parse_args(["post", "--pr", "1", "--context", "Perfgate Sim"])


def test_cli_run_twice_edits_the_one_comment(server: FakeServer, tmp_path: Path) -> None:
    """The demo: `perfgate post --pr 1 --report-dir DIR` twice -> one comment, two statuses."""
    env = {**os.environ, **actions_env(server)}
    report_dir = write_report(tmp_path / "r")
    argv = [sys.executable, "-m", "perfgate.cli", "post", "--pr", "1"]
    argv += ["--report-dir", str(report_dir), "--report-url", REPORT_URL]
    first = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("perfgate post: created comment")
    write_report(report_dir, "regression", 1, SAMPLE_MD.replace("same", "slower"))
    second = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("perfgate post: updated comment")
    (comment,) = server.fake.comments.values()
    assert comment["edits"] == 1 and "slower" in comment["body"]
    assert [s["state"] for s in server.fake.statuses] == ["success", "failure"]
    posts = [r for r in server.fake.requests if r.method == "POST" and "comments" in r.path]
    assert len(posts) == 1
    assert TOKEN not in first.stdout + first.stderr + second.stdout + second.stderr


def test_add_parser_sets_func(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser(prog="perfgate")
    post_cmd.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["post", "--pr", "3", "--report-dir", str(tmp_path), "--dry-run"])
    assert (args.pr, args.report_dir, args.dry_run, args.sha) == (3, tmp_path, True, None)
    assert args.func is post_cmd.run_from_args


def test_render_style_verdict_json(server: FakeServer, tmp_path: Path) -> None:
    """verdict.json as verdict_json writes it: upper-case name, reasons, no summary."""
    report_dir = write_report(tmp_path / "r")
    data = {
        "verdict": "REGRESSION",
        "exit_code": 1,
        "reasons": ["g1_walk 12% slower"],
        "head": SHA,
    }
    (report_dir / "verdict.json").write_text(json.dumps(data), encoding="utf-8")
    assert post(server, report_dir) == 0
    (status,) = server.fake.statuses
    assert (status["state"], status["description"]) == (
        "failure",
        "regression: g1_walk 12% slower",
    )


@pytest.mark.parametrize(
    ("verdict", "code", "state", "exit_code"),
    [
        ("pass", 0, "success", 0),
        ("regression", 1, "failure", 0),
        ("parity_failure", 2, "failure", 0),
        ("error", 3, "error", 0),
        ("pass", 1, "error", 3),  # inconsistent verdict.json fails closed
    ],
)
def test_status_states(
    server: FakeServer, tmp_path: Path, verdict: str, code: int, state: str, exit_code: int
) -> None:
    assert post(server, write_report(tmp_path / "r", verdict, code)) == exit_code
    assert [s["state"] for s in server.fake.statuses] == [state]


def test_missing_report_sets_error_status(server: FakeServer, tmp_path: Path) -> None:
    assert post(server, tmp_path / "nowhere") == 3
    assert [s["state"] for s in server.fake.statuses] == ["error"]
    (comment,) = server.fake.comments.values()
    assert "could not be read" in comment["body"]


def test_report_of_another_commit_is_refused(server: FakeServer, tmp_path: Path) -> None:
    """A verdict.json naming another head (a stale or swapped artifact) posts an error."""
    report_dir = write_report(tmp_path / "r")
    data = json.loads((report_dir / "verdict.json").read_text())
    (report_dir / "verdict.json").write_text(json.dumps({**data, "head": "f" * 40}))
    assert post(server, report_dir, sha=SHA) == 3
    assert [s["state"] for s in server.fake.statuses] == ["error"]
    (report_dir / "verdict.json").write_text(json.dumps({**data, "head": SHA}))
    assert post(server, report_dir, sha=SHA) == 0
    assert [s["state"] for s in server.fake.statuses][-1] == "success"


@pytest.mark.parametrize("head", [None, "", 40])
def test_report_not_naming_its_commit_is_refused(
    server: FakeServer, tmp_path: Path, head: object
) -> None:
    """Without a head commit in verdict.json a pass could be posted to any commit: error."""
    report_dir = write_report(tmp_path / "r")
    data = json.loads((report_dir / "verdict.json").read_text())
    data.pop("head")
    if head is not None:
        data["head"] = head
    (report_dir / "verdict.json").write_text(json.dumps(data))
    assert post(server, report_dir, sha=SHA) == 3
    assert [s["state"] for s in server.fake.statuses] == ["error"]


def test_retry_then_success_honours_headers(server: FakeServer, tmp_path: Path) -> None:
    sleep = SleepLog()
    server.fake.script += [
        Scripted(status=502, message="Bad Gateway"),
        Scripted(status=403, headers={"Retry-After": "7"}, message="secondary rate limit"),
        Scripted(status=429, headers={"Retry-After": "0.5"}, message="slow down"),
    ]
    assert post(server, write_report(tmp_path / "r"), sleep=sleep) == 0
    assert sleep.waits == [0.01, 1.5, 0.5]  # backoff, Retry-After capped at max_delay, as asked
    assert len(server.fake.comments) == 1 and len(server.fake.statuses) == 1


def test_rate_limit_reset_header(server: FakeServer, tmp_path: Path) -> None:
    sleep = SleepLog()
    client = Github3Client(server.api_url, TOKEN, "octo-org/bench-repo")
    poster = Poster(client, FAST, sleep, clock=lambda: 1_000_000.0)
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1000001"}
    server.fake.script.append(Scripted(status=403, headers=headers, message="API rate limit"))
    poster.set_status(SHA, CommitState.SUCCESS, "ok", None)
    assert sleep.waits == [pytest.approx(1.01)]
    assert len(server.fake.statuses) == 1


def test_slow_response_retried_without_a_second_comment(
    server: FakeServer, tmp_path: Path
) -> None:
    """A POST that times out but lands is found by its marker on retry, then edited."""
    client = Github3Client(server.api_url, TOKEN, "octo-org/bench-repo", timeout=0.2)
    server.fake.script.append(Scripted(delay=0.6, method="POST"))
    rc = post(server, write_report(tmp_path / "r"), api=client)
    assert rc == 0
    assert len(server.fake.comments) == 1
    assert [r.method for r in server.fake.requests if "comments" in r.path][-1] == "PATCH"
    assert [s["state"] for s in server.fake.statuses] == ["success"]


def test_retry_exhausted_sets_error_and_exits_3(server: FakeServer, tmp_path: Path) -> None:
    server.fake.script += [Scripted(status=502) for _ in range(FAST.attempts + 1)]
    assert post(server, write_report(tmp_path / "r")) == 3
    assert server.fake.comments == {}
    assert server.fake.statuses == [
        {
            "sha": SHA,
            "state": "error",
            "description": "perfgate: posting failed",
            "target_url": REPORT_URL,
            "context": "perfgate",
        }
    ]


def test_permanent_failure_is_not_retried(server: FakeServer, tmp_path: Path) -> None:
    sleep = SleepLog()
    server.fake.script.append(Scripted(status=404, message="Not Found"))
    server.fake.script.append(Scripted(status=404, message="Not Found"))
    assert post(server, write_report(tmp_path / "r"), sleep=sleep) == 3
    assert sleep.waits == []
    assert server.fake.statuses == []  # the error status could not be set either


def test_oversized_report_is_shortened_with_link(server: FakeServer, tmp_path: Path) -> None:
    rows = "".join(f"| bench_{i:05d} | 1.000 | 1.000 | 1.00 | same |\n" for i in range(2500))
    markdown = SAMPLE_MD + rows
    assert len(markdown) > COMMENT_LIMIT
    assert post(server, write_report(tmp_path / "r", markdown=markdown)) == 0
    (comment,) = server.fake.comments.values()
    body = comment["body"]
    assert len(body) <= COMMENT_LIMIT
    assert body.startswith(MARKER) and f"[full report]({REPORT_URL})" in body
    assert "| bench_00000 |" in body and "| bench_02499 |" not in body


def test_quoted_marker_is_not_taken_for_ours(server: FakeServer, tmp_path: Path) -> None:
    server.fake._new_comment(1, f"Why does the bot write `{MARKER}` at the top?")
    assert post(server, write_report(tmp_path / "r")) == 0
    bodies = [c["body"] for c in server.fake.comments.values()]
    assert len(bodies) == 2 and bodies[1].startswith(MARKER)


def test_a_marker_comment_by_someone_else_is_never_edited(
    server: FakeServer, tmp_path: Path
) -> None:
    """A contributor posts the hidden marker first (with a fake PASS): perfgate creates its
    own comment instead of editing theirs (the report would have been theirs to change)."""
    theirs = server.fake._new_comment(1, f"{MARKER}\n### perfgate PASS", author="contributor")
    assert post(server, write_report(tmp_path / "r")) == 0
    assert server.fake.comments[theirs["id"]]["edits"] == 0
    ours = [c for c in server.fake.comments.values() if c["author"] == "github-actions[bot]"]
    assert len(ours) == 1 and ours[0]["body"].startswith(MARKER)
    assert post(server, write_report(tmp_path / "r2")) == 0  # the second run edits ours
    assert ours[0]["edits"] == 1 and server.fake.comments[theirs["id"]]["edits"] == 0


def test_pagination_finds_marker_on_a_later_page(server: FakeServer, tmp_path: Path) -> None:
    for i in range(130):
        server.fake._new_comment(1, f"human comment {i}", author=f"user{i % 7}")
    old = server.fake._new_comment(1, f"{MARKER}\nold report")
    assert post(server, write_report(tmp_path / "r")) == 0
    assert len(server.fake.comments) == 131
    assert server.fake.comments[old["id"]]["edits"] == 1
    pages = [r for r in server.fake.requests if r.method == "GET" and r.path.endswith("/comments")]
    assert len(pages) == 2


def test_github_enterprise_base_url(
    make_server: MakeServer, ghes_spec: OpenApi, tmp_path: Path
) -> None:
    ghe = make_server(ghes_spec, prefix="/api/v3")
    assert ghe.api_url.endswith("/api/v3")
    assert post(ghe, write_report(tmp_path / "r")) == 0
    assert len(ghe.fake.comments) == 1 and len(ghe.fake.statuses) == 1
    assert all(r.path.startswith("/api/v3/repos/") for r in ghe.fake.requests)


def test_token_never_in_logs_or_exceptions(
    server: FakeServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = f"token {TOKEN} does not have the statuses scope"
    server.fake.script += [Scripted(status=403, message=echo) for _ in range(2)]
    assert post(server, write_report(tmp_path / "r")) == 3
    # the same failure straight from the client: the exception text is redacted too
    server.fake.script.append(Scripted(status=403, message=echo))
    client = Github3Client(server.api_url, TOKEN, "octo-org/bench-repo")
    with pytest.raises(GitHubApiError) as info:
        client.list_comments(1)
    assert "***" in str(info.value) and info.value.status == 403
    shown = "".join(traceback.format_exception(info.value))
    out, err = capsys.readouterr()
    assert "does not have the statuses scope" in caplog.text  # the message itself is kept
    for text in (caplog.text, out, err, str(info.value), repr(info.value), shown):
        assert TOKEN not in text


def test_missing_token_is_a_clear_error(
    server: FakeServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    env = actions_env(server)
    del env["GITHUB_TOKEN"]
    assert post(server, write_report(tmp_path / "r"), env=env) == 3
    assert "GITHUB_TOKEN: not set" in caplog.text
    assert server.fake.requests == []


def test_dry_run_prints_and_touches_no_network(server: FakeServer, tmp_path: Path) -> None:
    out = io.StringIO()
    rc = post(server, write_report(tmp_path / "r", "regression", 1), dry_run=True, out=out)
    assert rc == 0
    text = out.getvalue()
    assert f"status on {SHA}: perfgate = failure" in text
    assert MARKER in text and "g1_walk.hot" in text
    assert server.fake.requests == []


def _digest(report_dir: Path) -> str:
    from perfgate.formats.report_files import report_digest

    (report_dir / "report.html").write_text("<html></html>", encoding="utf-8")
    names = ("report.md", "report.html", "verdict.json")
    return report_digest({n: (report_dir / n).read_bytes() for n in names})


def test_report_files_changed_after_the_gate_are_not_posted(
    server: FakeServer, tmp_path: Path
) -> None:
    """--expect-digest: a verdict rewritten after the gate (by a process the benchmarks left
    behind, between the gate and the upload) posts an error, never the forged pass; the
    files the gate wrote post as usual, and a missing digest (no report) is an error."""
    report_dir = write_report(tmp_path / "r", "regression", 1)
    digest = _digest(report_dir)
    genuine = (report_dir / "verdict.json").read_text()
    write_report(report_dir, "pass", 0, "## forged: all fine")
    assert post(server, report_dir, sha=SHA, expect_digest=digest) == 3
    (comment,) = server.fake.comments.values()
    assert "forged" not in comment["body"] and "could not be read" in comment["body"]
    assert [s["state"] for s in server.fake.statuses] == ["error"]
    write_report(report_dir, "regression", 1)
    assert (report_dir / "verdict.json").read_text() == genuine
    assert post(server, report_dir, sha=SHA, expect_digest=digest) == 0
    assert [s["state"] for s in server.fake.statuses][-1] == "failure"
    assert post(server, report_dir, sha=SHA, expect_digest="") == 3
    assert [s["state"] for s in server.fake.statuses][-1] == "error"
