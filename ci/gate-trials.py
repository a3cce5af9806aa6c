#!/usr/bin/env python3
"""Repeated-trial experiment for `perfgate gate --quick`: false alarms and detection power.

Builds a throwaway git repository under ``--work`` from a snapshot of ``--source`` (tracked
and untracked, not ignored files), commits it as ``original``, then makes honest code changes
on branches: the hand-written g1_walk hot slice busy-waits after its kernel until the elapsed
time is ``factor`` x the kernel's own time (``slow10``: 1.10, ``slow5``: 1.05). Each trial runs
the real gate from that repository and records its exit code and verdict.json:

    aa      --base original --head original       expect exit 0
    slow10  --base original --head slow10          expect exit 1 naming the slowed case
    slow5   --base original --head slow5           expect exit 1 naming the slowed case
    fast    --base slow10   --head original        expect exit 0 and an improvement reported

With ``--full`` the trials run the full gate (the grid this runner derives, the collector,
``make test-all`` as parity) instead of ``--quick``, and the kinds that slow one region of
the grid only are meant for it: the same path busy-waits to 1.08 x its kernel's time only at

    n65536  num_envs = 65536 (every thread count)     expect exit 1 naming such a case only
    t2      threads = 2 (every N)                      expect exit 1 naming such a case only

Before each full trial ``perfgate gate --plan --json`` records what the run is expected to
take (from the costs the previous trial measured), beside the minutes it took.

Trials of the kinds are interleaved (aa, slow10, slow5, fast, aa, ...) so that the machine's
load hits every kind alike. Prints one line per trial and the tallies; writes summary.json.

    .venv/bin/python ci/gate-trials.py --aa 10 --slow10 10 --slow5 10 --fast 3
    .venv/bin/python ci/gate-trials.py --full --aa 1 --n65536 1 --t2 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

SLOW_FILE = Path("termplan/src/termplan/tasks/g1_walk/handwritten.py")
KERNEL_CALL = "g1_walk_kernel("  # the call's first and last lines, at any indentation
CALL_END = ")  # fmt: skip"
SLOWED_CASE = ("task=g1_walk", "path=handwritten", "profile=sac_default")
EXPECT = {"aa": 0, "slow10": 1, "slow5": 1, "fast": 0, "n65536": 1, "t2": 1}
#: kind -> (factor, the condition in the hand-written path under which it is slower, the
#: parameter text every case it names must carry)
REGIONAL = {
    "n65536": (1.08, "self.num_envs == 65536", "num_envs=65536"),
    "t2": (1.08, "self.num_threads == 2", "threads=2"),
}


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with a fixed identity; return stdout."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "trials", "GIT_AUTHOR_EMAIL": "trials@invalid"}
    env |= {"GIT_COMMITTER_NAME": "trials", "GIT_COMMITTER_EMAIL": "trials@invalid"}
    out = subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def snapshot(source: Path, repo: Path, pyproject: Path | None) -> None:
    """Copy the files git would see in ``source`` (minus .perfgate/) into a new repo."""
    listed = git(source, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, listed):
        if rel.startswith(".perfgate/") or not (source / rel).is_file():
            continue
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, repo / rel)
    if pyproject is not None:
        shutil.copy2(pyproject, repo / "pyproject.toml")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "original")
    git(repo, "branch", "original")


def slow_patch(text: str, factor: float, when: str = "True") -> str:
    """Busy-wait after the kernel call until elapsed >= factor x the kernel's own time,
    when the Python condition ``when`` holds in the hot slice's ``compute``."""
    lines = text.splitlines()
    try:
        start = [line.strip() for line in lines].index(KERNEL_CALL)
        end = [line.strip() for line in lines].index(CALL_END, start)
    except ValueError:
        msg = f"{SLOW_FILE}: kernel call block not found; cannot make the slowdown"
        raise SystemExit(msg) from None
    pad = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
    wait = [
        f"{pad}_pg_kernel = _pg_time.perf_counter() - _pg_t0",
        f"{pad}while ({when}) and _pg_time.perf_counter() - _pg_t0 < {factor!r} * _pg_kernel:",
        f"{pad}    pass",
    ]
    lines[end + 1 : end + 1] = wait
    lines.insert(start, f"{pad}_pg_t0 = _pg_time.perf_counter()")
    future = lines.index("from __future__ import annotations")
    lines.insert(future + 1, "import time as _pg_time")
    return "\n".join(lines) + "\n"


def make_branch(repo: Path, name: str, factor: float, when: str = "True") -> str:
    """Commit the slowdown on branch ``name`` from ``original``; return its SHA."""
    git(repo, "checkout", "-q", "-B", name, "original")
    path = repo / SLOW_FILE
    path.write_text(slow_patch(path.read_text(), factor, when))
    for fix in (["format", "--quiet"], ["check", "--fix", "--quiet"]):  # `make lint` passes
        subprocess.run([sys.executable, "-m", "ruff", *fix, str(path)], cwd=repo, check=True)
    git(repo, "commit", "-qam", f"slow the hand-written g1_walk path x{factor} when {when}")
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "original")
    return sha


