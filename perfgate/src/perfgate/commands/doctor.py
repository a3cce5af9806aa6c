"""`perfgate doctor`: check a project and a runner for the gate.

    perfgate doctor [--repo .] [--asv-config PATH] [--only GROUP,...] [--skip GROUP,...] [--run]

Groups: ``project`` (the policy parses; the asv configuration is found; the parity command
can start; the build mode fits the code: compiled or generated files need ``build =
"pip"``; valgrind runs when ``instruments`` lists ``sim``), ``discovery`` (asv discovers
the suites as the gate will, and the policy's ``blocking``, ``gate_bench`` and
``quick_bench`` regexes each match a benchmark), ``parity`` (the quick parity command,
``quick_parity_command`` else ``parity_command``, run once at HEAD as the gate runs it,
stopped after 10 min: its time, or as a problem its failure with its last lines, or that it
could not be run), ``runner`` (governor, turbo, transparent
hugepages, numactl on NUMA hosts, the gate's pinning plan, CPU isolation) and ``github``
(a workflow calls perfgate's gate.yml; the repository variables its workflows read without
a default exist; the labels the gate uses exist: needs ``GITHUB_TOKEN``). ``--run`` adds
a run of the quick gate's selection once at HEAD (as ``perfgate init`` does): each
benchmark that fails is a problem with asv's error, and so is a selection whose
``min_samples`` rounds do not fit ``quick_budget_minutes`` by the seconds measured.

One line per finding: ``ok: ...``, ``note: ...`` (cannot be verified here, or advice) or
``problem: ...; fix: ...``. Exit codes: 0 no problem, 1 problems found, 3 doctor could not
run (not a git repository, bad arguments).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from perfgate.adopt.doctor.doctor import GROUPS, RUN, DoctorOptions, doctor
from perfgate.adopt.report_lines import Level
from perfgate.errors import UserError

EXIT_PROBLEMS = 1


def add_parser(subparsers: Any) -> None:
    """Register the ``doctor`` subcommand."""
    p = subparsers.add_parser(
        "doctor",
        help="check a project and a runner for the gate, one line per problem (exit 0/1/3)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--repo", type=Path, default=Path("."), help="the project (default .)")
    p.add_argument("--asv-config", type=Path, help="asv.conf.json, relative to the project")
    p.add_argument("--only", help=f"comma-separated groups to run ({','.join(GROUPS)})")
    p.add_argument("--skip", help="comma-separated groups to leave out")
    p.add_argument(
        "--run",
        action="store_true",
        help="also run --quick's benchmarks once at HEAD: broken ones, and whether they fit",
    )
    p.set_defaults(func=run_from_args)


def _groups(only: str | None, skip: str | None) -> tuple[str, ...]:
    chosen = [g.strip() for g in only.split(",")] if only else list(GROUPS)
    dropped = {g.strip() for g in skip.split(",")} if skip else set()
    unknown = (set(chosen) | dropped) - set(GROUPS)
    if unknown:
        raise UserError(f"--only/--skip: unknown group(s) {sorted(unknown)}; groups: {GROUPS}")
    return tuple(g for g in chosen if g not in dropped)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `perfgate.adopt.doctor.doctor`; prints one line per finding."""
    groups = _groups(args.only, args.skip) + ((RUN,) if args.run else ())
    options = DoctorOptions(args.repo, args.asv_config, groups)
    findings = doctor(options)
    for finding in findings:
        print(finding.line())
    problems = sum(f.level is Level.PROBLEM for f in findings)
    print(f"perfgate doctor: {problems} problem(s)" if problems else "perfgate doctor: no problem")
    return EXIT_PROBLEMS if problems else 0
