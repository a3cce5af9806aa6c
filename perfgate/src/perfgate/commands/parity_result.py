"""`perfgate parity-result`: record one CI run of the parity command for a head commit.

    perfgate parity-result --sha SHA --exit-code N [--junit FILE] [--command TEXT] --out FILE

CI runs the parity command (``make test-all``) once per head commit on a hosted runner, with
pytest's ``--junitxml`` (``-o junit_family=xunit1`` names the tests by node id), and records
the outcome here; the pull request's gate then takes the file with ``perfgate gate
--parity-result FILE`` instead of running parity again on the pinned machine, and refuses it
for any other commit.

The status is "passed" only when the command exited 0 and the JUnit report (when given) has
no failing test; otherwise "failed", with the failing tests' ids. ``--junit`` may name a file
that does not exist: the command stopped before pytest wrote it (a lint or type error). The
file is new, written atomically and never overwritten; secrets of the environment are
redacted from everything in it.

Exit codes: 0 the file was written (whatever the status it records), 3 it was not (bad
arguments, unreadable JUnit report, ``--out`` exists).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from perfgate.cli_args import exit_code
from perfgate.errors import UserError
from perfgate.formats.junit import read_junit
from perfgate.formats.parity_result import FULL_SHA, write_parity
from perfgate.gate import parity
from perfgate.secrets import Redactor
from perfgate.verdict import EXIT_OK


def _full_sha(text: str) -> str:
    if not FULL_SHA.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"expected a full commit id (40 hex digits), got {text!r}"
        )
    return text


def add_parser(subparsers: Any) -> None:
    """Register the ``parity-result`` subcommand."""
    p = subparsers.add_parser(
        "parity-result",
        help="record a CI run of the parity command for `perfgate gate --parity-result`",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--sha", required=True, type=_full_sha, help="the head commit it ran at")
    p.add_argument(
        "--exit-code", required=True, type=exit_code, help="the parity command's exit code"
    )
    p.add_argument("--junit", help="pytest's --junitxml report (absent: pytest never ran)")
    p.add_argument("--command", default="make test-all", help="default: make test-all")
    p.add_argument("--out", required=True, help="the parity-result file to write (must be new)")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """Build the result, redact it, write it, print one line."""
    junit_path = Path(args.junit) if args.junit else None
    junit = read_junit(junit_path) if junit_path and junit_path.exists() else None
    if junit_path is not None and junit is None and args.exit_code == 0:
        raise UserError(f"--junit {junit_path}: does not exist, yet the command exited 0")
    result = parity.ci_result(args.command, args.exit_code, args.sha, junit)
    redactor = Redactor.from_env(os.environ)
    result = replace(
        result,
        command=redactor.text(result.command),
        summary=redactor.text(result.summary),
        failed_tests=tuple(redactor.text(t) for t in result.failed_tests),
    )
    written = write_parity(Path(args.out), result)
    print(
        f"parity-result: {result.status.value} at {args.sha[:12]} ({result.details}) -> {written}"
    )
    return EXIT_OK
