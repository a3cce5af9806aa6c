"""`perfgate publish`: build asv's static dashboard from stored results (``asv publish``).

    perfgate publish [--results-dir .asv/results] [--html-dir .asv/html] [--repo .]
                     [--config ASV_CONF] [--perfgate-config pyproject.toml]

A thin edge over ``asv publish``: the asv configuration (``--config``, default the
repository's asv.conf.json) with the given results and HTML folders goes to a temporary
config, and asv publishes a temporary copy of the results in which the ``higher_is_better``
benchmarks of ``[tool.perfgate]`` are stored as reciprocals, so asv's regressions page reads
larger as worse for every benchmark (`perfgate.formats.asv_reciprocal`). Nothing is written
into the results tree, which the history branch mirrors file by file. Exit codes: 0
published, 3 error (no results yet: one line saying what to run first; corrupt results, asv
failing: asv's last output is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from perfgate.config import load_config
from perfgate.errors import UserError
from perfgate.formats import asv_conf, asv_results
from perfgate.formats.asv_reciprocal import write_dashboard_results
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
    p.add_argument("--config", help="asv configuration (default: REPO/asv.conf.json)")
    p.add_argument(
        "--perfgate-config", help="[tool.perfgate] with higher_is_better (REPO/pyproject.toml)"
    )
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `run`."""
    repo = Path(args.repo)
    return run(
        repo,
        Path(args.results_dir),
        Path(args.html_dir),
        Path(args.config) if args.config else repo / "asv.conf.json",
        Path(args.perfgate_config) if args.perfgate_config else repo / "pyproject.toml",
    )


#: What a fresh clone without results is told (one line).
NO_RESULTS_HINT = (
    "perfgate publish: no results yet ({results}/benchmarks.json is missing): run "
    "`make asv-smoke` (one quick pass of every suite) or `perfgate history export` first"
)


def run(
    repo: Path,
    results_dir: Path,
    html_dir: Path,
    asv_config: Path | None = None,
    perfgate_config: Path | None = None,
) -> int:
    """Check the results, run ``asv publish`` on their dashboard copy; 0 or 3."""
    if not (results_dir / "benchmarks.json").exists():
        print(NO_RESULTS_HINT.format(results=results_dir), file=sys.stderr)
        return EXIT_ERROR
    try:
        read_benchmarks(results_dir)  # corrupt -> named error
        if not asv_results.list_machines(results_dir):
            raise UserError(f"{results_dir}: no machine folder with results to publish")
        template = asv_conf.read_asv_conf(asv_config or repo / "asv.conf.json")
        config = load_config(perfgate_config or repo / "pyproject.toml", required=False)
    except UserError as exc:
        print(f"perfgate publish: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    with tempfile.TemporaryDirectory(prefix="perfgate-publish-") as tmp:
        view = Path(tmp) / "results"
        inverted = write_dashboard_results(results_dir, view, config.is_higher_better)
        if inverted:
            print(f"perfgate publish: larger reads as worse: 1/value for {', '.join(inverted)}")
        conf = asv_conf.publish_config(template, repo, view, html_dir)
        conf_path = Path(tmp) / "asv.conf.json"
        conf_path.write_text(json.dumps(conf, indent=1))
        cmd = [sys.executable, "-m", "asv", "publish", "--config", str(conf_path)]
        outcome = run_process(cmd, repo, os.environ, 1800.0)
    if outcome.returncode != 0 or outcome.timed_out:
        print(f"perfgate publish: asv publish failed:\n{outcome.tail[-3000:]}", file=sys.stderr)
        return EXIT_ERROR
    print(f"perfgate publish: dashboard written to {html_dir}")
    return EXIT_OK
