#!/usr/bin/env python3
"""Trials of the sim instrument on a throwaway copy of this repository (issue 27's figures).

Builds the repository as ``ci/gate-trials.py`` does (a snapshot committed as ``original``)
and makes honest code changes on branches: the hand-written g1_walk hot slice does extra
arithmetic after its kernel (``np.sin`` over a scratch array, in place; real work, not a
sleep), sized per N to cost about the given share of that case's simulated cycles:

    readme  a README-only commit                         expect exit 0, every count identical
    work1   ~1.3% more cycles at every N                  expect exit 1 naming exactly the
                                                          hand-written g1_walk cases
    work2   ~2% more cycles at N=65536 only               expect exit 1 naming only those
    kernel  twelve ``math.sin`` per env inside the kernel's  expect exit 1, the kernel named
            ``prange`` lane loop (their sum guards a branch  first (the sine is charged to
            never taken)                                     it), its code summary changed
    alloc   the kernel allocates a zeroed temporary of 32   expect exit 1, the kernel named
            float64 per env each call and reads one element  first, its code summary showing
                                                             the allocation

Issue 39's three heads (work1: Python work around the kernel; kernel; alloc) are judged on
one case with ``--bench`` (e.g. the hand-written g1_walk case at N=2048); each run's
summary has the function or kernel the report's first screen names and the kernel's code
summary line.

Each gate run measures the sim family alone (``--bench '^sim_hot_slice\\.'``) on the full
gate's grid (every single-thread hot-slice case, both tasks, both profiles, all paths), or
on the grid ``PERFGATE_GRID`` names (``default``: sac_default at N=2048 and 65536). With
``--calibrate`` the machine's determinism is calibrated first (``perfgate calibrate``, three
counts of ``original``) and stored on the throwaway repository's perf-results branch, which
the gate runs then read (``--floors-ref``): they count base and head once each. The A/A
bar: two gate runs of ``original`` against itself (``--aa 2``) give every sim case the same
counts within 0.1%.

    .venv/bin/python ci/sim-trials.py --work /tmp/st --calibrate --aa 2 --readme --work1 --work2

A later call on the same ``--work`` with ``--floors`` reuses that calibration.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SIM_BENCH = r"^sim_hot_slice\."
HANDWRITTEN = Path("termplan/src/termplan/tasks/g1_walk/handwritten.py")
KERNEL = Path("termplan/src/termplan/tasks/g1_walk/handwritten_kernel.py")
KERNEL_NAME = "g1_walk_kernel"
TERMINATED_LINE = (
    "            terminated[i] = _terminated_i(gr, base_height, min_upright_gz, "
    "min_base_height, i)\n"
)
PRANGE_LINE = "    for t in prange((n + tile - 1) // tile):\n"
#: the kernel module's first import: the trial's extra work needs math and NumPy beside it
IMPORT_LINE = "import numba\n"
SLOWED = ("task=g1_walk", "path=handwritten")
LOGS_LINE = "        out.logs = self._collect_logs() if log else {}\n"
OUTPUTS_LINE = "        self._outputs = allocate_outputs(self.num_envs, ACTOR_DIM, CRITIC_DIM)\n"
#: scratch elements per env that cost about 1.3% of the hand-written g1_walk case's cycles
#: at each N (measured here: np.sin's share differs with N, the kernel's misses grow)
SCALE_1PCT = {2048: 0.18, 8192: 0.44, 65536: 0.44}
KINDS = {
    "readme": (None, "True", 0),
    "work1": (1.0, "True", 1),
    "work2": (2.0 / 1.3, "self.num_envs == 65536", 1),
    "kernel": (None, "True", 1),
    "alloc": (None, "True", 1),
}


def _trials_module() -> object:
    spec = importlib.util.spec_from_file_location("gate_trials", REPO / "ci" / "gate-trials.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TRIALS = _trials_module()


def work_patch(text: str, share: float, when: str) -> str:
    """The hand-written path's ``compute`` with extra in-place ``np.sin`` over a scratch
    array after its kernel, when ``when`` holds; ``share`` x `SCALE_1PCT` elements per env."""
    if LOGS_LINE not in text or OUTPUTS_LINE not in text:
        raise SystemExit(f"{HANDWRITTEN}: compute() changed; cannot place the extra work")
    sizes = {n: share * s for n, s in SCALE_1PCT.items()}
    per_env = f"{sizes!r}.get(self.num_envs, {share * 0.44!r})"
    scratch = (
        "        self._pg_extra = np.linspace(\n"
        f"            0.0, 1.0, max(1, int({per_env} * self.num_envs))\n"
        "        )\n"
    )
    work = (
        f"        if {when}:  # trial: extra arithmetic\n"
        "            np.sin(self._pg_extra, out=self._pg_extra)\n"
    )
    return text.replace(OUTPUTS_LINE, OUTPUTS_LINE + scratch).replace(LOGS_LINE, work + LOGS_LINE)


def kernel_patch(text: str, kind: str) -> str:
    """The hand-written g1_walk kernel with ``kind``'s change (see the module)."""
    if TERMINATED_LINE not in text or PRANGE_LINE not in text or IMPORT_LINE not in text:
        raise SystemExit(f"{KERNEL}: the kernel's loop changed; cannot place the extra work")
    text = text.replace(IMPORT_LINE, "import math\n\nimport numpy as np\n" + IMPORT_LINE, 1)
    if kind == "kernel":
        work = (
            "            extra = 0.0  # trial: work inside the kernel\n"
            "            for k in range(12):\n"
            "                extra += math.sin(lv[3 * i] + k)\n"
            "            if extra > 1e300:\n"
            "                terminated[i] = True\n"
        )
        return text.replace(TERMINATED_LINE, TERMINATED_LINE + work)
    temporary = "    tmp = np.zeros(32 * n)  # trial: a temporary each call\n"
    use = "    if n > 0 and tmp[n - 1] > 1e300:\n        terminated[0] = True\n"
    return text.replace(PRANGE_LINE, temporary + PRANGE_LINE).rstrip("\n") + "\n" + use


