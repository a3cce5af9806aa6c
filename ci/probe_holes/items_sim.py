"""Items 6 and 7, the simulator: a head that does more work except when valgrind counts it
(sim and wall clock must disagree, not pass), and two sim gates whose suites differ in version
(a re-count under another version confirms nothing; the control, the same version, does)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .harness import Ctx, Row, commit_branch, git, new_repo, perfgate, write_files
from .judging import last_line
from .tiny_project import BENCH, SIM_SUITE, gate, policy, read, tiny_files

#: how many times the work the dodging head does when it is not counted: the wall clock of
#: this shared 2-core machine scattered single 3 ms samples 0.7-6 ms, and 3 rounds of a 1.5x
#: head once estimated 1.046 (CI 0.81-1.47), within the 5% threshold, so no disagreement
DODGE_FACTOR = 4
COUNTED_SKIP = f"""import os

SLOWER = {DODGE_FACTOR}


def _counted():
    # the probe's hostile head: it can tell it is being counted, and skips work there
    return "vgpreload" in os.environ.get("LD_PRELOAD", "") or "PERFGATE_SIM_PREPARE" in os.environ


def work(n):
    if not _counted():
        n = n * SLOWER
    total = 0
    for i in range(n):
        total += i * i
    return total
"""


def item_6(ctx: Ctx) -> list[Row]:
    """A head that does more work, except when valgrind counts it: sim + wall gate. The
    reproduction needs the wall clock to estimate the slowdown beyond the threshold (the
    probe's +6.4%); where this machine's noise hides it, the row is not run (says why)."""
    root = ctx.folder("item-06")
    pyproject = policy(ctx.python, ("wall", "sim"), threshold=0.05, rounds=4)
    repo = new_repo(root / "repo", tiny_files(pyproject, sim_weights="(1,)"))
    commit_branch(repo, "dodge", {"tinypkg/__init__.py": COUNTED_SKIP}, {})
    ran, out = gate(ctx, repo, "dodge", "dodge")
    report = read(out / "report.md")
    verdict = json.loads(read(out / "verdict.json") or "{}").get("verdict")
    disagree = "instruments disagree" in report
    neither = "neither: the instruments disagree" in report  # the side-by-side's "decided by"
    seen = [line for line in report.splitlines() if line.startswith("**Could see:**")]
    blind = _wall_case_uncovered(read(out / "verdict.json"))
    ok = ran.code in (1, 3) and disagree and neither and blind
    wall = _wall_estimate(read(out / "verdict.json"))
    if not disagree and wall is not None and wall[0] <= 1.05:
        why = f"the wall clock did not see the slowdown here (estimate {wall[0]:.3f}, CI "
        why += f"{wall[1]:.3f}-{wall[2]:.3f}; machine too noisy): exit {ran.code}; run it again"
        return [Row("6", "sim+wall gate, a head dodging the simulator", "-", why, None)]
    return [Row(
        "6", f"sim+wall gate (threshold 5%, 4 rounds), head {DODGE_FACTOR}x the work except "
        "under valgrind/PERFGATE_SIM_PREPARE",
        "not a pass (exit 3 undecided, or 1 if the wall clock alone is a stable regression); "
        "the report says the instruments disagree, decided by neither; the wall case is not "
        "counted as seen by the simulator (verdict.json's visibility: covered_by null)",
        f"exit {ran.code} ({verdict}); gate {ran.seconds:.0f} s; wall estimate {wall}; "
        f"{last_line(_disagreement(report), 330)}; decided by neither: {neither}; "
        f"{last_line(seen[0] if seen else 'no Could see line', 200)}",
        ok,
    )]  # fmt: skip


def _wall_case_uncovered(verdict_json: str) -> bool:
    """True when verdict.json's visibility has the wall clock's case and no sim case is
    said to cover it (whether the wall clock itself could see it depends on the run's noise,
    so only the cover is judged)."""
    entries = json.loads(verdict_json or "{}").get("visibility", [])
    wall = [e for e in entries if e.get("instrument") == "wall"]
    return bool(wall) and all(e.get("covered_by") is None for e in wall)


def _wall_estimate(verdict_json: str) -> tuple[float, float, float] | None:
    """The wall clock's ratio and CI of the tiny case in verdict.json (None: none)."""
    cases = json.loads(verdict_json or "{}").get("cases", [])
    wall = [c for c in cases if c.get("benchmark") == BENCH and c.get("ratio") is not None]
    if not wall or wall[0].get("ci_low") is None:
        return None
    return (round(wall[0]["ratio"], 3), round(wall[0]["ci_low"], 3), round(wall[0]["ci_high"], 3))


def _disagreement(report: str) -> str:
    lines = [line for line in report.splitlines() if "disagree" in line]
    return lines[0] if lines else "no line says so"


def asv_results(work_dir: Path, dest: Path, base: str = "sim-base-1") -> Path | None:
    """One asv results folder at ``dest`` holding the sim counts a gate run made of its base
    (``base``: its first count, or ``sim-base-2`` its second) and its head, as a user collects
    them for ``perfgate compare``; None when the run left no such counts."""
    counts = [next(work_dir.glob(f"runs/*/{side}"), None) for side in (base, "sim-head-1")]
    if None in counts:
        return None
    for folder in filter(None, counts):
        shutil.copytree(folder, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("home"))
    return dest


def item_7(ctx: Ctx) -> list[Row]:
    """--confirm-results whose base count was made under another sim benchmark version."""
    root = ctx.folder("item-07")
    repo = new_repo(root / "repo", tiny_files(policy(ctx.python, ("sim",)), sim_weights="(1,)"))
    head = commit_branch(repo, "same", {"README": "same code\n"}, {})
    first, _ = gate(ctx, repo, "same", "v1")
    write_files(repo, {"benchmarks/sim_tiny.py": SIM_SUITE.replace("WEIGHTS", "(2,)")})
    second, _ = gate(ctx, repo, "same", "v2")  # the checkout's suite: another version
    r1 = asv_results(root / "gatework-v1", root / "results-v1")
    r2 = asv_results(root / "gatework-v2", root / "results-v2")
    if first.code != 0 or second.code != 0 or r1 is None or r2 is None:
        why = (
            f"sim gates exit {first.code}/{second.code}, results {r1}/{r2}: {last_line(first.err)}"
        )
        return [Row("7", "two sim gates (suite versions v1, v2), then compare", "-", why, None)]
    base = git(repo, "rev-parse", "main")
    args = ["compare", str(r1), "--base", base, "--head", head, "--config", "pyproject.toml"]
    ran = perfgate(ctx, repo, *args, "--confirm-results", str(r2))
    same = asv_results(root / "gatework-v1", root / "results-v1-again", "sim-base-2")
    control = perfgate(ctx, repo, *args, "--confirm-results", str(same))
    named = "no second count of the base under this benchmark version" in ran.text
    return [Row(
        "7", "two real sim gates of main vs an identical head, the suite's sim_weights changed "
        "between them (another version); compare run 1 --confirm-results run 2 (control: "
        "run 1's own second base count)",
        "exit 3: no second count of the base under this version (control: exit 0)",
        f"gates exit {first.code}, {second.code} ({first.seconds:.0f} s, {second.seconds:.0f} s); "
        f"compare exit {ran.code}, says so: {named}; control exit {control.code}",
        ran.code == 3 and named and control.code == 0,
    )]  # fmt: skip
