#!/usr/bin/env python3
"""Acceptance of `perfgate watch --bisect` on a scripted main history, measured for real.

Builds throwaway repositories under ``--work`` from a snapshot of ``--source`` (the helpers of
ci/gate-trials.py): 12 commits on main, each subject ``Step k (#100+k)``; in the variants with a
slowdown, commit 7 makes the hand-written g1_walk hot slice busy-wait until 1.08 x its kernel's
own time (gate-trials' patch), and in ``recovery`` commit 11 takes the patch back out. One case
is measured (``CASE``, N=65536, 1 thread): asv runs each stored commit from an export, as the
gate runs asv (``--python=same``, ``--record-samples``), and ``perfgate history append`` stores
the results on the repository's ``perf-results`` branch (a local bare remote). Then the
``perfgate watch`` command line runs against a fake GitHub API (the tests' server, checked
against GitHub's OpenAPI description), with ``--bisect`` measuring on this machine:

    slowdown  results of 1, 4, 8, 12: suspected 4..8, bisected to commit 7 (#107), exactly one
              issue opened; a second run opens none and measures nothing
    none      the same history without the slowdown: no issue
    recovery  results of 1, 4, 8: one issue, bisected to 7; then 12 stored: the issue closed

``--sim`` watches the sim instrument's history instead (``SIM_CASE``, N=2048): commit 7 adds
about 1.3% of real work to the same path (ci/sim-trials.py's patch, extra arithmetic), each
stored commit is counted once (counts are deterministic: no passes to interleave), and the
confirmation and bisection probes are sim probes (A counted twice, B once).

``--dry`` checks the plumbing without a paired A/B: the slowdown variant's real measurements
and ``watch --bisect --dry-run``, which must suspect 4..8 and name the probes it would run.
Prints every probe (ratio, CI, minutes) and each step's minutes; writes summary.json. The stored
results interleave PASSES rounds across the commits stored together, as the runners' history
job does (``--interleave-rounds``); one run per commit, in sequence, drifted 2-21% here and hid
the 8% step in about one run of four. A commit stored alone (12 in ``recovery``) still carries
the drift of its own run; the paired A/B re-check at a newer tip is what sees the recovery.
Run it on a quiet machine.

    .venv/bin/python ci/watch-acceptance.py [--variants slowdown,none,recovery] [--dry]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

SOURCE = Path(__file__).resolve().parents[1]
#: N=65536 (a ~9 ms call here): identical code stored by 4 interleaved passes came out
#: 0.9-4.0% apart (4 tries), at N=2048 (a 0.28 ms call, whose per-process medians scatter by
#: ~10% on this VM) 4.5-16%, which hides an 8% step or invents one
CASE = "hot_slice.HotSlice.time_compute('g1_walk', 'sac_default', 'handwritten', 65536, 1)"
SIM_CASE = "sim_hot_slice.SimHotSlice.track_cycles('g1_walk', 'sac_default', 'handwritten', 2048)"
MACHINE = "watch-acceptance"
FACTOR = 1.08
VARIANTS = ("slowdown", "none", "recovery")
#: rounds of each stored commit, interleaved across the commits stored together (the hot
#: slice's asv ``rounds``, which the history job interleaves the same way)
PASSES = 4


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TRIALS = _load(SOURCE / "ci" / "gate-trials.py", "gate_trials")
SIM_TRIALS = _load(SOURCE / "ci" / "sim-trials.py", "sim_trials")
sys.path.insert(0, str(SOURCE / "tests" / "perfgate" / "github"))
from gh_env import TOKEN, actions_env  # noqa: E402
from gh_fake_api import FakeGitHub, FakeServer  # noqa: E402
from gh_openapi import OpenApi  # noqa: E402

from perfgate import git  # noqa: E402
from perfgate.asv import runner as asv_runner  # noqa: E402
from perfgate.formats import asv_conf  # noqa: E402


def build_history(root: Path, variant: str, sim: bool = False) -> tuple[Path, list[str]]:
    """The repository of ``variant``: 12 commits on main and a bare ``origin`` (``sim``: the
    slowdown is ~1.3% more arithmetic rather than a wait)."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    TRIALS.snapshot(SOURCE, repo, None)
    (repo / ".git" / "info" / "exclude").write_text(".perfgate/\n.asv/\n")
    slow_file = repo / TRIALS.SLOW_FILE
    original = slow_file.read_text()
    commits = [TRIALS.git(repo, "rev-parse", "HEAD")]
    for k in range(2, 13):
        (repo / "watch-step.txt").write_text(f"{k}\n")
        if k == 7 and variant != "none" and sim:
            slow_file.write_text(SIM_TRIALS.work_patch(original, 1.0, "True"))
        elif k == 7 and variant != "none":
            slow_file.write_text(TRIALS.slow_patch(original, FACTOR))
        if k == 11 and variant == "recovery":
            slow_file.write_text(original)
        TRIALS.git(repo, "add", "-A")
        TRIALS.git(repo, "commit", "-qm", f"Step {k} (#{100 + k})")
        commits.append(TRIALS.git(repo, "rev-parse", "HEAD"))
    subprocess.run(["git", "init", "-q", "--bare", str(root / "remote.git")], check=True)
    TRIALS.git(repo, "remote", "add", "origin", str(root / "remote.git"))
    return repo, commits


