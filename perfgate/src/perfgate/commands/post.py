"""``perfgate post``: publish a gate report directory as a PR comment and a commit status.

The report directory is the contract with ``perfgate gate``: ``report.md`` (the comment
body) and ``verdict.json`` (``{"verdict": "pass|regression|parity_failure|error",
"exit_code": int, "summary": str}``). Exit codes: 0 posted (whatever the verdict: the gate's
own exit code carries it), 3 could not read the report or could not post after retries (the
status is set to "error" when possible, so a broken run never reads as a pass).

``--expect-digest DIGEST`` (the report digest ``perfgate gate --digest-output`` recorded):
report files that are not the ones the gate wrote are not posted; the status is "error".

``--pending --sha SHA`` only sets the status to pending (at the start of the gate run).
``--accept-label perf-regression-accepted``: a stable regression whose pull request carries
the label, applied by a user with write access (the issue events API names who applied it,
the collaborator permission endpoint says what they may do), is posted as success "accepted
by @user", noted in the comment, and written to ``--acceptance-record`` for the history.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from perfgate.acceptance import ACCEPT_LABEL
from perfgate.cli_args import positive_int
from perfgate.errors import UserError
from perfgate.gate.publish import AcceptOptions, post_pending, post_report
from perfgate.github import DEFAULT_COMMENT_AUTHOR, STATUS_CONTEXT


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``perfgate post`` on an argparse subparsers object."""
    parser = subparsers.add_parser(
        "post",
        help="post a gate report as a sticky PR comment and a 'perfgate' commit status",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pr", type=positive_int, required=True, help="pull request number")
    parser.add_argument(
        "--report-dir", type=Path, help="directory with report.md, verdict.json (required)"
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
    parser.add_argument(
        "--accept-label",
        help=f"a stable regression with this label (e.g. {ACCEPT_LABEL}), applied by a user "
        "with write access, is posted as success 'accepted by @user'",
    )
    parser.add_argument(
        "--acceptance-record", type=Path, help="write the acceptance (JSON) here when accepted"
    )
    parser.add_argument(
        "--expect-digest",
        help="the gate's report digest (perfgate gate --digest-output): report files that "
        "differ, or an empty digest, are posted as an error instead",
    )
    parser.add_argument(
        "--context",
        type=_context,
        default=STATUS_CONTEXT,
        help=f"the commit status to set and the comment to keep (default {STATUS_CONTEXT}; "
        "e.g. perfgate-sim for the hosted sim job, whose comment is its own)",
    )
    parser.add_argument(
        "--pending", action="store_true", help="only set the status to pending (gate running)"
    )
    parser.add_argument(
        "--clear-label",
        help="with --pending: take this label off --pr first (a new push: an acceptance "
        f"label such as {ACCEPT_LABEL} covers only the head it was applied for)",
    )
    parser.set_defaults(func=run_from_args)
    return parser


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `perfgate.gate.publish.post_report` (or `post_pending`)."""
    if args.pending:
        if not args.sha:
            raise UserError("--pending needs --sha")
        clear = (args.pr, args.clear_label) if args.clear_label else None
        return post_pending(sha=args.sha, report_url=args.report_url, clear_label=clear)
    if args.report_dir is None:
        raise UserError("--report-dir is required")
    accept = None
    if args.accept_label:
        accept = AcceptOptions(args.accept_label, args.acceptance_record)
    return post_report(
        pr=args.pr,
        report_dir=args.report_dir,
        sha=args.sha,
        report_url=args.report_url,
        dry_run=args.dry_run,
        comment_author=args.comment_author,
        accept=accept,
        expect_digest=args.expect_digest,
        context=args.context,
    )


def _context(text: str) -> str:
    """A commit status context: lowercase letters, digits and dashes, starting with a letter."""
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,38}", text):
        raise argparse.ArgumentTypeError(
            f"expected a status name of lowercase letters, digits and dashes, got {text!r}"
        )
    return text