def trial_policy(work: Path) -> Path:
    """This repository's policy with the quick parity subset as the parity command: the
    trials are about the sim instrument's figures, and ``make test-all`` in every head
    export would add minutes to each gate run (parity still runs, and still gates)."""
    text = (REPO / "pyproject.toml").read_text()
    quick = tomllib.loads(text)["tool"]["perfgate"]["quick_parity_command"]
    line = 'parity_command = ["make", "test-all"]\n'
    if line not in text:
        raise SystemExit("pyproject.toml: parity_command changed; cannot write the trial policy")
    out = work / "pyproject.toml"
    work.mkdir(parents=True, exist_ok=True)
    out.write_text(text.replace(line, f"parity_command = {json.dumps(quick)}\n"))
    return out


def make_branch(repo: Path, kind: str) -> str:
    """Commit ``kind``'s change on a branch of that name from ``original``; its SHA."""
    share, when, _ = KINDS[kind]
    TRIALS.git(repo, "checkout", "-q", "-B", kind, "original")
    if kind in ("kernel", "alloc"):
        path = repo / KERNEL
        path.write_text(kernel_patch(path.read_text(), kind))
    elif share is None:
        path = repo / "README.md"
        path.write_text(path.read_text() + "\n")
    else:
        path = repo / HANDWRITTEN
        path.write_text(work_patch(path.read_text(), share, when))
    if path.suffix == ".py":
        for fix in (["format", "--quiet"], ["check", "--fix", "--quiet"]):
            subprocess.run([sys.executable, "-m", "ruff", *fix, str(path)], cwd=repo, check=True)
    TRIALS.git(repo, "commit", "-qam", f"trial {kind}")
    sha = TRIALS.git(repo, "rev-parse", "HEAD")
    TRIALS.git(repo, "checkout", "-q", "original")
    return sha