def store(
    repo: Path, commits: list[str], numbers: tuple[int, ...], root: Path, sim: bool = False
) -> float:
    """Measure ``CASE`` at commits ``numbers`` (1-based) and append them; the minutes.

    As the history job's ``asv run --interleave-rounds`` does on the runners, the commits are
    measured in ``PASSES`` passes, each one round of every commit (alternate passes in
    reverse order), the samples of each commit appended to one result: a drift of the machine
    during the store hits every commit alike."""
    started = time.monotonic()
    results = root / "results"
    conf = asv_conf.read_asv_conf(repo / "asv.conf.json")
    config = asv_conf.write_round_config(conf, results, asv_conf.benchmark_dir(conf, repo), repo)
    asv_runner.ensure_asv_machine(MACHINE, os.environ)
    sources = {k: git.export_commit(repo, commits[k - 1], root / "exports") for k in numbers}
    case = SIM_CASE if sim else CASE
    bench = ("^" + re.escape(case) + "$",)
    env = {"PERFGATE_BENCH": json.dumps(bench)} if sim else {}
    for p in range(1 if sim else PASSES):
        for k in numbers if p % 2 == 0 else numbers[::-1]:
            inv = asv_runner.AsvInvocation(
                config, commits[k - 1], sources[k], MACHINE, bench=bench,
                attributes={"rounds": "1"}, append_samples=p > 0, env=env,
                import_roots=(sources[k] / "termplan" / "src",),  # [tool.perfgate] python_path
            )  # fmt: skip
            outcome = asv_runner.run_asv(inv, os.environ)
            if outcome.returncode not in (0, 2):
                raise SystemExit(f"asv failed for commit {k}:\n{outcome.tail[-2000:]}")
    _perfgate(repo, "history", "append", "--results", str(results), "--remote", "origin")
    return (time.monotonic() - started) / 60


def _perfgate(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "perfgate.cli", *args],
        cwd=repo,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"perfgate {args[0]} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout


def watch(repo: Path, root: Path, server: FakeServer, args: argparse.Namespace) -> dict:
    """Export the history, run ``perfgate watch --bisect --json``; records, minutes, output."""
    started = time.monotonic()
    hist = root / f"history-{time.monotonic_ns()}"
    _perfgate(
        repo, "history", "export", "--remote", "origin", "--dest", str(hist), "--ref", "main"
    )
    argv = ["watch", "--results", str(hist), "--ref", "main", "--config", "pyproject.toml"]
    argv += ["--bisect", "--machine", MACHINE, "--json", "--work-dir", str(root / "work")]
    argv += ["--budget-minutes", f"{args.budget_minutes:g}"]
    if args.dry:
        argv.append("--dry-run")
    env = actions_env(server, GITHUB_SERVER_URL="https://github.example")
    records = json.loads(_perfgate(repo, *argv, env=env))
    return {"records": records, "minutes": (time.monotonic() - started) / 60}


def _regressions(run: dict) -> list[dict]:
    """The regressions of a run but those an A/B did not confirm: one stored run per commit
    drifts by several percent, so the history may suspect a step the paired A/B then drops
    (recorded, never alerted; those must have no issue)."""
    regs = [r for r in run["records"] if r["direction"] == "regression"]
    return [r for r in regs if r["status"] != "not-confirmed" or r["issue"] is not None]


def _print_run(label: str, run: dict, commits: list[str]) -> None:
    number = {sha: k for k, sha in enumerate(commits, start=1)}
    print(f"  {label}: {run['minutes']:.1f} min")
    for r in run["records"]:
        culprit = number.get(r["culprit"]) if r["culprit"] else None
        print(
            f"    {r['direction']} {r['status']} ratio {r['ratio']:.3f} range "
            f"{number.get(r['last_good_commit'])}..{number.get(r['commit'])} culprit {culprit} "
            f"pr {r['culprit_pr']} issue {r['issue']}"
        )
        for p in r["probes"]:
            ci = f"{p['ci_low']:.3f}-{p['ci_high']:.3f}" if p["ci_low"] is not None else "-"
            ratio = f"{p['ratio']:.3f}" if p["ratio"] is not None else "-"
            print(
                f"      A/B {number.get(p['base'])} vs {number.get(p['head'])}: {p['verdict']} "
                f"ratio {ratio} CI {ci} {p['seconds'] / 60:.1f} min {p['note']}".rstrip()
            )


