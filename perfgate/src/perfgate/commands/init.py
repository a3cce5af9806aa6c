"""`perfgate init`: set the gate up in an existing asv project.

    perfgate init [--repo .] [--asv-config PATH] [--force] [--no-workflows] [--no-measure]
                  [--parity-minutes M] [--workflow-ref REF] [--perfgate SPEC]
                  [--runner-labels JSON]

Finds the project's asv configuration (asv.conf.json at the root or in ``benchmarks/``, or
``--asv-config``), reads its benchmarks with asv's discovery (HEAD, as the gate will see
it: built first when its code needs a build), and writes a commented policy: the families
found and the blocking ones, thresholds (asv's ``regressions_thresholds`` where it has
them), how each side is built, and the parity command it could find (or a placeholder
``perfgate doctor`` names). The policy goes into pyproject.toml as ``[tool.perfgate]``, or
into ``perfgate.toml`` where there is no pyproject.toml (or one exists already). With it,
two workflow files call perfgate's reusable gate (``.github/workflows/perfgate.yml`` and
``perfgate-fork.yml``, pinned to ``--workflow-ref``).

Unless ``--no-measure``, each parity command about to be written (the quick subset, then
the full command) is run once at HEAD as the gate's parity stage runs it, each stopped after
``--parity-minutes`` (default 10): only one seen to pass is written, with its seconds
(``parity_s``, ``quick_parity_s`` of ``[tool.perfgate.costs]``); one that failed or was
stopped is written commented out with its own last lines (redacted), and a full command
that did not pass leaves the placeholder in its place. The suite is then run once at HEAD
as the quick gate will run it (progress printed per benchmark): benchmarks that fail are
reported with asv's error and left out of the quick selection, which is the blocking
benchmarks whose rounds its measured costs say fit in half of ``quick_budget_minutes``
(raised when not even one fits); the measured costs are written as
``[tool.perfgate.costs]`` for ``perfgate gate --plan``. The project's ``.gitignore`` gets
``/.perfgate/`` (the gate's work folder).

Nothing that exists is overwritten: an existing policy or workflow file is refused (exit 3,
nothing written) unless ``--force``, which replaces it and prints the diff. Exit codes: 0
written, 3 refused or error. Next: ``perfgate doctor``, then ``perfgate gate --base HEAD
--head HEAD --quick``.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from perfgate import cli_args
from perfgate.adopt.init import InitOptions, InitResult, init
from perfgate.adopt.parity_trial import DEFAULT_LIMIT_S, Trial, TrialOutcome, run_trials
from perfgate.adopt.policy import Proposal
from perfgate.adopt.probe import run_probe
from perfgate.adopt.workflows import DEFAULT_LABELS, WorkflowOptions
from perfgate.errors import UserError
from perfgate.verdict import EXIT_OK

_SHA = re.compile(r"[0-9a-f]{40}")


def add_parser(subparsers: Any) -> None:
    """Register the ``init`` subcommand."""
    p = subparsers.add_parser(
        "init",
        help="set the gate up in an asv project: policy and workflow files (exit 0/3)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--repo", type=Path, default=Path("."), help="the project (default .)")
    p.add_argument("--asv-config", type=Path, help="asv.conf.json, relative to the project")
    p.add_argument("--force", action="store_true", help="replace what exists (diff printed)")
    p.add_argument("--no-workflows", action="store_true", help="write the policy only")
    p.add_argument(
        "--no-measure",
        action="store_true",
        help="run nothing: neither the parity commands nor the suite (no quick selection, "
        "budget or costs measured; the parity commands are written unverified)",
    )
    p.add_argument(
        "--parity-minutes",
        type=cli_args.minutes,
        default=DEFAULT_LIMIT_S / 60,
        help=f"stop each parity command after this (default {DEFAULT_LIMIT_S / 60:g} min)",
    )
    defaults = WorkflowOptions()
    p.add_argument(
        "--workflow-ref", default=defaults.ref, help=f"perfgate's ref (default {defaults.ref})"
    )
    p.add_argument("--perfgate", default="", help="pip's requirement for perfgate in CI")
    p.add_argument(
        "--runner-labels",
        default=json.dumps(list(DEFAULT_LABELS)),
        help="JSON list of the pinned runners' labels",
    )
    p.set_defaults(func=run_from_args)


def _labels(text: str) -> tuple[str, ...]:
    try:
        labels = json.loads(text)
    except json.JSONDecodeError:
        labels = None
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        raise UserError(f"--runner-labels: expected a JSON list of labels, got {text!r}")
    return tuple(labels)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `perfgate.adopt.init.init`, then the summary."""
    workflow = WorkflowOptions(args.workflow_ref, args.perfgate, _labels(args.runner_labels))
    options = InitOptions(
        args.repo,
        args.asv_config,
        args.force,
        not args.no_workflows,
        workflow,
        args.parity_minutes * 60,
    )
    if args.no_measure:
        _print(init(options))
    else:
        _print(init(options, prober=run_probe, trier=run_trials))
    if not args.no_workflows and not _SHA.fullmatch(workflow.ref):
        print(
            f"note: the workflows call gate.yml at {workflow.ref!r}, which can move: pin a "
            "commit of it (--workflow-ref SHA; zizmor reports unpinned-uses until then)"
        )
    return EXIT_OK


def measured_lines(p: Proposal) -> list[str]:
    """What the run of the suite showed: broken benchmarks with asv's error, the quick
    selection and its budget (nothing when the suite was not run)."""
    lines = [f"  BROKEN at HEAD: {name}: {error}" for name, error in p.broken]
    if p.quick is not None:
        q = p.quick
        lines.append(
            f"  quick_bench: {len(q.names)} benchmark(s), {q.round_s:.1f} s a round (both "
            f"sides): {q.rounds} rounds {q.expected_minutes:.1f} min; quick_budget_minutes "
            f"= {q.budget_minutes:g}" + (" (raised to fit one)" if q.raised else "")
        )
    elif p.costs is not None:
        lines.append("  quick_bench: no working benchmark of a blocking family to select")
    return lines


def trial_lines(key: str, trial: Trial | None) -> list[str]:
    """How a parity command did when init ran it: one line, and its own last lines (already
    redacted) when it did not pass (nothing when it was not run)."""
    if trial is None:
        return []
    if trial.passed:
        return [f"  {key}: {trial.summary()}: written"]
    longer = " (--parity-minutes allows longer)" if trial.outcome is TrialOutcome.TIMED_OUT else ""
    lines = [f"  {key}: {trial.summary()}{longer}: NOT written (commented out); its output ended:"]
    return lines + [f"    {line}" for line in trial.error.splitlines()]


def _print(result: InitResult) -> None:
    p = result.proposal
    print(f"perfgate init: {p.asv_config}: {p.benchmark_count} benchmarks in "
          f"{len(p.families)} families; blocking: {', '.join(p.blocking)}")  # fmt: skip
    print(f"  build = {p.build.value!r} ({p.build.reason})")
    print(f"  parity_command = {list(p.parity.value)} ({p.parity.reason})")
    for line in trial_lines("quick_parity_command", p.quick_parity_trial):
        print(line)
    for line in trial_lines("parity_command", p.parity_trial):
        print(line)
    for line in measured_lines(p):
        print(line)
    for diff in result.diffs:
        print(diff, end="" if diff.endswith("\n") else "\n")
    for path in result.written:
        print(f"  wrote {path}")
    if not result.written:
        print("  nothing to write: the files already say this")
    print("next: perfgate doctor; perfgate gate --base HEAD --head HEAD --quick")
