"""``perfgate gate --plan``: the rounds a run would make and its expected minutes, without
measuring anything.

The cases are the ones the run itself would measure: asv discovers the suites of both
exported commits under the run's own grid (``just-discover``: the runner-derived grid of a
full gate, the suites' default grid of ``--quick``), so the plan never lists a grid an
earlier, different run measured. Their costs come from the newest earlier run in the work
folder (asv's per-benchmark durations of every round it made); a case it did not measure
gets what ``perfgate init`` measured of it (``[tool.perfgate.costs]``), else the documented
default of its family (`perfgate.wall.plan.DEFAULT_COSTS`). What a
run takes beyond its cases (set-up, parity, asv's own seconds per round, extra rounds) comes
from the newest earlier run of the same kind that recorded its ``timeline.json``. The output
says what the estimate is based on.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from perfgate.asv.discover import check_selection, discovered_names
from perfgate.config import GateConfig
from perfgate.formats import asv_results, timeline
from perfgate.formats.benchmarks_json import Suite, case_names, read_benchmarks
from perfgate.gate import context, instruments, parity, sides
from perfgate.gate.context import Revisions
from perfgate.gate.hooks import Hooks
from perfgate.gate.run_plan import RunPlan
from perfgate.model import CaseKey
from perfgate.settings import GateOptions
from perfgate.sim import callgrind
from perfgate.sim import phase as sim_phase
from perfgate.sim import plan as sim_plan
from perfgate.wall import first_costs, plan


def _init_parity(
    overheads: plan.Overheads, note: str, config: GateConfig, quick: bool, command: str | None
) -> tuple[plan.Overheads, str]:
    """Parity as ``perfgate init`` measured it (``[tool.perfgate.costs]`` ``parity_s`` or
    ``quick_parity_s``) where no earlier run counted it."""
    costs = config.costs
    seen = None if costs is None else costs.quick_parity_s if quick else costs.parity_s
    if command is None or seen is None or overheads.parity_s > 0:
        return overheads, note
    note = note.replace("parity not counted", "parity as perfgate init measured it")
    if "perfgate init measured it" not in note:
        note += f"; parity ({command}) as perfgate init measured it"
    return replace(overheads, parity_s=seen), note


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
    """Per-case cost of one side of one round, from asv's durations in its result file
    (a benchmark's duration shared between the cases that ran, not the skipped ones)."""
    out: dict[CaseKey, float] = {}
    for result in _results(folder, suite):
        ran = [k for k, c in result.cases.items() if c.state is not _SKIPPED]
        out.update(plan.case_costs(result.durations, ran))
    return out


def _results(folder: Path, suite: Suite) -> Iterator[asv_results.ResultSet]:
    """Every asv result file of one side's round folder, read against ``suite``."""
    for machine in asv_results.list_machines(folder):
        for file in asv_results.iter_result_files(folder, machine):
            yield asv_results.read_result_file(file.path, suite)


_SKIPPED = asv_results.CaseState.SKIPPED


def skipped_cases(run_dir: Path) -> set[CaseKey]:
    """Cases the suites skipped on both sides of an earlier run's first round (e.g. a
    path that runs at one thread count only): the run would not measure them again. A round
    split into asv runs by attributes (``-g1``...) is read group by group: base and head of
    one group agree, the groups together make the round."""
    out: set[CaseKey] = set()
    for base in sorted(run_dir.glob("main-r000-base*")):
        head = base.with_name(base.name.replace("-base", "-head", 1))
        if head.is_dir():
            out |= _skipped_in(base) & _skipped_in(head)
    return out


def _skipped_in(folder: Path) -> set[CaseKey]:
    """The cases asv recorded as skipped in one side's round folder."""
    results = _results(folder, read_benchmarks(folder))
    return {k for r in results for k, c in r.cases.items() if c.state is _SKIPPED}


def _defaults(keys: Iterable[CaseKey]) -> dict[CaseKey, float]:
    return {k: plan.default_cost(k.benchmark) for k in keys}


Lister = Callable[[GateOptions, Revisions, GateConfig], dict[CaseKey, str]]
"""(options, revisions, configuration) -> case -> asv name of every case the run would see."""


def discover_cases(opts: GateOptions, revs: Revisions, config: GateConfig) -> dict[CaseKey, str]:
    """The cases of both sides as the run would see them: the commits exported into a run
    folder of their own and asv's ``just-discover`` under the run's grid; the folder is
    removed afterwards (nothing was measured)."""
    hooks = Hooks()
    _pin, _fingerprint, s = context.settings_on_this_machine(
        opts, revs, config, hooks.fingerprint, hooks.valgrind
    )
    try:
        with sides.prepared(s) as s:
            hooks.register_machine(s.machine)  # asv's discovery needs the machine known
            return discovered_names(s, hooks.discover)
    finally:
        shutil.rmtree(s.run_dir, ignore_errors=True)


def build_plan(opts: GateOptions, lister: Lister | None = None) -> RunPlan:
    """The plan of ``opts``' run (configuration at the base commit, as the gate reads it):
    the cases ``lister`` finds (default: `discover_cases`), the wall clock's costed from
    the newest run, the sim family's from the newest timeline that recorded its phase."""
    revs = context.resolve_revisions(opts)
    config = context.load_gate_config(opts, revs)
    names = (lister or discover_cases)(opts, revs, config)
    check_selection(names, opts.bench)  # the run would refuse it: so does its plan
    work = opts.work_dir or revs.repo / context.WORK_DIR
    wall = _wall_plan(opts, config, selected(names, context.selection(opts, config)), work)
    on, note = instruments.planned_sim(config, installed_valgrind())
    if not on:
        return RunPlan(wall, None, note)
    sim_keys = selected(names, instruments.sim_selection(config, opts.bench, opts.quick))
    run = newest_run(work)
    skipped = sim_skipped(run) if run is not None else set()
    keys = [k for k in sim_keys if k not in skipped]
    return RunPlan(wall, sim_plan.plan_sim(keys, newest_sim_timeline(work)), note)


def _wall_plan(
    opts: GateOptions, config: GateConfig, keys: list[CaseKey], work: Path
) -> plan.Plan:
    """The wall clock's rounds of ``keys`` within the run's budget, costed from the newest
    run in ``work``, init's measured costs or the family defaults."""
    budget_s = context.budget_seconds(opts, config)
    run = newest_run(work)
    costs = stored_costs(run)[1] if run is not None else {}
    skipped = skipped_cases(run) & set(keys) if run is not None else set()
    keys = [k for k in keys if k not in skipped]
    known = {k: costs[k] for k in keys if k in costs}
    probed = first_costs.case_costs(config, [k for k in keys if k not in costs])
    missing = [k for k in keys if k not in costs and k not in probed]
    if run is None:
        basis = f"documented defaults per family (no earlier run in {work / 'runs'})"
        if probed:
            basis = first_costs.basis(config, len(probed))
            basis += f"; documented defaults for {len(missing)} case(s)" if missing else ""
    else:
        basis = f"costs measured by the run {run.name} ({len(known)} case(s))"
        if probed:
            basis += f"; {first_costs.basis(config, len(probed))}"
        if missing:
            basis += f"; documented defaults per family for {len(missing)} case(s) it lacks"
        if skipped:
            basis += f"; {len(skipped)} case(s) the suites skipped in that run left out"
    command = None if opts.parity_result else " ".join(parity.parity_command(config, opts.quick))
    earlier = newest_timeline(work, command)
    overheads, note = plan.overheads_from(earlier, command, config.min_samples)
    measured = first_costs.overheads(config)
    if earlier is None and measured is not None:
        overheads = measured
        note = (
            "asv's overhead per round as perfgate init measured it; parity not counted; "
            "extra rounds expected to last to the budget"
        )
    overheads, note = _init_parity(overheads, note, config, opts.quick, command)
    costs = {**known, **probed, **_defaults(missing)}
    return plan.plan_rounds(costs, config, budget_s, f"{basis}; {note}", overheads)


#: The installed valgrind's version (None: not installed): whether a run here counts with
#: the simulator when the policy leaves ``instruments`` unset (tests replace it).
installed_valgrind: Callable[[], str | None] = callgrind.installed_version


def sim_skipped(run_dir: Path) -> set[CaseKey]:
    """Sim cases both sides' first counts of an earlier run skipped (a case another class
    counts, as sim_scaling's SimScalingBaseline does): the run would not count them."""
    base, head = run_dir / sim_phase.RUNS[0][1], run_dir / sim_phase.RUNS[1][1]
    if not (base.is_dir() and head.is_dir()):
        return set()
    return _skipped_in(base) & _skipped_in(head)


def newest_sim_timeline(work_dir: Path) -> timeline.Timeline | None:
    """The newest run timeline that recorded a sim phase (None: no run did)."""
    runs = work_dir / "runs"
    folders = sorted(runs.iterdir(), reverse=True) if runs.is_dir() else []
    for t in map(timeline.read_timeline, folders):
        if t is not None and t.phase("sim") is not None:
            return t
    return None


def newest_timeline(work_dir: Path, parity_command: str | None) -> timeline.Timeline | None:
    """The newest run timeline with ``parity_command`` (a run of the same kind: the quick
    and the full gate run different parity commands), else the newest of any run (None:
    no run wrote one)."""
    runs = work_dir / "runs"
    folders = sorted(runs.iterdir(), reverse=True) if runs.is_dir() else []
    found = [t for t in map(timeline.read_timeline, folders) if t is not None]
    same = [t for t in found if t.parity_command == parity_command]
    newest = same or found
    return newest[0] if newest else None
