"""``perfgate gate --plan``: the rounds a run would make and its expected minutes, without
measuring anything.

The cases and their costs come from the newest earlier run in the work folder (its
``benchmarks.json`` and asv's per-benchmark durations of every round it made); with no
earlier run, the cases come from the asv results folder's ``benchmarks.json`` and the costs
are the documented defaults per family (`perfgate.pipeline.plan.DEFAULT_COSTS`). The
output says which of the two the estimate is based on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from perfgate.errors import UserError
from perfgate.formats import asv_conf, asv_results
from perfgate.formats.benchmarks_json import Suite, case_names, read_benchmarks
from perfgate.model import CaseKey
from perfgate.pipeline import context, plan
from perfgate.pipeline.context import GateOptions


def selected(names: Mapping[CaseKey, str], bench: Sequence[str]) -> list[CaseKey]:
    """Cases whose asv name matches one of the ``--bench`` regexes (asv's ``re.search``)."""
    return [k for k, name in names.items() if any(re.search(b, name) for b in bench)]


def newest_run(work_dir: Path) -> Path | None:
    """The newest run folder with at least one measured round (names start with a stamp)."""
    runs = work_dir / "runs"
    if not runs.is_dir():
        return None
    done = [r for r in sorted(runs.iterdir()) if any(r.glob("*-r*/benchmarks.json"))]
    return done[-1] if done else None


def stored_costs(run_dir: Path) -> tuple[dict[CaseKey, str], dict[CaseKey, float]]:
    """(case -> asv name, case -> seconds of one round on both sides) of an earlier run.

    Costs are per round folder (one side), summed over a base and a head folder of the
    same round; a later round's figure replaces an earlier one.
    """
    names: dict[CaseKey, str] = {}
    costs: dict[CaseKey, float] = {}
    for folder in sorted(run_dir.glob("*-r*-base*")):  # "-g1"...: one folder per asv run
        head = folder.with_name(folder.name.replace("-base", "-head", 1))
        suite = read_benchmarks(folder)
        names.update(case_names(suite))
        sides = [_side_costs(f, suite) for f in (folder, head) if f.is_dir()]
        for key in set.intersection(*(set(s) for s in sides)) if sides else ():
            costs[key] = sum(s[key] for s in sides)
    return names, costs


def _side_costs(folder: Path, suite: Suite) -> dict[CaseKey, float]:
    """Per-case cost of one side of one round, from asv's durations in its result file."""
    out: dict[CaseKey, float] = {}
    for machine in asv_results.list_machines(folder):
        for file in asv_results.iter_result_files(folder, machine):
            result = asv_results.read_result_file(file.path, suite)
            out.update(plan.case_costs(result.durations, result.cases))
    return out


def _defaults(keys: Iterable[CaseKey]) -> dict[CaseKey, float]:
    return {k: plan.default_cost(k.benchmark) for k in keys}


def build_plan(opts: GateOptions) -> plan.Plan:
    """The plan of ``opts``' run (configuration at the base commit, as the gate reads it)."""
    revs = context.resolve_revisions(opts)
    config = context.load_gate_config(opts, revs)
    bench = context.selection(opts, config)
    budget_s = context.budget_seconds(opts, config)
    work = opts.work_dir or revs.repo / context.WORK_DIR
    run = newest_run(work)
    if run is not None:
        names, costs = stored_costs(run)
        keys = selected(names, bench)
        known = {k: costs[k] for k in keys if k in costs}
        missing = [k for k in keys if k not in costs]
        basis = f"costs measured by the run {run.name} ({len(known)} case(s))"
        if missing:
            basis += f"; documented defaults per family for {len(missing)} case(s) it lacks"
        return plan.plan_rounds({**known, **_defaults(missing)}, config, budget_s, basis)
    results = _results_dir(revs.repo)
    try:
        names = case_names(read_benchmarks(results))
    except UserError as exc:
        raise UserError(
            f"--plan: no earlier run in {work / 'runs'} and no asv benchmarks.json to list "
            f"the cases ({exc}); run the gate (or asv) once"
        ) from None
    keys = selected(names, bench)
    basis = f"documented defaults per family (no earlier run in {work / 'runs'})"
    return plan.plan_rounds(_defaults(keys), config, budget_s, basis)


def _results_dir(repo: Path) -> Path:
    conf = asv_conf.read_asv_conf(repo / "asv.conf.json")
    return repo / str(conf.get("results_dir", ".asv/results"))


def render_text(p: plan.Plan) -> str:
    """The plan for a terminal: basis, budget, expected minutes, one line per case."""
    lines = [
        f"plan based on: {p.basis}",
        f"budget {p.budget_s / 60:.1f} min; main phase {p.rounds} round(s), expected "
        f"{p.expected_s / 60:.1f} min (extra and confirmation rounds follow while the "
        "budget lasts)",
    ]
    if p.short:
        lines.append(
            f"short: {len(p.short)} blocking case(s) would get fewer than {p.min_samples} "
            "rounds (exit 3, never a pass): " + ", ".join(k.label() for k in p.short)
        )
    lines.append("case | blocking | seconds per round (both sides) | rounds")
    for c in p.cases:
        block = "yes" if c.blocking else "no"
        lines.append(f"{c.key.label()} | {block} | {c.cost_s:.1f} | {c.rounds}")
    return "\n".join(lines) + "\n"
