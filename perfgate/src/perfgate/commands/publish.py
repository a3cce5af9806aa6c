"""`perfgate publish`: build asv's static dashboard from stored results (``asv publish``).

    perfgate publish [--results-dir .asv/results] [--html-dir .asv/html] [--repo .]
                     [--config ASV_CONF] [--perfgate-config FILE]
                     [--gate-runs .perfgate/runs]

A thin edge over ``asv publish``: the asv configuration (``--config``, default the
repository's asv.conf.json) with the given results and HTML folders goes to a temporary
config, and asv publishes a temporary copy of the results in which the ``higher_is_better``
benchmarks of ``[tool.perfgate]`` are stored as reciprocals, so asv's regressions page reads
larger as worse for every benchmark (`perfgate.formats.asv_reciprocal`). Nothing is written
into the results tree, which the history branch mirrors file by file. ``--gate-runs`` adds
what the local gate runs measured (the first round of base and head of every run,
`perfgate.history.gate_runs`) for the commits the results folder lacks, and the command says
what it published. Exit codes: 0 published, 3 error (no results at all: one line saying
what to run first; a ``--gate-runs`` folder that does not exist: named; a corrupt file:
named where it is, in the results or the run, never in the temporary copy; asv failing:
asv's last output is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfgate import project
from perfgate.config_files import config_on_disk, load_config
from perfgate.errors import UserError
from perfgate.formats import asv_conf, asv_results
from perfgate.formats.asv_reciprocal import write_dashboard_results
from perfgate.formats.benchmarks_json import read_benchmarks
from perfgate.history import gate_runs
from perfgate.process import ProcessOutcome, run_process
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
    p.add_argument("--config", help="asv configuration (default: the project's asv.conf.json)")
    p.add_argument(
        "--perfgate-config",
        help="[tool.perfgate] with higher_is_better (REPO/perfgate.toml or pyproject.toml)",
    )
    p.add_argument(
        "--gate-runs", help="also publish what local gate runs measured (e.g. .perfgate/runs)"
    )
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `run`."""
    repo = Path(args.repo)
    return run(
        repo,
        Path(args.results_dir),
        Path(args.html_dir),
        Path(args.config) if args.config else None,
        Path(args.perfgate_config) if args.perfgate_config else None,
        Path(args.gate_runs) if args.gate_runs else None,
    )


#: What a fresh clone without results is told (one line).
NO_RESULTS_HINT = (
    "perfgate publish: no results yet ({results}/benchmarks.json is missing{runs}): run "
    "`make gate` (measures this checkout), `make asv-smoke` (one quick pass of every suite) "
    "or `perfgate history export` first"
)


def gather(results_dir: Path, runs: Path | None, dest: Path) -> list[str]:
    """The stored results (if any) and the gate runs' results (if asked) in ``dest``; what
    was gathered, one phrase per source (empty: nothing to publish)."""
    said = []
    if (results_dir / "benchmarks.json").exists():
        read_benchmarks(results_dir)  # corrupt -> named where it is, not in the copy
        shutil.copytree(results_dir, dest)
        stored = sum(1 for _ in dest.glob("*/*.json")) - len(list(dest.glob("*/machine.json")))
        said.append(f"{stored} stored result file(s) from {results_dir}")
    if runs is not None:
        skip = [f"{p.parent.name}/{p.name}" for p in dest.glob("*/*.json")]
        got = gate_runs.collect(runs, dest, skip)
        if got.commits:
            said.append(
                f"{len(got.commits)} commit(s) measured by {len(got.runs)} local gate run(s) "
                f"in {runs} ({', '.join(c[:8] for c in got.commits)})"
            )
    return said


def run(
    repo: Path,
    results_dir: Path,
    html_dir: Path,
    asv_config: Path | None = None,
    perfgate_config: Path | None = None,
    runs: Path | None = None,
) -> int:
    """Gather the results, run ``asv publish`` on their dashboard copy; 0 or 3."""
    if runs is not None and not runs.is_dir():
        print(
            f"perfgate publish: error: --gate-runs {runs}: no such folder (expected the gate's "
            "runs folder, <work dir>/runs: .perfgate/runs by default)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    with tempfile.TemporaryDirectory(prefix="perfgate-publish-") as tmp:
        combined = Path(tmp) / "combined"
        try:
            said = gather(results_dir, runs, combined)
        except UserError as exc:
            print(f"perfgate publish: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
        if not said:
            where = f"; no gate run with results in {runs}" if runs is not None else ""
            print(NO_RESULTS_HINT.format(results=results_dir, runs=where), file=sys.stderr)
            return EXIT_ERROR
        try:
            read_benchmarks(combined)  # corrupt -> named error
            if not asv_results.list_machines(combined):
                raise UserError(f"{results_dir}: no machine folder with results to publish")
            asv_config = asv_config or project.asv_project(repo).path
            template = asv_conf.read_asv_conf(asv_config)
            config = (
                load_config(perfgate_config, required=False)
                if perfgate_config
                else config_on_disk(repo, required=False)
            )
        except UserError as exc:
            print(f"perfgate publish: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
        print(f"perfgate publish: publishing {'; '.join(said)}")
        outcome = _publish(
            (repo, asv_config.parent), combined, html_dir, template, config.is_higher_better
        )
    if outcome.returncode != 0 or outcome.timed_out:
        print(f"perfgate publish: asv publish failed:\n{outcome.tail[-3000:]}", file=sys.stderr)
        return EXIT_ERROR
    print(f"perfgate publish: dashboard written to {html_dir}")
    return EXIT_OK


def _publish(
    where: tuple[Path, Path],
    results: Path,
    html_dir: Path,
    template: dict[str, Any],
    higher_is_better: Callable[[str], bool],
) -> ProcessOutcome:
    """``asv publish`` of the dashboard copy of ``results`` (higher-is-better inverted);
    ``where``: the repository and the asv configuration's folder (its paths' base)."""
    repo, folder = where
    view = results.parent / "results"
    inverted = write_dashboard_results(results, view, higher_is_better)
    if inverted:
        print(f"perfgate publish: larger reads as worse: 1/value for {', '.join(inverted)}")
    conf = asv_conf.publish_config(template, repo, view, html_dir, folder)
    conf_path = results.parent / "asv.conf.json"
    conf_path.write_text(json.dumps(conf, indent=1))
    cmd = [sys.executable, "-m", "asv", "publish", "--config", str(conf_path)]
    return run_process(cmd, repo, os.environ, 1800.0)
