#!/usr/bin/env python3
"""N A/A quick gates of this repository, one after another: the gate's false-block rate.

    .venv/bin/python experiments/aa_gates.py [--runs 20] [--rev HEAD] [--work DIR]

Clones the repository once into ``--work`` (a new folder; default a temporary one), so
the checkout you run it from is not touched, then runs the README's gate there ``--runs``
times, each ``perfgate gate --base REV --head REV --quick`` with a report folder of its
own, through the public CLI only. Prints one line per run (exit code, verdict, seconds,
and the reasons of a run that did not pass) and the counts; exits 1 when any run did not
pass. Run it alone on the machine: a gate's wall clock shares the cores with nothing else.
docs/gate.md ("False blocks, measured") keeps the latest result.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Outcome:
    """One gate run: its exit code, verdict.json's verdict and reasons, its seconds."""

    index: int
    code: int
    verdict: str
    reasons: tuple[str, ...]
    seconds: float

    def line(self) -> str:
        text = f"run {self.index:2d}: exit {self.code} ({self.verdict}) in {self.seconds:.0f} s"
        return text + "".join(f"\n    {r}" for r in self.reasons if self.code != 0)


def _verdict(report_dir: Path) -> tuple[str, tuple[str, ...]]:
    path = report_dir / "verdict.json"
    if not path.is_file():
        return "no verdict.json", ()
    data = json.loads(path.read_text(encoding="utf-8"))
    return str(data.get("verdict")), tuple(str(r) for r in data.get("reasons", ()))


def run_gate(clone: Path, rev: str, index: int) -> Outcome:
    """One quick A/A gate of ``rev`` in ``clone``; its report in ``reports/aa-<index>``."""
    report = clone / "reports" / f"aa-{index:02d}"
    argv = [str(clone / ".venv" / "bin" / "python"), "-m", "perfgate.cli", "gate"]
    argv += ["--base", rev, "--head", rev, "--quick", "--report-dir", str(report)]
    start = time.monotonic()
    done = subprocess.run(argv, cwd=clone, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    verdict, reasons = _verdict(report)
    if not reasons and done.returncode != 0:
        reasons = tuple(done.stderr.strip().splitlines()[-3:])
    return Outcome(index, done.returncode, verdict, reasons, seconds)


def prepare(work: Path, rev: str) -> Path:
    """A clone of this repository at ``rev`` in ``work``, its virtualenv made by ``make venv``
    (and valgrind checked by ``make valgrind``), as a new user's checkout."""
    clone = work / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", rev], cwd=clone, check=True)
    subprocess.run(["make", "-s", "venv", "valgrind"], cwd=clone, check=True)
    return clone


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="gates to run (default 20)")
    parser.add_argument("--rev", default="HEAD", help="the commit of both sides (default HEAD)")
    parser.add_argument("--work", type=Path, help="a new folder for the clone (default: temp)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs: expected an integer >= 1, got {args.runs}")
    rev = subprocess.run(
        ["git", "rev-parse", "--verify", f"{args.rev}^{{commit}}"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if args.work is not None and args.work.exists():
        parser.error(f"--work {args.work}: expected a new folder")
    work = args.work or Path(tempfile.mkdtemp(prefix="perfgate-aa-"))
    clone = prepare(work, rev)
    print(f"A/A quick gates of {rev[:12]} in {clone}", flush=True)
    outcomes = []
    for index in range(1, args.runs + 1):
        outcomes.append(run_gate(clone, rev, index))
        print(outcomes[-1].line(), flush=True)
    codes = Counter(o.code for o in outcomes)
    passed = codes.get(0, 0)
    summary = ", ".join(f"exit {c}: {n}" for c, n in sorted(codes.items()))
    print(f"{passed} of {len(outcomes)} passed ({summary})")
    return 0 if passed == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
