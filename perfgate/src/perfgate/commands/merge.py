"""`perfgate merge`: the shards of one sharded gate run into one verdict, report, exit code.

    perfgate merge SHARD_DIR... [--report-dir DIR] [--repo DIR] [--config PYPROJECT]
        [--digest-output FILE]

Each SHARD_DIR is the ``--report-dir`` of one ``perfgate gate --shard K/N`` run (its
``shard.json`` and sample files). The shards must be all K of N exactly once, of the same
base, head and plan, with machine fingerprints that agree in every comparability key;
otherwise the merge refuses them (exit 3, naming the shards and what differs). The samples
of all shards are compared with one Benjamini-Hochberg correction over all cases, decided
and reported as the gate does (report.md, report.html and verdict.json in ``--report-dir``,
default ``reports/gate``); the report names the runner that measured each case. The report
digest (sha256 over the three files as written) is logged and, with ``--digest-output`` (a CI
step-output file), appended as ``report-digest=...`` for ``perfgate post --expect-digest``.

The configuration is ``[tool.perfgate]`` of pyproject.toml at the shards' base commit in
``--repo`` (default: the current directory), or ``--config``; it must be the one the shards
used.

Exit codes: 0 pass, 1 stable regression, 2 parity failure (in any shard), 3 error, refused
shards, or a flagged case no shard re-ran (needs confirmation). An error is never a pass.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from perfgate.shards import merge


def add_parser(subparsers: Any) -> None:
    """Register the ``merge`` subcommand."""
    p = subparsers.add_parser(
        "merge",
        help="merge the shards of a sharded gate run into one verdict (exit 0/1/2/3)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("shard_dirs", nargs="+", metavar="SHARD_DIR", help="a shard's folder")
    p.add_argument("--report-dir", default="reports/gate", help="default: reports/gate")
    p.add_argument("--repo", default=".", help="git repository holding the base commit")
    p.add_argument("--config", help="pyproject.toml with [tool.perfgate] (default: at base)")
    p.add_argument(
        "--digest-output",
        type=Path,
        help="append report-digest=sha256:... to this CI step-output file, e.g. $GITHUB_OUTPUT",
    )
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `perfgate.shards.merge.run`."""
    opts = merge.MergeOptions(
        shard_dirs=tuple(Path(d) for d in args.shard_dirs),
        report_dir=Path(args.report_dir),
        repo=Path(args.repo),
        config=Path(args.config) if args.config else None,
        digest_output=args.digest_output,
    )
    return merge.run(opts, log=lambda text: print(text, file=sys.stderr, flush=True))
