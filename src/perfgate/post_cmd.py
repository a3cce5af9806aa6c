"""``perfgate post``: publish a gate report directory as a PR comment and a commit status.

The report directory is the contract with ``perfgate gate``: ``report.md`` (the comment
body) and ``verdict.json`` (``{"verdict": "pass|regression|parity_failure|error",
"exit_code": int, "summary": str}``). Exit codes: 0 posted (whatever the verdict: the gate's
own exit code carries it), 3 could not read the report or could not post after retries (the
status is set to "error" when possible, so a broken run never reads as a pass).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from perfgate.github import (
    DEFAULT_COMMENT_AUTHOR,
    VERDICT_EXIT_CODES,
    CommitState,
    GitHubApi,
    GitHubApiError,
    Poster,
    RetryPolicy,
    build_comment,
    client_from_env,
    redact,
    state_for,
    status_description,
)

LOG = logging.getLogger(__name__)
EXIT_OK = 0
EXIT_ERROR = 3


@dataclass(frozen=True)
class Report:
    """A gate report directory, read and checked."""

    markdown: str
    verdict: str
    exit_code: int
    summary: str


def _default_summary(verdict: object, reasons: object) -> str:
    """Summary when verdict.json has none: the first reason, else the verdict name."""
    if isinstance(reasons, list) and reasons and isinstance(reasons[0], str):
        return f"{verdict}: {reasons[0]}"
    return f"perfgate: {verdict}"


def read_report(report_dir: Path, expect_head: str | None = None) -> Report:
    """Read ``report.md`` + ``verdict.json``; ``ValueError`` names what is missing or wrong.

    With ``expect_head``, a verdict.json that names another head commit is refused: a stale
    artifact (or one from another run) must never set the status of the commit posted to.
    """
    try:
        markdown = (report_dir / "report.md").read_text(encoding="utf-8")
        raw = (report_dir / "verdict.json").read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"report dir {report_dir}: {exc.strerror}: {exc.filename}") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{report_dir / 'verdict.json'}: invalid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{report_dir / 'verdict.json'}: expected a JSON object")
    verdict, code = data.get("verdict"), data.get("exit_code")
    verdict = verdict.lower() if isinstance(verdict, str) else verdict  # "PASS" == "pass"
    summary = data.get("summary", _default_summary(verdict, data.get("reasons")))
    if verdict not in VERDICT_EXIT_CODES:
        raise ValueError(
            f"verdict.json verdict {verdict!r}: expected {sorted(VERDICT_EXIT_CODES)}"
        )
    if not isinstance(code, int) or isinstance(code, bool):
        raise ValueError(f"verdict.json exit_code {code!r}: expected an int")
    if not isinstance(summary, str):
        raise ValueError(f"verdict.json summary {summary!r}: expected a string")
    head = data.get("head")
    if expect_head and not isinstance(head, str):
        raise ValueError(
            f"verdict.json head {head!r}: expected the commit the report is for "
            f"({expect_head[:40]}); a report that does not name its commit is never posted"
        )
    if expect_head and head != expect_head:
        raise ValueError(
            f"verdict.json head {str(head)[:40]!r} is not the commit posted to "
            f"({expect_head[:40]}): a stale or foreign report"
        )
    if VERDICT_EXIT_CODES[verdict] != code:
        raise ValueError(
            f"verdict.json: verdict {verdict!r} expects exit_code "
            f"{VERDICT_EXIT_CODES[verdict]}, got {code}"
        )
    return Report(markdown, verdict, code, summary)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``perfgate post`` on an argparse subparsers object."""
    parser = subparsers.add_parser(
        "post",
        help="post a gate report as a sticky PR comment and a 'perfgate' commit status",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pr", type=int, required=True, help="pull request number")
    parser.add_argument(
        "--report-dir", type=Path, required=True, help="directory with report.md, verdict.json"
    )
    parser.add_argument("--sha", help="head commit SHA (default: $GITHUB_SHA)")
    parser.add_argument("--report-url", help="link to the full HTML report (status target)")
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would be posted; no network"
    )
    parser.add_argument(
        "--comment-author",
        help="login whose marker comment is updated (default: $PERFGATE_COMMENT_AUTHOR, "
        f"else {DEFAULT_COMMENT_AUTHOR})",
    )
    parser.set_defaults(func=run_from_args)
    return parser


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> :func:`run`."""
    return run(
        pr=args.pr,
        report_dir=args.report_dir,
        sha=args.sha,
        report_url=args.report_url,
        dry_run=args.dry_run,
        comment_author=args.comment_author,
    )


def _print_dry_run(
    out: TextIO, pr: int, sha: str | None, body: str, state: str, desc: str
) -> None:
    out.write(f"[dry-run] status on {sha or '<no sha>'}: perfgate = {state}: {desc}\n")
    out.write(f"[dry-run] sticky comment on #{pr} ({len(body)} characters):\n{body}")


def _load(report_dir: Path, sha: str | None) -> Report | None:
    """The report, or None (logged) when it cannot be read: then an error is posted."""
    try:
        return read_report(report_dir, expect_head=sha)
    except ValueError as exc:
        LOG.error("perfgate post: %s", exc)
        return None


def _planned_post(report: Report | None, report_url: str | None) -> tuple[CommitState, str, str]:
    """(state, summary, comment body) for ``report``; a missing report is an error."""
    if report is None:
        summary = "perfgate: the gate report could not be read"
        return (
            CommitState.ERROR,
            summary,
            build_comment(f"**perfgate error:** {summary}.", report_url),
        )
    return state_for(report.verdict), report.summary, build_comment(report.markdown, report_url)


def run(
    *,
    pr: int,
    report_dir: Path,
    sha: str | None = None,
    report_url: str | None = None,
    dry_run: bool = False,
    comment_author: str | None = None,
    env: Mapping[str, str] | None = None,
    api: GitHubApi | None = None,
    policy: RetryPolicy | None = None,
    sleep: Callable[[float], None] = time.sleep,
    out: TextIO | None = None,
) -> int:
    """Post the report in ``report_dir``; returns 0 or 3 (see the module docstring)."""
    env = os.environ if env is None else env
    out = sys.stdout if out is None else out
    sha = sha or env.get("GITHUB_SHA") or None
    secrets = (env.get("GITHUB_TOKEN", ""),)
    report = _load(report_dir, sha)
    state, summary, body = _planned_post(report, report_url)
    if dry_run:
        _print_dry_run(out, pr, sha, body, state.value, status_description(summary))
        return EXIT_OK if report is not None else EXIT_ERROR
    if not sha:
        LOG.error("perfgate post: no head SHA; pass --sha or set GITHUB_SHA")
        return EXIT_ERROR
    try:
        author = comment_author or env.get("PERFGATE_COMMENT_AUTHOR") or DEFAULT_COMMENT_AUTHOR
        poster = Poster(api or client_from_env(env), policy, sleep, author=author)
    except ValueError as exc:
        LOG.error("perfgate post: %s", redact(str(exc), secrets))
        return EXIT_ERROR
    return _post(poster, pr, sha, report_url, body, state, summary, report is not None, out)


def _post(
    poster: Poster,
    pr: int,
    sha: str,
    report_url: str | None,
    body: str,
    state: CommitState,
    summary: str,
    report_ok: bool,
    out: TextIO,
) -> int:
    """Comment, then status; on failure try to leave an "error" status, return 3."""
    try:
        comment, created = poster.upsert_comment(pr, body)
        poster.set_status(sha, state, summary, report_url)
    except GitHubApiError as exc:
        LOG.error("perfgate post: posting failed: %s", exc)
        try:
            poster.set_status(sha, CommitState.ERROR, "perfgate: posting failed", report_url)
        except GitHubApiError as again:
            LOG.error("perfgate post: could not set the error status either: %s", again)
        return EXIT_ERROR
    action = "created" if created else "updated"
    out.write(
        f"perfgate post: {action} comment {comment.id} on #{pr}; "
        f"status {state.value} on {sha[:12]}\n"
    )
    return EXIT_OK if report_ok else EXIT_ERROR
