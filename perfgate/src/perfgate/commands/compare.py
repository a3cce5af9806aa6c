"""`perfgate compare`: statistics and a report from stored asv results; runs nothing.

    perfgate compare RESULTS_DIR --base SHA --head SHA [--machine M] [--env E]
        [--config pyproject.toml | --defaults] [--report-dir DIR] [--bench REGEX]
        [--confirm-results DIR] [--samples FILE] [--parity-result FILE]

Prints the markdown report, optionally writes report.md, report.html and verdict.json into
``--report-dir`` (new files only, written atomically) and exits with the verdict code
(0 pass, 1 regression, 2 parity failure, 3 error).

The policy is ``[tool.perfgate]`` of ``--config``, else of ./pyproject.toml; when neither
has one, compare refuses (exit 3, naming where it looked) unless ``--defaults`` asks for the
built-in defaults, which know no higher-is-better benchmarks (a throughput loss would pass as
an improvement). ``--report-dir`` is checked before anything runs, and the report is printed
only once its files are written.

``--parity-result`` (written by ``perfgate parity-result``, or by hand as ``{"status": ...}``)
is refused (exit 3) when it records the commit it ran at and that is not the head's.

Variant vs baseline rows follow the gate's rule: a group whose variant and baseline both ran
at base also gets its row relative to base (the variant/baseline ratio at head over the
same ratio at base, per round), which decides instead of the absolute row; a variant new at
head is held to its absolute bar. Paired rounds come from ``--samples`` (the gate's sample
file); stored results hold one run per commit, too few rounds to decide such a change, so a
variant that misses its bar at head is then an error (exit 3), not a regression nor a pass.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfgate import cli_args
from perfgate.errors import UserError
from perfgate.gate import publish, stored_results
from perfgate.report import render
from perfgate.secrets import redact_env


def add_parser(subparsers: Any) -> None:
    """Register the ``compare`` subcommand."""
    p = subparsers.add_parser(
        "compare",
        help="compare stored asv results of two commits and report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("results_dir", metavar="RESULTS_DIR", help="asv results directory")
    p.add_argument("--base", required=True, help="base commit hash (or unique prefix)")
    p.add_argument("--head", required=True, help="head commit hash (or unique prefix)")
    p.add_argument("--machine", help="asv machine name (default: the only one present)")
    p.add_argument("--env", help="asv environment name when a commit has several")
    p.add_argument(
        "--config", help="pyproject.toml with [tool.perfgate] (default: ./pyproject.toml)"
    )
    p.add_argument(
        "--defaults",
        action="store_true",
        help="without a [tool.perfgate] configuration, use the built-in defaults "
        "(no higher-is-better rules) instead of refusing",
    )
    p.add_argument("--report-dir", help="write report.md, report.html, verdict.json here")
    p.add_argument(
        "--bench", type=cli_args.regex, help="only benchmarks whose name matches this regex"
    )
    p.add_argument("--confirm-results", help="asv results directory of a confirmation re-run")
    p.add_argument("--samples", help="perfgate sample file with paired base/head rounds")
    p.add_argument("--parity-result", help='JSON {"status": "passed|failed|error", ...}')
    p.add_argument("--noise", help="noise-floor file from A/A calibration (raises thresholds)")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """Translate parsed arguments into `run`."""
    return run(
        args.results_dir,
        base=args.base,
        head=args.head,
        machine=args.machine,
        env=args.env,
        config_path=args.config,
        report_dir=args.report_dir,
        bench=args.bench,
        confirm_dir=args.confirm_results,
        samples_path=args.samples,
        parity_path=args.parity_result,
        noise_path=args.noise,
        defaults=args.defaults,
    )


def run(
    results_dir: str,
    *,
    base: str,
    head: str,
    machine: str | None = None,
    env: str | None = None,
    config_path: str | None = None,
    report_dir: str | None = None,
    bench: str | None = None,
    confirm_dir: str | None = None,
    samples_path: str | None = None,
    parity_path: str | None = None,
    noise_path: str | None = None,
    defaults: bool = False,
    write: Callable[[str], None] = print,
) -> int:
    """Compare two stored commits, print the markdown report, write files, return the exit code."""
    opts = {
        "machine": machine,
        "env": env,
        "config": config_path,
        "report_dir": report_dir,
        "bench": bench,
        "confirm_dir": confirm_dir,
        "samples": samples_path,
        "parity": parity_path,
        "noise": noise_path,
        "defaults": "yes" if defaults else None,
    }
    inputs = stored_results.read_inputs(results_dir, base, head, opts)
    command = stored_results.command_line(results_dir, inputs.machine, base, head, opts)
    report = stored_results.build_report(inputs, command)
    markdown = redact_env(render.render_markdown(report), os.environ)
    if report_dir is not None:  # written first: nothing is printed that is not final
        try:
            publish.write_reports(Path(report_dir), report, markdown)
        except OSError as exc:  # checked early, yet unwritable now (a full disk, a race)
            raise UserError(f"cannot write the report to {report_dir}: {exc}") from None
    write(markdown)
    return report.decision.exit_code