def perfgate(repo: Path, python: str, *args: str) -> tuple[int, float, str]:
    """Run ``perfgate ARGS`` in ``repo``: exit code, seconds, stderr."""
    started = time.monotonic()
    done = subprocess.run(
        [python, "-m", "perfgate.cli", *args], cwd=repo, capture_output=True, text=True
    )
    return done.returncode, time.monotonic() - started, done.stderr


def calibrate(repo: Path, python: str) -> float:
    """Three counts of ``original`` stored on perf-results; the seconds it took."""
    code, seconds, err = perfgate(
        repo, python, "calibrate", "--rev", "original", "--bench", SIM_BENCH
    )
    if code != 0:
        raise SystemExit(f"perfgate calibrate failed ({code}):\n{err[-3000:]}")
    (noise,) = sorted((repo / ".perfgate" / "noise").rglob("*.json"))[-1:]
    code, _, err = perfgate(
        repo, python, "history", "append-noise", "--file", str(noise), "--remote", str(repo)
    )
    if code != 0:
        raise SystemExit(f"perfgate history append-noise failed ({code}):\n{err[-3000:]}")
    return seconds


def gate(
    repo: Path, python: str, head: str, out: Path, floors: bool, bench: str = SIM_BENCH
) -> dict[str, object]:
    """One sim-only gate run of ``head`` against ``original``: its figures."""
    args = ["gate", "--base", "original", "--head", head, "--bench", bench]
    args += ["--report-dir", str(out)] + (["--floors-ref", "perf-results"] if floors else [])
    code, seconds, err = perfgate(repo, python, *args)
    out.mkdir(parents=True, exist_ok=True)
    (out / "stderr.txt").write_text(err)
    cases = json.loads((out / "verdict.json").read_text()).get("cases", [])
    sim = [c for c in cases if c["benchmark"].startswith("sim_hot_slice.")]
    return {
        "exit": code,
        "seconds": round(seconds, 1),
        "sim_seconds": _sim_seconds(err),
        "cases": len(sim),
        "regressed": sorted(_label(c) for c in sim if c["verdict"] == "regressed"),
        "ratios": {_label(c): c["ratio"] for c in sim},
        "base": {_label(c): c["base_median"] for c in sim},
        "figure": {_label(c): c.get("figure") for c in sim},
        "where": where_it_moved((out / "report.md").read_text()),
    }


def where_it_moved(markdown: str) -> list[str]:
    """The first screen's "Where it moved (sim)" lines: per case, who moved most."""
    lines = markdown.split("**Where it moved (sim):**", 1)[1:]
    if not lines:
        return []
    block = lines[0].split("**Could see:**", 1)[0]
    return [line[2:] for line in block.splitlines() if line.startswith("- ")]


def _sim_seconds(err: str) -> float | None:
    """The sim phase's seconds (prepare and counts) as the gate logged them."""
    found = re.findall(r"sim: \d+ case figure\(s\) measured \((\d+)s\)", err)
    return float(found[-1]) if found else None


def _label(case: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in case["params"].items())


def check(kind: str, result: dict) -> list[str]:
    """What is wrong with a trial's outcome (empty: as expected)."""
    want = KINDS[kind][2] if kind in KINDS else 0
    problems = [f"exit {result['exit']}, expected {want}"] if result["exit"] != want else []
    named = result["regressed"]
    slowing = ("work1", "work2", "kernel", "alloc")
    if kind in slowing and not named:
        problems.append("no case named")
    for line in result.get("where", []):
        first = line.split("**")[1].replace("\\", "") if "**" in line else ""  # unescaped
        inside = kind in ("kernel", "alloc")
        if inside != (first == KERNEL_NAME):
            problems.append(f"first named {first!r}: {line}")
    for label in named:
        if not all(p in label for p in SLOWED):
            problems.append(f"named a case it did not slow: {label}")
        if kind == "work2" and "num_envs=65536" not in label:
            problems.append(f"named a case outside N=65536: {label}")
    expected = sum(1 for label in result["ratios"] if all(p in label for p in SLOWED))
    if kind == "work2":
        expected = sum(
            1 for lb in result["ratios"] if all(p in lb for p in SLOWED) and "65536" in lb
        )
    if kind in slowing and len(named) != expected:
        problems.append(f"named {len(named)} of the {expected} slowed cases")
    return problems


