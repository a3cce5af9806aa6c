"""The publish stage: the report folder on disk, and the report posted to the pull request
(a sticky comment and the ``perfgate`` commit status).

Everything that leaves the process here is redacted first (``secrets.Redactor``: the
secrets of the environment in every escaped and encoded form), before any truncation: the
report files, the printed report, the comment body, the status description and target URL,
the dry-run output and the log messages.
"""

from __future__ import annotations

import datetime as _dt
import logging
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from perfgate import acceptance as acceptance_mod
from perfgate.atomic import write_json_atomic, write_text_atomic
from perfgate.formats import report_files
from perfgate.formats.report_files import ReportFiles
from perfgate.github import (
    DEFAULT_COMMENT_AUTHOR,
    STATUS_CONTEXT,
    GitHubApi,
    GitHubApiError,
    Poster,
    build_comment,
    client_from_env,
    marker_for,
    status_description,
)
from perfgate.report import attribution, render
from perfgate.retry import RetryPolicy
from perfgate.secrets import Redactor, redact_env
from perfgate.verdict import EXIT_ERROR, EXIT_OK, CommitState, GateVerdict, state_for

LOG = logging.getLogger(__name__)
REGRESSION = GateVerdict.REGRESSION.json_name


def write_reports(folder: Path, report: render.Report, markdown: str) -> str:
    """Write report.md, report.html and verdict.json as new files, redacted, and the
    attributed sim cases' files (flame graphs, kernel code diffs) in ``attribution/``;
    return the report digest (`perfgate.formats.report_files`)."""
    redactor = Redactor.from_env(os.environ)
    html = redactor.text(render.render_html(report))
    document = render.verdict_json(report)
    verdict = redactor.value(document, keep=report_files.field_names(document))
    digest = report_files.write_reports(folder, redactor.text(markdown), html, verdict)
    for name, text in attribution.artifact_files(report.attribution).items():
        write_text_atomic(folder / name, redactor.text(text))  # makes its folder
    return digest


def replace_reports(folder: Path, report: render.Report, markdown: str) -> str:
    """Move an earlier report to ``previous/<time>/``, then write this one; its digest."""
    report_files.archive_previous(folder)
    return write_reports(folder, report, markdown)


def record_digest(path: Path, digest: str) -> None:
    """Append ``report-digest=<digest>`` to ``path``, a CI step-output file (GitHub's
    ``$GITHUB_OUTPUT``: ``name=value`` lines), so that a later job can check the files it
    is given against what the gate wrote, whatever happened to them on disk since."""
    with path.open("a", encoding="utf-8") as out:
        out.write(f"report-digest={digest}\n")


def _load(
    report_dir: Path, sha: str | None, redactor: Redactor, digest: str | None = None
) -> ReportFiles | None:
    """The report, or None (logged) when it cannot be read or is not the one the gate wrote
    (``digest``): then an error is posted."""
    try:
        return report_files.read_report(report_dir, expect_head=sha, expect_digest=digest)
    except ValueError as exc:
        LOG.error("perfgate post: %s", redactor.text(str(exc)))
        return None


def _planned_post(
    report: ReportFiles | None, report_url: str | None, marker: str
) -> tuple[CommitState, str, str]:
    """(state, summary, comment body) for ``report``; a missing report is an error."""
    if report is None:
        summary = "perfgate: the gate report could not be read"
        text = f"**perfgate error:** {summary}."
        return CommitState.ERROR, summary, build_comment(text, report_url, marker=marker)
    body = build_comment(report.markdown, report_url, marker=marker)
    return state_for(report.verdict), report.summary, body


def _print_dry_run(
    out: TextIO, pr: int, sha: str | None, body: str, state: str, desc: str, context: str
) -> None:
    out.write(f"[dry-run] status on {sha or '<no sha>'}: {context} = {state}: {desc}\n")
    out.write(f"[dry-run] sticky comment on #{pr} ({len(body)} characters):\n{body}")


