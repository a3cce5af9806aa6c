#!/usr/bin/env python3
"""The simulated scaling family's figures, its trial heads, and its check against the clock.

    project  count cases of ``benchmarks/sim_scaling.py`` per thread (callgrind) and print the
             model's E(T), serial share and imbalance: the table of docs/sim.md.
    aa       the A/A of two gate runs: every case counted in two processes of one commit
             with the same layout, at once; the largest spread of E(T) per T.
    trials   count honest code changes against the unchanged code, each side once, the base
             twice (the second with its layout shifted), and decide them with the gate's rows
             (`perfgate.sim.scaling.compare`, the project's [tool.perfgate]):
               serial     the assembled path's ``compute`` makes a NumPy pass over its largest
                          input before the kernel, on every call (--serial-share of the case's
                          one-thread instructions, counted first at T=8 to size it);
               imbalance  the hand-written g1_walk kernel's first tile runs its joint terms
                          again (--imbalance-passes times): one worker's chunk is larger;
               alike      every tile of that kernel runs one extra pass of its termination
                          check: every worker's work grows alike; judged by the single-thread
                          sim cases (sim_hot_slice, base twice and head, `compare_sim`), which
                          must see it, while its scaling rows must not block.
             motion_tracking (--tasks): the same serial pass; its hand-written kernel's
             first rows (n/64) run the joint loop again (imbalance), or every row once (alike).
             Also printed: the spread of E(T) between the base's two counts (two processes
             of one commit, the second with its layout shifted: an A/A at least as strict as
             two gate runs, whose head counts share one layout).
    wall     projected E(2) (counted) against the wall clock's E(2) = T1 / (2 T2), from
             interleaved rounds at 1 and 2 threads, for every Numba path: run it ALONE on the
             machine (timings under shared load are not figures).

    .venv/bin/python ci/sim-scaling.py project --work /tmp/ss
    .venv/bin/python ci/sim-scaling.py aa --work /tmp/ss
    .venv/bin/python ci/sim-scaling.py trials --work /tmp/ss \
        [--tasks motion_tracking --paths handwritten]
    .venv/bin/python ci/sim-scaling.py wall --work /tmp/ss

Counts do not depend on what else runs: the processes of ``trials`` run at once.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(REPO / "ci"),
    str(REPO),
    str(REPO / "perfgate" / "src"),
    str(REPO / "termplan" / "src"),
]

from sim_scaling_heads import PLAN_PATH, kernel_edit, patched, serial_edit  # noqa: E402

from benchmarks.sim_scaling import COUNTED_ELSEWHERE  # noqa: E402
from perfgate.config import parse_config  # noqa: E402
from perfgate.model import CaseKey, Measurement  # noqa: E402
from perfgate.sim import harness  # noqa: E402
from perfgate.sim.child import LAYOUT_VARIABLE  # noqa: E402
from perfgate.sim.compare import compare_sim  # noqa: E402
from perfgate.sim.cost import per_call  # noqa: E402
from perfgate.sim.figures import FIGURES  # noqa: E402
from perfgate.sim.scaling import threaded  # noqa: E402
from perfgate.sim.scaling.compare import compare_sim_scaling  # noqa: E402
from perfgate.sim.scaling.model import (  # noqa: E402
    SCALING_FIGURES,
    ThreadCounts,
    figures,
    project,
)

FAMILY = "sim_scaling.SimScaling"
WEIGHTS = (1, 3)
Case = tuple[str, str, int, int]
#: the JIT target under valgrind (`perfgate.sim.target`): --target
TARGET = {"mode": "auto"}
Counted = dict[Case, dict[str, float]]


def count(cases: Sequence[Case], src: Path, env_extra: Mapping[str, str] | None = None) -> Counted:
    """The model's figures of ``cases`` counted with termplan from ``src`` (both passes: the
    native one compiles what ``src`` changed): one valgrind process per family, the cases
    `SimScaling` cannot count in `SimScalingBaseline`'s (compiled without AVX)."""
    elsewhere = [c for c in cases if c[:2] in COUNTED_ELSEWHERE]
    here = [c for c in cases if c[:2] not in COUNTED_ELSEWHERE]
    counted: Counted = {}
    for family, group, mode in (
        ("SimScaling", here, TARGET["mode"]),
        ("SimScalingBaseline", elsewhere, "baseline"),
    ):
        if group:
            counted.update(_count_family(family, group, src, mode, env_extra or {}))
    return counted