def aa_difference(first: dict, second: dict) -> tuple[float, list[str]]:
    """The largest relative difference of a case's decisive base count between two A/A
    runs, and the cases the two runs decided on different figures."""
    other = [c for c in first["figure"] if first["figure"][c] != second["figure"].get(c)]
    same = [c for c in first["base"] if c not in other and first["base"][c]]
    spread = max((abs(second["base"][c] / first["base"][c] - 1.0) for c in same), default=0.0)
    return spread, other


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--calibrate", action="store_true")
    p.add_argument(
        "--floors",
        action="store_true",
        help="the gate runs read the floors an earlier --calibrate stored in this --work",
    )
    p.add_argument("--aa", type=int, default=0)
    p.add_argument("--bench", default=SIM_BENCH, help="the cases each gate run measures")
    for kind in KINDS:
        p.add_argument(f"--{kind}", action="store_true")
    args = p.parse_args(argv)
    repo = args.work / "repo"
    if not repo.exists():
        repo.mkdir(parents=True)
        TRIALS.snapshot(REPO, repo, trial_policy(args.work))
    summary: dict[str, object] = {}
    if args.calibrate:
        summary["calibrate_seconds"] = round(calibrate(repo, args.python), 1)
        print(f"calibrate: {summary['calibrate_seconds']} s", flush=True)
    floors = args.calibrate or args.floors
    runs = [("aa", "original")] * args.aa
    runs += [(k, make_branch(repo, k)) for k in KINDS if getattr(args, k)]
    failed = 0
    for i, (kind, head) in enumerate(runs):
        out = _fresh(args.work, f"{i:02d}-{kind}", "")
        result = gate(repo, args.python, head, out, floors, args.bench)
        problems = check(kind, result)
        failed += bool(problems)
        summary[f"{i:02d}-{kind}"] = {**result, "problems": problems}
        wrong = "; " + "; ".join(problems) if problems else ""
        print(
            f"{kind}: exit {result['exit']} in {result['seconds']} s (sim phase "
            f"{result['sim_seconds']} s), {result['cases']} sim "
            f"cases, named {len(result['regressed'])}{wrong}",
            flush=True,
        )
        for line in result["where"]:
            print(f"  where it moved: {line}", flush=True)
    aa = [v for k, v in summary.items() if k.endswith("-aa") and isinstance(v, dict)]
    if len(aa) >= 2:
        spread, other = aa_difference(aa[0], aa[1])
        summary["aa_largest_difference"] = spread
        summary["aa_decided_differently"] = other
        failed += bool(other) or spread > 0.001
        print(
            f"A/A: the largest difference of a case's decisive count between two runs: "
            f"{spread:.5%}; decided on another figure: {other or 'none'}"
        )
    _fresh(args.work, "summary", ".json").write_text(json.dumps(summary, indent=1))
    return 1 if failed else 0


def _fresh(folder: Path, stem: str, suffix: str) -> Path:
    """``folder/stem.suffix``, or ``stem-2``, ``stem-3``...: a later call on the same
    ``--work`` keeps the earlier summaries."""
    path, k = folder / f"{stem}{suffix}", 1
    while path.exists():
        k += 1
        path = folder / f"{stem}-{k}{suffix}"
    return path


if __name__ == "__main__":
    sys.exit(main())
