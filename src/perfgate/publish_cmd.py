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

from perfgate import runner, store
from perfgate.errors import UserError

EXIT_ERROR = 3


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


def publish_config(template: dict[str, Any], repo: Path, results: Path, html: Path) -> dict:
    """The asv config for publishing: paths made absolute, everything else kept."""
    conf = dict(template)
    conf["repo"] = str(repo.resolve())
    conf["results_dir"] = str(results.resolve())
    conf["html_dir"] = str(html.resolve())
    bench = conf.get("benchmark_dir", "benchmarks")
    conf["benchmark_dir"] = str((repo / str(bench)).resolve())
    return conf


def _template(repo: Path) -> dict[str, Any]:
    path = repo / "asv.conf.json"
    try:
        lines = [ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//")]
        data = json.loads("\n".join(lines))
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: cannot read the asv configuration ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object")
    return data


def run(repo: Path, results_dir: Path, html_dir: Path) -> int:
    """Check the results, run ``asv publish``; 0 or 3."""
    try:
        store.read_benchmarks(results_dir)  # missing or corrupt -> named error
        if not store.list_machines(results_dir):
            raise UserError(f"{results_dir}: no machine folder with results to publish")
        conf = publish_config(_template(repo), repo, results_dir, html_dir)
    except UserError as exc:
        print(f"perfgate publish: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    with tempfile.TemporaryDirectory(prefix="perfgate-publish-") as tmp:
        conf_path = Path(tmp) / "asv.conf.json"
        conf_path.write_text(json.dumps(conf, indent=1))
        cmd = [sys.executable, "-m", "asv", "publish", "--config", str(conf_path)]
        outcome = runner.run_process(cmd, repo, os.environ, 1800.0)
    if outcome.returncode != 0 or outcome.timed_out:
        print(f"perfgate publish: asv publish failed:\n{outcome.tail[-3000:]}", file=sys.stderr)
        return EXIT_ERROR
    print(f"perfgate publish: dashboard written to {html_dir}")
    return 0
