"""`perfgate publish`: build asv's static dashboard from stored results (``asv publish``).

    perfgate publish [--results-dir .asv/results] [--html-dir .asv/html] [--repo .]

A thin edge over ``asv publish``: the project's asv.conf.json with the given results and
HTML folders goes to a temporary config (nothing is written into the results tree, which
the history branch mirrors file by file). Exit codes: 0 published, 3 error (missing or
corrupt results, asv failing; asv's last output is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from perfgate.errors import UserError
from perfgate.formats import asv_conf, asv_results
from perfgate.formats.benchmarks_json import read_benchmarks
from perfgate.process import run_process
from perfgate.verdict import EXIT_ERROR, EXIT_OK


def add_parser(subparsers: Any) -> None:
    """Register the ``publish`` subcommand."""
    p = subparsers.add_parser(
        "publish",
        help="asv publish of stored results (static dashboard)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--results-dir", default=".asv/results", help="default: .asv/results")
    p.add_argument("--html-dir", default=".asv/html", help="default: .asv/html")
    p.add_argument("--repo", default=".", help="repository with asv.conf.json (default: .)")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `run`."""
    return run(Path(args.repo), Path(args.results_dir), Path(args.html_dir))


def run(repo: Path, results_dir: Path, html_dir: Path) -> int:
    """Check the results, run ``asv publish``; 0 or 3."""
    try:
        read_benchmarks(results_dir)  # missing or corrupt -> named error
        if not asv_results.list_machines(results_dir):
            raise UserError(f"{results_dir}: no machine folder with results to publish")
        template = asv_conf.read_asv_conf(repo / "asv.conf.json")
        conf = asv_conf.publish_config(template, repo, results_dir, html_dir)
    except UserError as exc:
        print(f"perfgate publish: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    with tempfile.TemporaryDirectory(prefix="perfgate-publish-") as tmp:
        conf_path = Path(tmp) / "asv.conf.json"
        conf_path.write_text(json.dumps(conf, indent=1))
        cmd = [sys.executable, "-m", "asv", "publish", "--config", str(conf_path)]
        outcome = run_process(cmd, repo, os.environ, 1800.0)
    if outcome.returncode != 0 or outcome.timed_out:
        print(f"perfgate publish: asv publish failed:\n{outcome.tail[-3000:]}", file=sys.stderr)
        return EXIT_ERROR
    print(f"perfgate publish: dashboard written to {html_dir}")
    return EXIT_OK