def _count_family(
    family: str, cases: Sequence[Case], src: Path, mode: str, env_extra: Mapping[str, str]
) -> Counted:
    spec = harness.SimSpec(
        "benchmarks", str(REPO / "benchmarks"), "benchmarks.sim_scaling", family,
        tuple(harness.SimCase(f"case{i:04d}", c) for i, c in enumerate(cases)), WEIGHTS, 1,
    )  # fmt: skip
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), str(REPO), str(REPO / "perfgate" / "src")])
    env.update(env_extra)
    out = threaded.measure(spec, max(c[3] for c in cases), env=env, target_mode=mode)
    if out.failed or out.skipped:
        problems = {**out.failed, **out.skipped}
        raise SystemExit(f"{family}: cases not counted: {json.dumps(problems, indent=1)[:3000]}")
    return {c.params: _figures(out.counts[c.id]) for c in spec.cases}


def _figures(calls: Sequence[ThreadCounts]) -> dict[str, float]:
    """The family's figures, and the instruction-weighted work and imbalance the trials size
    their serial pass with and the docs' table shows."""
    by_instructions = project(calls, WEIGHTS, "instructions")
    return {
        **figures(calls, WEIGHTS),
        "total_instructions": by_instructions.total,
        "serial_instructions": by_instructions.serial,
        "imbalance_instructions": by_instructions.imbalance,
    }


def grid(
    tasks: Sequence[str], paths: Sequence[str], sizes: Sequence[int], threads: Sequence[int]
) -> list[Case]:
    return [(t, p, n, k) for t in tasks for n in sizes for p in paths for k in threads]


