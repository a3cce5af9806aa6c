"""`perfgate gate`: measure base and head now, decide, report, exit with the verdict.

    perfgate gate --base REV --head REV [--bench REGEX ...] [--quick] [--budget-minutes M]
        [--report-dir DIR] [--config PYPROJECT] [--repo DIR] [--work-dir DIR]
        [--machine NAME] [--floors-ref REF] [--parity-result FILE] [--digest-output FILE]
        [--post --pr N]
    perfgate gate --base REV --head REV --plan [--json] [--bench REGEX ...] [--quick]
        [--budget-minutes M]
    perfgate gate --base REV --head REV --shard K/N --report-dir SHARD_DIR [...]

Runs locally with no GitHub and no server: parity at head, interleaved asv rounds of base
and head (B,H then H,B; one asv process per side and round), sequential extra rounds for
undecided cases while the budget lasts, an independent confirmation re-run of flagged cases,
then prints the markdown report and writes report.md, report.html and verdict.json into
``--report-dir`` (default ``reports/gate``; an earlier report there is moved to
``previous/<time>/``, never overwritten). The report digest (sha256 over the three files as
written) is logged, and appended as ``report-digest=...`` to ``--digest-output`` (a CI
step-output file) for ``perfgate post --expect-digest``. Every process the head's code
started has been killed before the report is written (``perfgate.containment``).

Parity (``--parity-result``): the file ``perfgate parity-result`` wrote in CI, where the
parity command already ran once for this head commit; the gate takes it instead of running
parity itself (a failing one is exit 2 and names the failing tests, as if run here). A result
recorded for another commit, or for none, is refused: exit 3, naming the file and both
commits. Without the option (``make gate``) the gate runs the parity command itself.

Noise floors (``--floors-ref``): the newest ``perfgate calibrate`` file of this machine on a
fetched commit of the perf-results branch, verified against its content digest (a mismatch
is exit 3), read before any code of the head runs; never from the work folder.

Rounds go to what can block: cases of families that never block (``blocking`` in
``[tool.perfgate]``) run in the first round only; blocking cases get ``min_samples`` rounds
while the budget (``--budget-minutes``, default ``budget_minutes`` of ``[tool.perfgate]``)
lasts. A blocking case the budget leaves short is inconclusive: exit 3, named. ``--plan``
prints the cases, rounds and the expected and most minutes of every instrument's phase
without measuring (``--json``: as JSON), from the costs the last run measured, or
documented defaults per family when there is none.

Sharding (``--shard K/N``, on N identical pinned runners): the planned cases (asv's
discovery of both sides, the documented default cost per family) are split into N
cost-balanced shards, the same on every runner; this run measures shard K as the gate
measures (base and head interleaved, extra rounds, confirmation of the cases its own data
flags) and writes ``shard.json`` and its sample files into ``--report-dir``: no verdict.
Exit 0 when measuring succeeded, 2 on a parity failure, 3 on an error. ``perfgate merge``
turns the N shard folders into one verdict.

``--bench`` regexes are checked against the suites asv discovers at both commits before
parity and measuring: one that selects nothing is exit 3, naming the closest benchmarks.

Exit codes: 0 pass, 1 stable regression (or a benchmark failing at head), 2 parity failure,
3 error or refused comparison (unknown revision, asv failing, corrupt results, machine
fingerprint changed, too few samples). An error is never a pass.

Inconclusive cases at the end of the budget: too few samples is an error (exit 3); a case
with at least ``min_samples`` rounds whose CI straddles 1 + threshold is listed as a finding
and does not block (``straddle = "report"`` in ``[tool.perfgate]``), because it is not a
*stable* regression.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from perfgate import cli_args
from perfgate.errors import UserError
from perfgate.gate import preview, run_plan
from perfgate.gate import run as gate
from perfgate.settings import GateOptions, ShardSpec
from perfgate.shards import partition, shard


def add_parser(subparsers: Any) -> None:
    """Register the ``gate`` subcommand."""
    p = subparsers.add_parser(
        "gate",
        help="measure base and head with asv, decide, report (exit 0/1/2/3)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--base", required=True, help="base revision (compared at its merge base with --head)"
    )
    p.add_argument("--head", required=True, help="head revision (any git revision)")
    cli_args.add_measurement_args(p, quick_help="quick grid and parity subset")
    p.add_argument(
        "--budget-minutes", type=cli_args.minutes, help="time budget of the measurement"
    )
    p.add_argument(
        "--floors-ref",
        help="a fetched perf-results commit: its newest noise floors of this machine "
        "(perfgate history append-noise) raise thresholds; default: none",
    )
    p.add_argument(
        "--parity-result",
        help="CI's parity result for --head (perfgate parity-result): taken instead of "
        "running parity here; refused for another commit",
    )
    p.add_argument(
        "--plan", action="store_true", help="print the planned rounds and minutes; measure nothing"
    )
    p.add_argument("--json", action="store_true", help="with --plan: print the plan as JSON")
    p.add_argument(
        "--shard",
        type=_shard,
        metavar="K/N",
        help="measure shard K of N of the planned cases for `perfgate merge`; decide nothing",
    )
    p.add_argument("--report-dir", default="reports/gate", help="default: reports/gate")
    p.add_argument(
        "--digest-output",
        type=Path,
        help="append report-digest=sha256:... (the digest of the report files as written) "
        "to this CI step-output file, e.g. $GITHUB_OUTPUT; perfgate post --expect-digest",
    )
    p.add_argument("--post", action="store_true", help="post the report (needs --pr)")
    p.add_argument("--pr", type=cli_args.positive_int, help="pull request number for --post")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `perfgate.gate.run.run`."""
    if args.post and args.pr is None:
        raise UserError("--post needs --pr N")
    if args.json and not args.plan:
        raise UserError("--json needs --plan")
    if args.plan and args.post:
        raise UserError("--plan measures nothing and cannot --post")
    if args.shard is not None and (args.plan or args.post):
        raise UserError("--shard measures a share of the cases; it cannot --plan or --post")
    opts = GateOptions(
        base=args.base,
        head=args.head,
        budget_minutes=args.budget_minutes,
        report_dir=Path(args.report_dir),
        post=args.post,
        pr=args.pr,
        floors_ref=args.floors_ref,
        shard=args.shard,
        parity_result=Path(args.parity_result) if args.parity_result else None,
        digest_output=args.digest_output,
        **cli_args.measurement_options(args),
    )
    if args.plan:
        planned = preview.build_plan(opts)
        text = json.dumps(planned.to_json(), indent=2) + "\n" if args.json else None
        sys.stdout.write(text or run_plan.render_text(planned))
        return 0
    if opts.shard is not None:
        return shard.run(opts)
    return gate.run(opts)


def _shard(text: str) -> ShardSpec:
    """``--shard K/N`` (a bad value is a usage error naming the option)."""
    try:
        return partition.parse_shard(text)
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