def post_report(
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
    accept: AcceptOptions | None = None,
    expect_digest: str | None = None,
    context: str = STATUS_CONTEXT,
) -> int:
    """Post the report in ``report_dir``; 0 posted, 3 not (see ``perfgate post``).

    ``expect_digest``: the gate's report digest; other files are posted as an error.
    ``context``: the commit status set and the comment kept (`github.marker_for`).
    """
    env = os.environ if env is None else env
    out = sys.stdout if out is None else out
    sha = sha or env.get("GITHUB_SHA") or None
    redactor = Redactor.from_env(env, (env.get("GITHUB_TOKEN", ""),))
    report = _redacted(_load(report_dir, sha, redactor, expect_digest), redactor)
    report_url = redactor.text(report_url) if report_url else report_url
    state, summary, body = _planned_post(report, report_url, marker_for(context))
    if dry_run:
        desc = status_description(summary)
        _print_dry_run(out, pr, sha, body, state.value, desc, context)
        return EXIT_OK if report is not None else EXIT_ERROR
    if not sha:
        LOG.error("perfgate post: no head SHA; pass --sha or set GITHUB_SHA")
        return EXIT_ERROR
    try:
        author = comment_author or env.get("PERFGATE_COMMENT_AUTHOR") or DEFAULT_COMMENT_AUTHOR
        poster = Poster(api or client_from_env(env), policy, sleep, author=author, context=context)
    except ValueError as exc:
        LOG.error("perfgate post: %s", redactor.text(str(exc)))
        return EXIT_ERROR
    if accept is not None and report is not None and report.verdict == REGRESSION:
        state, summary, body = _accepted(poster, pr, sha, accept, (state, summary, body))
    return _post(poster, pr, sha, report_url, body, state, summary, report is not None, out)


def _redacted(report: ReportFiles | None, redactor: Redactor) -> ReportFiles | None:
    """``report`` with its markdown and summary redacted (before any shortening)."""
    if report is None:
        return None
    return replace(
        report, markdown=redactor.text(report.markdown), summary=redactor.text(report.summary)
    )


@dataclass(frozen=True)
class AcceptOptions:
    """The override label to honour, and where to write the acceptance record."""

    label: str
    record: Path | None = None


def _accepted(
    poster: Poster, pr: int, sha: str, accept: AcceptOptions, plan: tuple[CommitState, str, str]
) -> tuple[CommitState, str, str]:
    """``plan`` (state, summary, body) of a stable regression after the label check: success
    "accepted by @user" when a user with write access applied it, else unchanged (noted in
    the comment when a user without write access applied it). A failed check accepts
    nothing."""
    state, summary, body = plan
    try:
        acceptance = poster.acceptance(pr, accept.label)
    except GitHubApiError as exc:
        LOG.error("perfgate post: cannot check label %s: %s", accept.label, exc)
        return plan
    body += acceptance_mod.comment_note(acceptance, accept.label)
    if not acceptance.accepted:
        return state, summary, body
    if accept.record is not None:
        now = _dt.datetime.now(_dt.UTC)
        doc = acceptance_mod.acceptance_record(acceptance, pr, sha, summary, accept.label, now)
        write_json_atomic(accept.record, doc)
    return CommitState.SUCCESS, acceptance_mod.status_summary(acceptance, summary), body


def post_pending(
    *, sha: str, report_url: str | None = None, env: Mapping[str, str] | None = None,
    api: GitHubApi | None = None, policy: RetryPolicy | None = None,
    clear_label: tuple[int, str] | None = None,
) -> int:  # fmt: skip
    """Set the ``perfgate`` status of ``sha`` to pending (the gate is running); 0 or 3.

    ``clear_label`` (pull request, label) is taken off first: an acceptance label applied
    for an earlier head must not accept what a new push measures.
    """
    env = os.environ if env is None else env
    try:
        poster = Poster(api or client_from_env(env), policy)
        if clear_label is not None:
            poster.clear_label(*clear_label)
        poster.set_status(sha, CommitState.PENDING, f"measuring {sha[:12]}", report_url)
    except (ValueError, GitHubApiError) as exc:
        LOG.error("perfgate post --pending: %s", redact_env(str(exc), env))
        return EXIT_ERROR
    return EXIT_OK


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