def table(counted: Counted) -> str:
    """The docs' table: per case E(T) and serial share (instructions, then cycles)."""
    lines = [
        "| task | path | N | T | E(T) | serial share | imbalance | E(T), cycles |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for (task, path, n, t), f in sorted(counted.items()):
        lines.append(
            f"| {task} | {path} | {n} | {t} | {f['efficiency_instructions']:.3f} | "
            f"{f['serial_share_instructions']:.2%} | {f['imbalance_instructions']:.3f} | "
            f"{f['efficiency']:.3f} |"
        )
    return "\n".join(lines)


def measurements(counted: Counted, version: str = "trial") -> dict[CaseKey, Measurement]:
    out = {}
    for (task, path, n, t), f in counted.items():
        params = (
            ("task", repr(task)),
            ("path", repr(path)),
            ("num_envs", str(n)),
            ("threads", str(t)),
        )
        family = FAMILY + ("Baseline" if (task, path) in COUNTED_ELSEWHERE else "")
        for bench, (name, unit) in SCALING_FIGURES.items():
            key = CaseKey(f"{family}.{bench}", params)
            out[key] = Measurement(key, (f[name],), version=version, unit=unit)
    return out


def gate_config() -> Any:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["perfgate"]
    return parse_config(data)


def decide(base: Counted, head: Counted, again: Counted) -> list[str]:
    """The gate's rows for ``head``'s cases (verdict, blocking, note)."""
    keep = set(head)
    rows = compare_sim_scaling(
        measurements({k: v for k, v in base.items() if k in keep}),
        measurements(head),
        measurements({k: v for k, v in again.items() if k in keep}),
        gate_config(),
    )
    return [
        f"{r.verdict.value:>10} {'blocking' if r.blocking else 'report  '} "
        f"{dict(r.key.params)['task']} {dict(r.key.params)['path']} "
        f"N={dict(r.key.params)['num_envs']}: {r.note}"
        for r in rows
    ]


def spreads(base: Counted, again: Counted) -> list[str]:
    """Per T, the largest relative difference of E(T) (instructions, cycles) and of the
    serial share between the base's two counts."""
    lines = []
    for threads in sorted({c[3] for c in base}):
        cases = [c for c in base if c[3] == threads and c in again]
        parts = []
        for name in ("efficiency_instructions", "efficiency", "serial_share_instructions"):
            worst = max(abs(again[c][name] / base[c][name] - 1.0) for c in cases)
            parts.append(f"{name} {worst:.4%}")
        lines.append(f"T={threads}: largest base/again difference over {len(cases)} cases: "
                     + ", ".join(parts))  # fmt: skip
    return lines


def run_trials(
    work: Path, share: float, imbalance_passes: int, tasks: Sequence[str], paths: Sequence[str]
) -> None:
    src = REPO / "termplan" / "src"
    g1 = grid(tasks, paths, [2048, 8192], [8, 32, 64])
    serial = "assembled" in paths  # the serial head edits the assembled path
    probe = grid(tasks, ["assembled"], [2048, 8192], [8])
    one_pass = patched(work, "probe", {PLAN_PATH: serial_edit({})})
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        jobs = {
            "base": pool.submit(count, g1, src),
            "again": pool.submit(count, g1, src, {LAYOUT_VARIABLE: "1"}),
        }
        if serial:
            jobs["probe"] = pool.submit(count, probe, one_pass)
        got = {k: j.result() for k, j in jobs.items()}
    passes = {}
    for (task, _path, n, _t), f in got.get("probe", {}).items():
        base = got["base"][(task, "assembled", n, 8)]
        per_pass = f["serial_instructions"] - base["serial_instructions"]
        passes[(task, n)] = max(1, round(share * base["total_instructions"] / per_pass))
        print(f"{task}: serial pass at N={n}: {per_pass:.0f} instructions; {passes[(task, n)]} "
              f"passes = {passes[(task, n)] * per_pass / base['total_instructions']:.2%} of "
              f"{base['total_instructions']:.0f}")  # fmt: skip
    uneven: dict[Path, tuple[str, str]] = {PLAN_PATH: serial_edit(passes)} if serial else {}
    alike: dict[Path, tuple[str, str]] = {}
    for task in tasks:
        uneven.update(kernel_edit(task, True, imbalance_passes))
        alike.update(kernel_edit(task, False, 1))
    heads = {
        "serial+imbalance": patched(work, "head1", uneven),
        "alike": patched(work, "head2", alike),
    }
    hw = [c for c in g1 if c[1] == "handwritten"]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        counted = {
            "serial+imbalance": pool.submit(count, g1, heads["serial+imbalance"]),
            "alike": pool.submit(count, hw, heads["alike"]),
        }
        results = {k: j.result() for k, j in counted.items()}
    doc = {k: {repr(c): f for c, f in v.items()} for k, v in {**got, **results}.items()}
    (work / "trials.json").write_text(json.dumps(doc, indent=1))
    print("\n## A/A: the base counted twice\n" + "\n".join(spreads(got["base"], got["again"])))
    for name, head in results.items():
        print(f"\n## {name}\n" + table(head))
        print("\n".join(decide(got["base"], head, got["again"])))
    print("\n## base\n" + table(got["base"]))
    print("\n## alike, single-thread sim cases (sim_hot_slice)")
    print("\n".join(single_thread(tasks, src, heads["alike"])))


def count_single(
    cases: Sequence[tuple[str, str, str, int]],
    src: Path,
    env_extra: Mapping[str, str] | None = None,
) -> dict[CaseKey, Measurement]:
    """The single-thread sim family's measurements of ``cases``, one valgrind process."""
    spec = harness.SimSpec(
        "benchmarks", str(REPO / "benchmarks"), "benchmarks.sim_hot_slice", "SimHotSlice",
        tuple(harness.SimCase(f"case{i:04d}", c) for i, c in enumerate(cases)), WEIGHTS, 1,
    )  # fmt: skip
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), str(REPO), str(REPO / "perfgate" / "src")])
    env.update(env_extra or {})
    out = harness.measure(spec, env=env, target_mode=TARGET["mode"])
    if out.failed:
        raise SystemExit(f"cases failed: {json.dumps(out.failed, indent=1)[:3000]}")
    found: dict[CaseKey, Measurement] = {}
    for case in spec.cases:
        task, profile, path, n = case.params
        params = (("task", repr(task)), ("profile", repr(profile)), ("path", repr(path)),
                  ("num_envs", str(n)))  # fmt: skip
        values = per_call(out.events[case.id], WEIGHTS)
        for bench, (name, unit) in FIGURES.items():
            key = CaseKey(f"sim_hot_slice.SimHotSlice.{bench}", params)
            found[key] = Measurement(key, (values[name],), version="trial", unit=unit)
    return found