def check_slowdown(runs: list[dict], fake: FakeGitHub, commits: list[str], dry: bool) -> list:
    """The failed expectations of the slowdown variant (empty: all met)."""
    (first, *rest) = runs
    failures = []
    step = (commits[3], commits[7])
    if dry:  # nothing measured: every suspicion is still open, none alerted
        regs = [r for r in first["records"] if r["direction"] == "regression"]
        if step not in [(r["last_good_commit"], r["commit"]) for r in regs]:
            failures.append("slowdown: expected a regression suspected between 4 and 8")
        return failures + (["dry run: an issue was opened"] if fake.issues else [])
    regs = _regressions(first)
    if [(r["last_good_commit"], r["commit"]) for r in regs] != [step]:
        failures.append("slowdown: expected one regression suspected between 4 and 8")
    if not regs or (regs[0]["status"], regs[0]["culprit"]) != ("bisected", commits[6]):
        failures.append("slowdown: expected bisected to commit 7")
    elif regs[0]["culprit_pr"] != 107:
        failures.append("slowdown: expected pull request #107")
    if len(fake.issues) != 1:
        failures.append(f"slowdown: expected exactly one issue, got {len(fake.issues)}")
    if rest and (len(fake.issues) != 1 or any(_new_probes(first, rest[0]))):
        failures.append("slowdown: the second run opened an issue or measured again")
    return failures


def _new_probes(before: dict, after: dict) -> list[dict]:
    old = {r["change_id"]: len(r["probes"]) for r in before["records"]}
    return [p for r in after["records"] for p in r["probes"][old.get(r["change_id"], 0) :]]


def check_none(runs: list[dict], fake: FakeGitHub) -> list[str]:
    """The failed expectations of the variant without a slowdown."""
    return [f"none: {len(fake.issues)} issue(s) opened"] if fake.issues else []


def check_recovery(runs: list[dict], fake: FakeGitHub, commits: list[str]) -> list[str]:
    """The failed expectations of the recovery variant."""
    failures = []
    regs = _regressions(runs[0])
    if [(r["status"], r["culprit"]) for r in regs] != [("bisected", commits[6])]:
        failures.append("recovery: expected one regression, bisected to commit 7, first")
    final = [r for r in _regressions(runs[-1]) if regs and r["change_id"] == regs[0]["change_id"]]
    if [r["status"] for r in final] != ["recovered"]:
        failures.append("recovery: expected that regression recovered after commit 12")
    states = [i["state"] for i in fake.issues.values()]
    if states != ["closed"]:
        failures.append(f"recovery: expected one closed issue, got {states}")
    return failures


def run_variant(variant: str, args: argparse.Namespace, spec: OpenApi) -> dict[str, Any]:
    """Build, store, watch and check one variant; its figures and failed expectations."""
    root = args.work / f"{time.strftime('%Y%m%dT%H%M%S')}-{variant}"
    repo, commits = build_history(root, variant, args.sim)
    fake = FakeGitHub(spec, TOKEN)
    runs, stored = [], []
    with FakeServer(fake) as server:
        first = (1, 4, 8) if variant == "recovery" else (1, 4, 8, 12)
        stored.append(store(repo, commits, first, root, args.sim))
        runs.append(watch(repo, root, server, args))
        if variant == "recovery":
            stored.append(store(repo, commits, (12,), root, args.sim))
        if not args.dry:
            runs.append(watch(repo, root, server, args))
    print(f"{variant}: stored {', '.join(f'{m:.1f}' for m in stored)} min")
    for i, run in enumerate(runs, start=1):
        _print_run(f"watch run {i}", run, commits)
    if variant == "slowdown":
        failures = check_slowdown(runs, fake, commits, args.dry)
    elif variant == "none":
        failures = check_none(runs, fake)
    else:
        failures = check_recovery(runs, fake, commits)
    issues = [{k: i[k] for k in ("number", "title", "state")} for i in fake.issues.values()]
    print(f"  issues: {issues}\n  {'OK' if not failures else 'FAILED: ' + '; '.join(failures)}")
    return {"variant": variant, "stored_minutes": stored, "runs": runs, "issues": issues,
            "failures": failures, "violations": list(fake.violations)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the chosen variants; exit 1 when an expectation failed."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, default=Path("/tmp/perfgate-watch-acceptance"))
    p.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    p.add_argument("--dry", action="store_true", help="slowdown variant, watch --dry-run only")
    p.add_argument("--budget-minutes", type=float, default=90.0, help="A/B minutes per run")
    p.add_argument("--sim", action="store_true", help="the sim instrument's history (SIM_CASE)")
    args = p.parse_args(argv)
    variants = ["slowdown"] if args.dry else args.variants.split(",")
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        p.error(f"--variants: unknown {unknown}; expected some of {', '.join(VARIANTS)}")
    os.environ.setdefault("NUMBA_CACHE_DIR", str(SOURCE / ".cache" / "numba"))
    os.environ.setdefault("PERFGATE_GRID", "default")  # stored and probed on one grid
    spec = OpenApi.load("api.github.com")
    started = time.monotonic()
    summary = [run_variant(v, args, spec) for v in variants]
    print(f"total: {(time.monotonic() - started) / 60:.1f} min")
    args.work.mkdir(parents=True, exist_ok=True)
    path = args.work / f"summary-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"summary: {path}")
    failed = any(s["failures"] or s["violations"] for s in summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
