"""`perfgate watch`: change points in the stored history of main, and one issue per regression.

    perfgate watch [--results .asv/results] [--repo .] [--ref HEAD] [--config pyproject.toml]
                   [--remote origin] [--branch perf-results] [--no-state]
                   [--alert-suspected] [--dry-run] [--json]
                   [--dashboard-url URL] [--issue-author LOGIN]

Reads an asv results directory (``perfgate history export`` writes one from the
``perf-results`` branch), orders its commits by ``--ref``'s first-parent history, finds the
change points of every case on every machine (`perfgate.watch`), and keeps the state of each
change (status, issue) under ``watch/`` on the branch, so a re-run or another machine
continues. Regressions are alerted once confirmed or bisected (steps not built yet: until
then only ``--alert-suspected`` opens issues); an issue is updated, never duplicated, and
closed when a later change recovers. ``--dry-run`` posts and records nothing and prints what
it would post. ``--json`` prints the changes as a list of records.

GitHub: ``GITHUB_TOKEN`` (issues: write), ``GITHUB_REPOSITORY``, ``GITHUB_API_URL``;
``GITHUB_SERVER_URL`` for the commit links. Exit codes: 0 the history was analysed and every
alert handled (or printed); 3 error (unreadable results or state, git or GitHub failing, bad
configuration). A regression on main does not fail the run: it is an issue, not a red check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from perfgate.github import GitHubApiError
from perfgate.history.branch import HistoryError
from perfgate.secrets import redact_url
from perfgate.verdict import EXIT_ERROR
from perfgate.watch.service import WatchOptions, watch


def add_parser(subparsers: Any) -> None:
    """Register the ``watch`` subcommand."""
    p = subparsers.add_parser(
        "watch",
        help="change points in the stored history of main; issues per regression (exit 0/3)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--results", type=Path, default=Path(".asv/results"), help="asv results dir")
    p.add_argument("--repo", type=Path, default=Path("."), help="git repository (default .)")
    p.add_argument("--ref", default="HEAD", help="history to follow, first parents (HEAD)")
    p.add_argument("--config", type=Path, default=Path("pyproject.toml"), help="[tool.perfgate]")
    p.add_argument("--remote", default="origin", help="remote holding the state branch")
    p.add_argument("--branch", default="perf-results", help="state branch (perf-results)")
    p.add_argument("--no-state", action="store_true", help="read and record no state")
    p.add_argument(
        "--alert-suspected", action="store_true", help="open issues for suspected regressions"
    )
    p.add_argument("--dry-run", action="store_true", help="post and record nothing; print")
    p.add_argument("--json", action="store_true", help="print the changes as JSON records")
    p.add_argument("--dashboard-url", help="root URL of the published asv dashboard")
    p.add_argument("--issue-author", help="login that opens the issues (github-actions[bot])")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `perfgate.watch.service.watch`; git and GitHub failures exit 3."""
    options = WatchOptions(
        results=args.results,
        repo=args.repo,
        ref=args.ref,
        config=args.config,
        remote=args.remote,
        branch=args.branch,
        use_state=not args.no_state,
        alert_suspected=args.alert_suspected,
        dry_run=args.dry_run,
        as_json=args.json,
        dashboard_url=args.dashboard_url,
        issue_author=args.issue_author,
    )
    try:
        return watch(options)
    except (HistoryError, GitHubApiError, ValueError) as exc:
        print(f"perfgate watch: error: {redact_url(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
