"""`perfgate history`: per-commit asv results on the append-only ``perf-results`` branch.
The command's help is `DESCRIPTION`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from perfgate import project
from perfgate.calibration.stored import append_noise
from perfgate.cli_args import delay_seconds, int_in, minutes, positive_int, share
from perfgate.errors import UserError
from perfgate.history.acceptances import append_acceptance
from perfgate.history.append import HISTORY_RETRY, append
from perfgate.history.branch import HistoryError
from perfgate.history.export import export, pending, plan_run
from perfgate.history.measured import read_hashfile
from perfgate.retry import RetryPolicy
from perfgate.secrets import redact_url

EXIT_FAILED = 1
#: Usage errors of this command exit 2 (the history workflows' contract), not 3.
USAGE_EXIT = 2
_COMMANDS = (
    ("append", "append a results dir"),
    ("export", "write the branch out"),
    ("pending", "print the commits a run should measure, newest first"),
    ("append-noise", "store a calibrated noise file and its digest"),
    ("append-acceptance", "record an accepted regression"),
    ("plan", "plan a run's minutes and shards before it starts"),
)


#: the command's help (``perfgate history --help``)
DESCRIPTION = """`perfgate history`: per-commit asv results on the append-only ``perf-results``
branch.

    perfgate history append  [--repo R] [--remote O] [--branch B] [--results DIR]
                             [--attempts N] [--retry-delay S] [--suite-ref REF]
                             [--measured HASHFILE]
    perfgate history export  [--repo R] [--remote O] [--branch B] [--dest DIR] [--ref REF]
    perfgate history pending --machine M [--repo R] [--remote O] [--branch B] [--ref REF]
                             [--max-commits N]
    perfgate history append-noise --file NOISE.json [--repo R] [--remote O] [--branch B]
    perfgate history append-acceptance --file RECORD.json [--repo R] [--remote O] [--branch B]
    perfgate history plan    --machine M [--machine M2 ...] --timeout-minutes T [--ref REF]
                             [--max-commits N] [--headroom H] [--json | --matrix]