def single_thread(tasks: Sequence[str], src: Path, head_src: Path) -> list[str]:
    """The alike head judged by the single-thread sim cases: base, base again (layout
    shifted) and head, the gate's rows (`compare_sim`)."""
    cases = [(t, "sac_default", "handwritten", n) for t in tasks for n in (2048, 8192)]
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        base = pool.submit(count_single, cases, src)
        again = pool.submit(count_single, cases, src, {LAYOUT_VARIABLE: "1"})
        head = pool.submit(count_single, cases, head_src)
        rows = compare_sim(base.result(), head.result(), again.result(), gate_config())
    return [
        f"{r.verdict.value:>10} {'blocking' if r.blocking else 'report  '} "
        f"{dict(r.key.params)['task']} N={dict(r.key.params)['num_envs']}: {r.note}"
        for r in rows
    ]


def run_aa(work: Path, tasks: Sequence[str], paths: Sequence[str]) -> None:
    """The A/A of two gate runs: every case counted in two processes of one commit, same
    layout (as two gate runs count the head), at once; the spread per T."""
    cases = grid(tasks, paths, [2048, 8192], [8, 32, 64])
    src = REPO / "termplan" / "src"
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        first, second = pool.submit(count, cases, src), pool.submit(count, cases, src)
        one, two = first.result(), second.result()
    doc = {
        "one": {repr(c): f for c, f in one.items()},
        "two": {repr(c): f for c, f in two.items()},
    }
    (work / "aa.json").write_text(json.dumps(doc, indent=1))
    print("## A/A: two processes, same layout\n" + "\n".join(spreads(one, two)))
    print("\n" + table(one))


def run_wall(work: Path) -> None:
    """Projected E(2) (counted) vs the wall clock's E(2), every Numba path, both tasks."""
    from benchmarks._common import Case as Built
    from benchmarks._common import interleaved_medians

    cases = grid(["g1_walk", "motion_tracking"], ["handwritten", "assembled"], [2048, 8192], [2])
    projected = count(cases, REPO / "termplan" / "src")
    import numba

    rows = []
    for task, path, n, _t in cases:
        one = Built(task, "sac_default", path, n, 1)
        two = Built(task, "sac_default", path, n, 2, one.batch)
        t1, t2 = interleaved_medians([one, two], min_rounds=31, max_rounds=201, budget_s=20.0)
        e = projected[(task, path, n, 2)]["efficiency_instructions"]
        rows.append(f"| {task} | {path} | {n} | {e:.3f} | {t1 / (2 * t2):.3f} | "
                    f"{t1 * 1e6:.0f} / {t2 * 1e6:.0f} |")  # fmt: skip
    layer = numba.threading_layer()
    print(f"| task | path | N | projected E(2) | wall E(2) ({layer}) | T1 / T2 (us) |")
    print("|---|---|---:|---:|---:|---:|")
    print("\n".join(rows))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("project", "aa", "trials", "wall"))
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--serial-share", type=float, default=0.03)
    parser.add_argument("--imbalance-passes", type=int, default=2)
    parser.add_argument(
        "--tasks",
        default="g1_walk,motion_tracking",
        help="project: both tasks; trials: give g1_walk or motion_tracking or both",
    )
    parser.add_argument("--sizes", default="2048,8192")
    parser.add_argument(
        "--paths",
        default="handwritten,assembled",
        help="trials: the Numba paths counted (handwritten alone: no serial head)",
    )
    parser.add_argument(
        "--target",
        choices=("auto", "host", "valgrind", "baseline"),
        default="auto",
        help="the JIT's CPU under valgrind (valgrind: code valgrind decodes)",
    )
    args = parser.parse_args(argv)
    TARGET["mode"] = args.target
    args.work.mkdir(parents=True, exist_ok=True)
    if args.mode == "project":
        cases = grid(args.tasks.split(","), ["handwritten", "assembled"],
                     [int(n) for n in args.sizes.split(",")], [8, 32, 64])  # fmt: skip
        counted = count(cases, REPO / "termplan" / "src")
        (args.work / "project.json").write_text(
            json.dumps({repr(c): f for c, f in counted.items()}, indent=1)
        )
        print(table(counted))
    elif args.mode == "aa":
        run_aa(args.work, args.tasks.split(","), args.paths.split(","))
    elif args.mode == "trials":
        tasks, paths = args.tasks.split(","), args.paths.split(",")
        run_trials(args.work, args.serial_share, args.imbalance_passes, tasks, paths)
    else:
        os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")
        run_wall(args.work)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
