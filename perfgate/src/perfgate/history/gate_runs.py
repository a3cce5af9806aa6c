"""The asv results a local gate run measured, as one results folder for the dashboard.

Every gate run keeps its rounds under ``<work dir>/runs/<run>/``; each round folder of a
side (``main-r000-base``, ``main-r000-head``) is an asv results folder of its own
(``benchmarks.json``, ``<machine>/machine.json``, one result file of that side's commit).
The first round of the main phase measures every case (families that never block run only
there), so `collect` takes that round of both sides of every run, the newest run of a commit
winning, and writes them into one folder ``asv publish`` reads. A commit the stored history
already holds keeps the history's result (``skip``). Nothing under the runs is changed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: Round folders of the first main round (attribute groups of later rounds are left out).
FIRST_ROUNDS = ("main-r000-base", "main-r000-head")


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


def collect(runs_dir: Path, dest: Path, skip: Iterable[str] = ()) -> Collected:
    """Copy the first round's results of every run in ``runs_dir`` into ``dest`` (created;
    its ``benchmarks.json`` from the newest run that has one unless ``dest`` has one);
    result files named in ``skip`` (``<machine>/<file>``) are left to whoever wrote them."""
    kept = set(skip)
    commits: list[str] = []
    runs: list[str] = []
    folders = sorted(p for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
    for run in reversed(folders):  # newest first: its results win
        took = False
        for name in FIRST_ROUNDS:
            round_dir = run / name
            for result in _result_files(round_dir):
                rel = f"{result.parent.name}/{result.name}"
                if rel in kept:
                    continue
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(result, target)
                machine = result.parent / "machine.json"
                if machine.exists() and not (target.parent / "machine.json").exists():
                    shutil.copyfile(machine, target.parent / "machine.json")
                kept.add(rel)
                commits.append(result.name.split("-", 1)[0])
                took = True
            suite = round_dir / "benchmarks.json"
            if suite.exists() and not (dest / "benchmarks.json").exists():
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(suite, dest / "benchmarks.json")
        if took:
            runs.append(run.name)
    return Collected(tuple(dict.fromkeys(commits)), tuple(runs))
