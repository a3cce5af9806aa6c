"""`perfgate calibrate`: A/A rounds on this runner -> a noise floor per case.

    perfgate calibrate [--rev REV] [--rounds R] [--quick] [--bench REGEX ...]
        [--config PYPROJECT] [--repo DIR] [--work-dir DIR] [--machine NAME]

Runs one commit against itself in the gate's interleaved rounds (the same asv processes,
pinning and sample format as ``perfgate gate``) and stores, per case, the relative change
that A/A noise alone reaches: a new ``perfgate-noise`` v1 file
``WORK/noise/<machine>/<UTC time>.json`` per calibration (atomic, never overwritten). The
gate does not read it there (benchmark code could write that folder): the history workflow
on main stores it on the perf-results branch with its content digest (``perfgate history
append-noise --file ...``), and the gate reads the newest one for its machine id from a
fetched commit of that branch (``--floors-ref``) and never uses a threshold below the floor.

Which spread: the gate compares a ratio of medians over at least ``min_samples`` paired
rounds with the threshold, so the floor is taken from that same statistic. For every window
of ``min_samples`` consecutive A/A rounds the ratio of pooled medians is formed, and the floor
is ``stats.noise_floor`` of those ratios (the 95% quantile of |ln ratio|, or the maximum when
there are fewer than 20 windows). The per-round spread (one process against one process) is
recorded too, as ``round_floor``, for information: it is much wider, and using it would put
every threshold above the effects the gate is meant to catch.

Exit codes: 0 calibrated, 3 error (nothing written).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from perfgate import cli_args
from perfgate.atomic import check_output_dir
from perfgate.calibration.floors import summary
from perfgate.errors import RunnerError, UserError
from perfgate.gate import calibrate
from perfgate.gate.hooks import Hooks
from perfgate.settings import GateOptions
from perfgate.verdict import EXIT_ERROR, EXIT_OK

DEFAULT_ROUNDS = 12


def add_parser(subparsers: Any) -> None:
    """Register the ``calibrate`` subcommand."""
    p = subparsers.add_parser(
        "calibrate",
        help="A/A rounds of one commit -> per-case noise floors for this machine",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--rev", default="HEAD", help="commit measured against itself (HEAD)")
    p.add_argument(
        "--rounds",
        type=cli_args.int_in(2, 1000, "rounds"),
        default=DEFAULT_ROUNDS,
        help="A/A rounds (12)",
    )
    cli_args.add_measurement_args(p, quick_help="the quick grid of the gate")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `run`."""
    opts = GateOptions(base=args.rev, head=args.rev, **cli_args.measurement_options(args))
    return run(opts, args.rounds)


def run(opts: GateOptions, rounds: int, hooks: Hooks | None = None) -> int:
    """Calibrate and write the noise file; print a summary; 0 or 3."""
    hooks = hooks or Hooks()
    try:
        if opts.work_dir is not None:
            check_output_dir(opts.work_dir, "--work-dir", "exports, rounds and noise floors")
        path, floors = calibrate.calibrate(opts, rounds, hooks)
    except (UserError, RunnerError, OSError) as exc:
        print(f"perfgate calibrate: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    hooks.write(summary(path, floors))
    return EXIT_OK