``append`` adds a run's result files to the branch (never overwriting a result; a damaged
file already on the branch is moved to ``quarantine/`` with a record of why); with
``--measured`` (the run's asv HASHFILE) a results dir without a result of any measured
commit is an error and nothing is appended, and a run missing some of them appends the
others and exits 1 naming the missing ones. ``export``
writes the branch out for ``asv publish``, ``pending`` prints the commits a run on one machine
should measure, newest first (see `perfgate.history`); ``append-noise`` stores a
``perfgate calibrate`` file with its content digest under ``noise/<machine>/``, where the
gate reads floors from (`perfgate.calibration.stored`; only the history workflow on main may
run it); ``append-acceptance`` records a regression accepted with the override label
(``acceptances/<pr>-<head>.json``, `perfgate.history.acceptances`); ``plan`` plans a run
before it starts: per machine, the commits ``pending`` lists, the expected minutes from the
machine's newest stored asv durations, and the shards (commits and ``--bench`` groups) that
fit ``--timeout-minutes`` times ``--headroom`` on runners of that machine class
(`perfgate.history.plan`); ``--matrix`` prints them as a GitHub Actions matrix (one line of
JSON). Exit codes: 0 success, 1 error (message on stderr), 2 usage.
"""


def add_parser(subparsers: Any) -> None:
    """Register ``history`` and its ``append``, ``export`` and ``pending`` subcommands."""
    parser = subparsers.add_parser(
        "history",
        help="perf-results branch: append, export, pending commits (exit 0/1/2)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.usage_exit_code = USAGE_EXIT
    sub = parser.add_subparsers(dest="history_command", required=True)
    for name, text in _COMMANDS:
        p = sub.add_parser(name, help=text)
        p.usage_exit_code = USAGE_EXIT
        p.add_argument("--repo", type=Path, default=Path("."), help="git repository (default .)")
        p.add_argument("--remote", default="origin", help="remote name or URL (default origin)")
        p.add_argument("--branch", default="perf-results", help="history branch")
    append_p, export_p, pending_p, noise_p, accept_p, plan_p = (
        sub.choices[n] for n, _ in _COMMANDS
    )
    noise_p.add_argument("--file", type=Path, required=True, help="a perfgate calibrate file")
    accept_p.add_argument("--file", type=Path, required=True, help="a perfgate post record")
    append_p.add_argument(
        "--results", type=Path, help="asv results dir (default: results_dir of asv.conf.json)"
    )
    attempts = int_in(1, 100, "attempts")
    append_p.add_argument("--attempts", type=attempts, default=HISTORY_RETRY.attempts)
    append_p.add_argument("--retry-delay", type=delay_seconds, default=HISTORY_RETRY.base_delay)
    append_p.add_argument(
        "--suite-ref", default="HEAD", help="commit the run discovered its suites at (HEAD)"
    )
    append_p.add_argument(
        "--measured", type=Path, help="the run's asv HASHFILE: each commit must have a result"
    )
    export_p.add_argument(
        "--dest", type=Path, help="asv results dir (default: results_dir of asv.conf.json)"
    )
    export_p.add_argument("--ref", default="HEAD", help="history whose newest suite is used")
    pending_p.add_argument("--machine", required=True, help="asv machine name")
    pending_p.add_argument("--ref", default="HEAD", help="the commit the run is for (HEAD)")
    pending_p.add_argument("--max-commits", type=positive_int, default=1, help="cap (default 1)")
    _add_plan_args(plan_p)
    parser.set_defaults(func=run_from_args)


def _add_plan_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--machine", action="append", required=True, help="asv machine (repeatable)")
    p.add_argument("--ref", default="HEAD", help="the commit the run is for (HEAD)")
    p.add_argument("--max-commits", type=positive_int, default=1, help="cap (default 1)")
    p.add_argument("--timeout-minutes", type=minutes, required=True, help="the job's timeout")
    p.add_argument("--headroom", type=share, default=0.75, help="share of it to plan (0.75)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="the plans as JSON")
    out.add_argument("--matrix", action="store_true", help="one line: the shards as a matrix")


def _plan(args: argparse.Namespace) -> None:
    if args.headroom > 1:
        raise UserError(f"--headroom: expected a share of the timeout (0-1], got {args.headroom}")
    plans = [
        plan_run(
            args.repo, args.remote, args.branch, machine, args.ref, args.max_commits,
            args.timeout_minutes * 60, args.headroom,
        )
        for machine in dict.fromkeys(args.machine)
    ]  # fmt: skip
    include = [entry for plan in plans for entry in plan.matrix()]
    if args.matrix:
        print(json.dumps({"include": include}, separators=(",", ":")))
    elif args.json:
        print(
            json.dumps({"plans": [p.to_json() for p in plans], "shards": len(include)}, indent=1)
        )
    else:
        for plan in plans:
            minutes = "unknown" if plan.expected_s is None else f"{plan.expected_s / 60:.1f}"
            shards = f"{len(plan.shards)} shard(s) of at most {plan.capacity_s / 60:.1f} min"
            print(f"{plan.machine}: {len(plan.commits)} commit(s), {minutes} minutes expected, "
                  f"{shards} ({plan.basis})")  # fmt: skip
            for entry in plan.matrix():
                print(f"  {entry['shard']}: {entry['hashes']} {entry['bench'] or '(all)'}")


def run_from_args(args: argparse.Namespace) -> int:
    """Carry out one parsed history command; 0, or 1 with the (redacted) error on stderr."""
    try:
        return _run(args)
    except (HistoryError, ValueError, UserError, OSError) as exc:
        print(f"error: {redact_url(str(exc))}", file=sys.stderr)
        return EXIT_FAILED


def _append(args: argparse.Namespace) -> int:
    """``history append``: 1 when a ``--measured`` commit has no result (the rest stored)."""
    policy = RetryPolicy(args.attempts, args.retry_delay, max(30.0, args.retry_delay))
    results = args.results or project.results_dir(args.repo)
    measured = read_hashfile(args.measured) if args.measured is not None else None
    report = append(
        args.repo, results, args.remote, args.branch, policy, suite_ref=args.suite_ref,
        measured=measured,
    )  # fmt: skip
    for change in report.changes:
        print(f"{change.action.value:12} {change.target}")
    where = f"{redact_url(args.remote)}/{args.branch}"
    done = f"pushed {report.commit}" if report.commit else "nothing new"
    print(f"{done} to {where} (attempts: {report.attempts})")
    if report.missing:
        named = ", ".join(c[:12] for c in report.missing)
        print(
            f"error: no result of the measured commit(s) {named} under {results} "
            f"(the other commits were appended)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return 0


def _run(args: argparse.Namespace) -> int:
    """Carry out one parsed command, printing its outcome on stdout; its exit code."""
    if args.history_command == "append":
        return _append(args)
    elif args.history_command in ("append-noise", "append-acceptance"):
        adder = append_noise if args.history_command == "append-noise" else append_acceptance
        report = adder(args.repo, args.file, args.remote, args.branch)
        for change in report.changes:
            print(f"{change.action.value:12} {change.target}")
        done = f"pushed {report.commit}" if report.commit else "nothing new"
        print(f"{done} to {redact_url(args.remote)}/{args.branch}")
    elif args.history_command == "plan":
        _plan(args)
    elif args.history_command == "export":
        dest = args.dest or project.results_dir(args.repo)
        if dest.exists() and not dest.is_dir():
            raise HistoryError(f"--dest: {dest} is a file; expected a directory (asv results)")
        for path, state in export(args.repo, args.remote, args.branch, dest, args.ref).items():
            print(f"{state:10} {path}")
    else:
        commits = pending(
            args.repo, args.remote, args.branch, args.machine, args.ref, args.max_commits
        )
        print("\n".join(commits))
    return 0
