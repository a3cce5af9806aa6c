"""The asv results a local gate run measured, as one results folder for the dashboard.

Every gate run keeps its rounds under ``<work dir>/runs/<run>/``; each round folder of a
side (``main-r000-base``, ``main-r000-head``) is an asv results folder of its own
(``benchmarks.json``, ``<machine>/machine.json``, one result file of that side's commit).
The first round of the main phase measures every case (families that never block run only
there), so `collect` takes that round of both sides of every run, with the sim instrument's
first count of each side merged into the same result file, the newest run of a commit
winning, and writes them into one folder ``asv publish`` reads. A commit the stored history
already holds keeps the history's result (``skip``). Nothing under the runs is changed.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from perfgate.atomic import replace_file
from perfgate.errors import UserError
from perfgate.formats import asv_results
from perfgate.formats.benchmarks_json import read_benchmarks

#: Round folders of the first main round (attribute groups of later rounds are left out),
#: then the sim instrument's first count of each side (same commit and environment: the
#: wall clock's result file of a commit and its sim count are merged into one).
FIRST_ROUNDS = ("main-r000-base", "main-r000-head")
SIM_ROUNDS = ("sim-base-1", "sim-head-1")


@dataclass(frozen=True)
class Collected:
    """What `collect` wrote: result files per commit prefix and the runs they came from."""

    commits: tuple[str, ...]
    runs: tuple[str, ...]


def _result_files(round_dir: Path) -> list[Path]:
    return sorted(
        p
        for p in round_dir.glob("*/*.json")
        if p.name != "machine.json" and not p.name.startswith(".")
    )


def _place(result: Path, target: Path) -> None:
    """Copy ``result`` to ``target``, merged into what this run already put there."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        merged = asv_results.merged_result(
            json.loads(target.read_text(encoding="utf-8")),
            json.loads(result.read_text(encoding="utf-8")),
        )
        replace_file(target, (json.dumps(merged, indent=1) + "\n").encode("utf-8"))
    else:
        shutil.copyfile(result, target)
    machine = result.parent / "machine.json"
    if machine.exists() and not (target.parent / "machine.json").exists():
        shutil.copyfile(machine, target.parent / "machine.json")


def _check(result: Path, rel: str) -> None:
    """A `UserError` naming ``result`` (the run's own file) when asv could not read it."""
    problem = asv_results.stored_problem(rel, result.read_bytes())
    if problem is not None:
        raise UserError(f"{result}: {problem}")


def _collect_run(run: Path, dest: Path, kept: set[str]) -> list[str]:
    """The commits of one run placed in ``dest`` (result files in ``kept`` left alone)."""
    commits: list[str] = []
    mine: set[str] = set()
    for name in FIRST_ROUNDS + SIM_ROUNDS:
        round_dir = run / name
        for result in _result_files(round_dir):
            rel = f"{result.parent.name}/{result.name}"
            if rel in kept and rel not in mine:
                continue
            _check(result, rel)
            _place(result, dest / rel)
            mine.add(rel)
            commits.append(result.name.split("-", 1)[0])
        suite = round_dir / "benchmarks.json"
        if suite.exists() and not (dest / "benchmarks.json").exists():
            read_benchmarks(round_dir)  # corrupt -> named in the run, not in the copy
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(suite, dest / "benchmarks.json")
    kept |= mine
    return commits


def collect(runs_dir: Path, dest: Path, skip: Iterable[str] = ()) -> Collected:
    """Copy the first round's results of every run in ``runs_dir`` into ``dest`` (created;
    its ``benchmarks.json`` from the newest run that has one unless ``dest`` has one);
    result files named in ``skip`` (``<machine>/<file>``) are left to whoever wrote them."""
    kept = set(skip)
    commits: list[str] = []
    runs: list[str] = []
    folders = sorted(p for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
    for run in reversed(folders):  # newest first: its results win
        took = _collect_run(run, dest, kept)
        if took:
            commits.extend(took)
            runs.append(run.name)
    return Collected(tuple(dict.fromkeys(commits)), tuple(runs))
