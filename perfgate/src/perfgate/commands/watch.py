"""`perfgate watch`: change points in the stored history of main, and one issue per
regression. The command's help is `DESCRIPTION` (also docs/watch.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from perfgate import cli_args, project
from perfgate.github import GitHubApiError
from perfgate.history.branch import HistoryError
from perfgate.secrets import redact_url
from perfgate.verdict import EXIT_ERROR
from perfgate.watch.service import WatchOptions, watch

#: the command's help (``perfgate watch --help``)
DESCRIPTION = """`perfgate watch`: change points in the stored history of main, and one issue per
regression.

    perfgate watch [--results DIR] [--repo .] [--ref HEAD] [--config FILE]
                   [--remote origin] [--branch perf-results] [--no-state]
                   [--alert-suspected] [--dry-run] [--json]
                   [--dashboard-url URL] [--issue-author LOGIN]
                   [--confirm | --bisect] [--machine NAME] [--budget-minutes M]
                   [--max-steps N] [--work-dir DIR] [--no-alerts]

Reads an asv results directory (``perfgate history export`` writes one from the
``perf-results`` branch), orders its commits by ``--ref``'s first-parent history, finds the
change points of every case on every machine (`perfgate.watch`), and keeps the state of each
change (status, issue, bisection progress) under ``watch/`` on the branch, so a re-run or
another machine continues.

``--confirm`` re-measures each suspected regression of this machine (``--machine``, as the
results name it; default the gate's fingerprint id) with the gate's paired, interleaved A/B
rounds of the one case: last good measured commit A against first bad measured commit B.
Stably worse (the gate's rule) -> confirmed; not worse -> not-confirmed (dropped); undecided
-> still suspected. ``--bisect`` also bisects each confirmed range with A/B probes (A against
the middle commit) to the first commit stably worse than A, and names it and its pull
request (bisected). The run spends at most ``--budget-minutes`` (``watch_budget_minutes``)
and ``--max-steps`` probes per change (``watch_max_steps``); a bisection stopped by the budget
or by an undecided probe stays confirmed with the range narrowed so far, and the next run
continues from it. Run it on the pinned runner of that machine; ``--no-alerts`` records the
results and posts nothing, for a workflow whose alerts come from one job after every machine's.

Regressions are alerted once confirmed or bisected (``--alert-suspected``: already when
suspected); an issue is updated, never duplicated, and closed when a later change recovers
(or when the re-measurement does not confirm it). ``--dry-run`` measures, posts and records
nothing and prints the probes it would run and what it would post. ``--json`` prints the
changes as a list of records (``status``: suspected, confirmed, bisected, recovered,
not-confirmed).

GitHub: ``GITHUB_TOKEN`` (issues: write), ``GITHUB_REPOSITORY``, ``GITHUB_API_URL``;
``GITHUB_SERVER_URL`` for the commit links. Exit codes: 0 the history was analysed and every
alert handled (or printed); 3 error (unreadable results or state, results none of whose
commits is in ``--ref``'s first-parent history, git or GitHub failing, bad configuration).
Stored commits outside that history are left out, named in a warning. A regression on main
does not fail the run: it is an issue, not a red check.
"""


def add_parser(subparsers: Any) -> None:
    """Register the ``watch`` subcommand."""
    p = subparsers.add_parser(
        "watch",
        help="change points in the stored history of main; issues per regression (exit 0/3)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--results", type=Path, help="asv results dir (default: results_dir of asv.conf.json)"
    )
    p.add_argument("--repo", type=Path, default=Path("."), help="git repository (default .)")
    p.add_argument("--ref", default="HEAD", help="history to follow, first parents (HEAD)")
    p.add_argument(
        "--config",
        type=Path,
        help="[tool.perfgate] (default: the repository's perfgate.toml or " "pyproject.toml)",
    )
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
    probes = p.add_mutually_exclusive_group()
    probes.add_argument(
        "--confirm", action="store_true", help="re-measure suspected regressions (A/B)"
    )
    probes.add_argument(
        "--bisect", action="store_true", help="re-measure, then bisect confirmed ranges"
    )
    p.add_argument("--machine", help="asv machine name of this runner (default: fingerprint id)")
    p.add_argument(
        "--budget-minutes",
        type=cli_args.minutes,
        help="minutes of A/B probes in this run (watch_budget_minutes)",
    )
    p.add_argument(
        "--max-steps",
        type=cli_args.positive_int,
        help="A/B probes per change and run (watch_max_steps)",
    )
    p.add_argument(
        "--work-dir", type=Path, help="the probes' gate runs (default <repo>/.perfgate)"
    )
    p.add_argument("--no-alerts", action="store_true", help="record the state; post no issue")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `perfgate.watch.service.watch`; git and GitHub failures exit 3."""
    options = WatchOptions(
        results=args.results or project.results_dir(args.repo),
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
        confirm=args.confirm,
        bisect=args.bisect,
        machine=args.machine,
        budget_minutes=args.budget_minutes,
        max_steps=args.max_steps,
        work_dir=args.work_dir,
        alerts=not args.no_alerts,
    )
    try:
        return watch(options)
    except (HistoryError, GitHubApiError, ValueError) as exc:
        print(f"perfgate watch: error: {redact_url(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