def run_trial(
    repo: Path, python: str, kind: str, revs: tuple[str, str], out: Path, full: bool
) -> dict:
    """One gate run; returns exit code, duration and the named regressions/improvements
    (and, for a full run, the minutes ``--plan`` expected beforehand)."""
    base, head = revs
    cmd = [python, "-m", "perfgate.cli", "gate", "--base", base, "--head", head]
    cmd += [] if full else ["--quick"]
    planned = _planned_minutes(repo, cmd) if full else None
    cmd += ["--report-dir", str(out)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - t0
    (out / "stderr.txt").parent.mkdir(parents=True, exist_ok=True)
    (out / "stderr.txt").write_text(proc.stderr)
    verdict = {}
    if (out / "verdict.json").is_file():
        verdict = json.loads((out / "verdict.json").read_text())
    cases = verdict.get("cases", [])
    named = [_label(c) for c in cases if c.get("verdict") == "regressed"]
    better = [_label(c) for c in cases if c.get("verdict") == "improved"]
    return {
        "kind": kind,
        "exit": proc.returncode,
        "seconds": round(seconds, 1),
        "regressed": named,
        "improved": better,
        "reasons": verdict.get("reasons", []),
        "planned_minutes": planned,
    }


def _planned_minutes(repo: Path, cmd: list[str]) -> dict | None:
    """What ``--plan --json`` expects of the run ``cmd`` (None when it cannot say)."""
    proc = subprocess.run(
        [*cmd, "--plan", "--json"], cwd=repo, capture_output=True, text=True, check=False
    )
    if proc.returncode not in (0, 3):
        return None
    plan = json.loads(proc.stdout)
    keys = ("expected_minutes", "budget_minutes", "rounds", "basis")
    return {k: plan.get(k) for k in keys} | {"short": len(plan.get("short", []))}


def _label(case: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in case.get("params", {}).items())
    return f"{case.get('benchmark')}({params})"


def _slowed(label: str) -> bool:
    return all(part in label for part in SLOWED_CASE)


def success(trial: dict) -> bool:
    """Did the trial give the expected outcome for its kind?"""
    kind, code = trial["kind"], trial["exit"]
    if kind == "aa":
        return code == 0
    if kind in ("slow10", "slow5"):
        return code == 1 and any(_slowed(r) for r in trial["regressed"])
    if kind in REGIONAL:
        region = REGIONAL[kind][2]
        slowed = [r for r in trial["regressed"] if all(p in r for p in SLOWED_CASE[:2])]
        return code == 1 and bool(slowed) and all(region in r for r in trial["regressed"])
    return code == 0 and any(_slowed(r) for r in trial["improved"])


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, build the repository, run the interleaved trials, print tallies."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[1])
    p.add_argument("--work", type=Path, default=Path("/tmp/perfgate-trials"))
    p.add_argument("--python", default=sys.executable)
    p.add_argument(
        "--pyproject",
        type=Path,
        help="gate config: committed in the snapshot, and copied into"
        " the working tree of an existing trial repo (the gate reads the working tree's)",
    )
    p.add_argument("--full", action="store_true", help="the full gate instead of --quick")
    for kind in EXPECT:
        p.add_argument(f"--{kind}", type=int, default=0, help=f"number of {kind} trials")
    args = p.parse_args(argv)
    repo = args.work / "repo"
    if not (repo / ".trials-ready").is_file():
        shutil.rmtree(repo, ignore_errors=True)
        repo.mkdir(parents=True)
        snapshot(args.source, repo, args.pyproject)
        make_branch(repo, "slow10", 1.10)
        make_branch(repo, "slow5", 1.05)
        for kind, (factor, when, _) in REGIONAL.items():
            make_branch(repo, kind, factor, when)
        (repo / ".git" / "info" / "exclude").write_text(".trials-ready\n.perfgate/\n")
        (repo / ".trials-ready").write_text("ok\n")
    if args.pyproject is not None:  # the gate reads its config from the working tree
        shutil.copy2(args.pyproject, repo / "pyproject.toml")
    revs = {
        "aa": ("original", "original"),
        "slow10": ("original", "slow10"),
        "slow5": ("original", "slow5"),
        "fast": ("slow10", "original"),
        **{kind: ("original", kind) for kind in REGIONAL},
    }
    plan = _interleave({k: getattr(args, k) for k in EXPECT})
    trials = []
    stamp = time.strftime("%Y%m%dT%H%M%S")
    for i, kind in enumerate(plan):
        out = args.work / "reports" / f"{stamp}-{i:02d}-{kind}"
        trial = run_trial(repo, args.python, kind, revs[kind], out, args.full)
        trial["ok"] = success(trial)
        trials.append(trial)
        print(json.dumps(trial), flush=True)
    _tally(trials, args.work / f"summary-{stamp}.json")
    return 0


def _interleave(counts: dict[str, int]) -> list[str]:
    left = dict(counts)
    out: list[str] = []
    while any(left.values()):
        for kind in EXPECT:
            if left[kind] > 0:
                out.append(kind)
                left[kind] -= 1
    return out


def _tally(trials: list[dict], path: Path) -> None:
    summary = {}
    for kind in EXPECT:
        mine = [t for t in trials if t["kind"] == kind]
        if not mine:
            continue
        codes = [t["exit"] for t in mine]
        summary[kind] = {
            "ok": sum(t["ok"] for t in mine),
            "runs": len(mine),
            "exit_codes": codes,
            "median_seconds": sorted(t["seconds"] for t in mine)[len(mine) // 2],
        }
        print(
            f"{kind:7s} expected exit {EXPECT[kind]}: {summary[kind]['ok']}/{len(mine)} as "
            f"expected; exit codes {codes}; median {summary[kind]['median_seconds']} s"
        )
    path.write_text(json.dumps({"summary": summary, "trials": trials}, indent=1) + "\n")
    print(f"summary: {path}")


if __name__ == "__main__":
    sys.exit(main())
