"""The sim phase of a gate run: the simulated instrument's asv runs, all at once.

Three asv runs of the sim family: the base, the head and the base again, each one process of
its own. They run at the same time (callgrind's counts do not depend on what else runs, so
the machine's cores serve them all), before the wall-clock rounds (which must run alone).
The base's second run is the determinism check of every case (`compare.sim`), counted with
its memory layout shifted (`perfgate.sim.child.shift_layout`): the same code on data at
other addresses. A case whose instructions differ between the two counts is not
deterministic; one whose estimated cycles alone differ has misses that follow the layout,
and is decided on its instructions. The folders have names of one length, so the measured
processes' environments differ in nothing else but the commit's export.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from perfgate.asv.side_run import NothingSelected, SideRun, run_sides_together
from perfgate.formats.benchmarks_json import benchmark_units
from perfgate.formats.noise import SimCheck
from perfgate.formats.timeline import FamilyTime, PhaseTime
from perfgate.model import CaseKey, Measurement
from perfgate.settings import GateSettings
from perfgate.sim.attribution.keep import PROFILES_VARIABLE
from perfgate.sim.attribution.sides import KeptSide, load_side
from perfgate.sim.child import LAYOUT_VARIABLE
from perfgate.sim.figures import DECISIVE
from perfgate.sim.harness import PREPARE_DONE, PREPARE_ONLY, PREPARE_VARIABLE
from perfgate.sim.scaling.model import SCALING_DECISIVE

#: (side, folder) of the three runs; the folder names have one length on purpose
RUNS = (("base", "sim-base-1"), ("head", "sim-head-1"), ("base", "sim-base-2"))
#: the runs that prepare the base and the head, together
PREPARE = (("base", "sim-prep-base"), ("head", "sim-prep-head"))
#: variables of single runs: the base's second count has its memory layout shifted
RUN_ENV = {"sim-base-2": {LAYOUT_VARIABLE: "1"}}
#: side -> the folder its runs keep their per-function data into (`keep`): the preparing
#: run writes the kernels' code, the first counting run the cases' tables; the base's
#: layout-shifted count keeps nothing (kept files are never overwritten)
KEPT = {"base": "sim-kept-base", "head": "sim-kept-head"}
_KEEPING = {
    "sim-prep-base": "base",
    "sim-prep-head": "head",
    "sim-base-1": "base",
    "sim-head-1": "head",
}


def run_variables(
    run_dir: Path, shared: Mapping[str, Mapping[str, str]]
) -> dict[str, dict[str, str]]:
    """``shared`` (folder name -> its variables) with each keeping run's profiles folder."""
    out = {name: dict(extra) for name, extra in shared.items()}
    for name, side in _KEEPING.items():
        out.setdefault(name, {})[PROFILES_VARIABLE] = str(run_dir / KEPT[side])
    return out


SimRunner = Callable[
    [GateSettings, Sequence[tuple[str, Path]], Sequence[str], Mapping[str, Mapping[str, str]]],
    list[SideRun],
]
"""(settings, [(side, folder), ...], --bench regexes, {folder name: its own variables}) ->
one `SideRun` per run, in order."""


@dataclass(frozen=True)
class SimMeasured:
    """The sim family's measurements: base, head, the base's second count, and the phase's
    wall seconds (for the run's timeline)."""

    base: dict[CaseKey, Measurement]
    head: dict[CaseKey, Measurement]
    base_again: dict[CaseKey, Measurement]
    seconds: float
    #: side -> the asv environments its runs measured in (checked with the wall clock's)
    environments: dict[str, set[str]] = field(default_factory=dict)
    #: side -> what its runs kept per function (`perfgate.sim.attribution.sides`)
    kept: dict[str, KeptSide] = field(default_factory=dict)
    #: per family, the cases counted, the counting runs and its share of ``seconds``
    families: tuple[FamilyTime, ...] = ()

    def phase_time(self) -> PhaseTime:
        """The phase as the run's timeline records it (`perfgate.formats.timeline`)."""
        return PhaseTime("sim", self.seconds, self.families)


def family(benchmark: str) -> str:
    """The family (the asv suite module) of a sim benchmark's name."""
    return benchmark.split(".", 1)[0]


def counted_case(key: CaseKey) -> bool:
    """True for the one figure of a count that stands for the case (its decisive figure):
    a count gives several figures (cycles, instructions, misses; E(T), serial share...)."""
    return key.benchmark.endswith((f".{DECISIVE}", f".{SCALING_DECISIVE}"))


def family_times(
    runs: Sequence[SideRun], base: Mapping[CaseKey, Measurement], counting: int, seconds: float
) -> tuple[FamilyTime, ...]:
    """Per family of ``base``'s counted cases: their number, the ``counting`` runs and the
    family's share of the phase's ``seconds``, in proportion to the seconds asv recorded for
    its benchmarks and ``setup_cache`` phases over ``runs`` (by case count where asv
    recorded none)."""
    cases: dict[str, int] = {}
    for key, m in base.items():
        if counted_case(key) and not m.failed:
            cases[family(key.benchmark)] = cases.get(family(key.benchmark), 0) + 1
    weight = {f: 0.0 for f in cases}
    for run in runs:
        for name, spent in run.durations.items():
            owner = _setup_cache_module(name) or family(name)
            if owner in weight:
                weight[owner] += spent
    total = sum(weight.values())
    if total <= 0:
        weight, total = {f: float(n) for f, n in cases.items()}, float(sum(cases.values()))
    return tuple(
        FamilyTime(f, cases[f], counting, seconds * weight[f] / total if total else 0.0)
        for f in sorted(cases)
    )


def _setup_cache_module(phase: str) -> str | None:
    """The suite module of an asv ``<setup_cache sim_scaling:54>`` phase (else None)."""
    if not phase.startswith("<setup_cache "):
        return None
    return phase[len("<setup_cache ") :].split(":", 1)[0].split(".", 1)[0]


def sim_env(settings: GateSettings, bench: Sequence[str]) -> dict[str, str]:
    """What the sim suites read: the run's ``--bench`` regexes (the harness measures only the
    cases they select) and the JIT target mode (`perfgate.sim.target`)."""
    return {
        "PERFGATE_BENCH": json.dumps(list(bench)),
        "PERFGATE_SIM_TARGET": settings.config.sim.target,
    }


def measurements(run: SideRun) -> dict[CaseKey, Measurement]:
    """One run's cases as measurements (a failed case has no value), in their units and
    with their asv versions: a sim benchmark's version digests valgrind, the simulated caches
    and the measuring code (`perfgate.sim.suite.sim_version`), so runs under different ones
    are not comparable."""
    units = benchmark_units(run.suite)
    out = {}
    for key, samples in run.samples.items():
        unit = units.get(key.benchmark, "cycles")
        info = run.suite.get(key.benchmark)
        version = info.version if info is not None else None
        values = tuple(samples or ())
        out[key] = Measurement(key, values, failed=samples is None, version=version, unit=unit)
    return out


def run_sim_phase(
    settings: GateSettings,
    bench: Sequence[str],
    log: Callable[[str], None],
    runner: SimRunner = run_sides_together,
    checks: Mapping[CaseKey, SimCheck] | None = None,
) -> SimMeasured:
    """The runs of the sim family selected by ``bench`` (see the module). With ``checks``
    (the machine's calibrated determinism, `perfgate calibrate`) the base is counted once
    with the head, and again only when a case counted has no check of its version."""
    s = replace(settings, env={**settings.env, **sim_env(settings, bench)})
    counting = replace(s, env={**s.env, PREPARE_VARIABLE: PREPARE_DONE})
    runs = [(side, settings.run_dir / folder) for side, folder in RUNS]
    first = runs if not checks else runs[:2]
    started = time.monotonic()
    try:
        prepared = prepare(s, bench, log, runner)
        what = "the base twice and the head once" if len(first) == 3 else "the base and the head"
        log(f"sim: counting {what} under callgrind, all at once")
        done = list(runner(counting, first, bench, run_variables(settings.run_dir, RUN_ENV)))
    except NothingSelected:
        log(f"sim: the suite has no benchmark for {list(bench)}; nothing to count")
        return SimMeasured({}, {}, {}, time.monotonic() - started)
    base, head = measurements(done[0]), measurements(done[1])
    if len(done) == 2 and unchecked(base, checks or {}):
        log("sim: cases without a calibrated determinism check: counting the base again")
        done += runner(counting, runs[2:], bench, RUN_ENV)
    again = measurements(done[2]) if len(done) == 3 else {}
    seconds = time.monotonic() - started
    log(f"sim: {_count(head)} case figure(s) measured ({seconds:.0f}s)")
    environments: dict[str, set[str]] = {}
    for (side, _folder), run in zip(runs, done, strict=False):
        environments.setdefault(side, set()).add(run.env_name)
    kept = {side: load_side(settings.run_dir / folder) for side, folder in KEPT.items()}
    families = family_times([*prepared, *done], base, len(done), seconds)
    return SimMeasured(base, head, again, seconds, environments, kept, families)


def prepare(
    settings: GateSettings, bench: Sequence[str], log: Callable[[str], None], runner: SimRunner
) -> list[SideRun]:
    """One run of the base and one of the head, together, before any count: each builds and
    calls every case natively and reports nothing (what the JIT's cache lacks is compiled and
    cached, a broken case fails in seconds), so no counting run compiles or writes a cache
    file; the counting runs then make the simulated pass alone (`perfgate.sim.harness.Stage`).
    A preparing run used to make a pass under valgrind too, to make the counts of a fresh
    clone agree; the layout check (`compare.sim`) now handles what that pass hid (counts
    that follow where the data lie), and each case is built under valgrind once, to count."""
    log("sim: preparing the base and the head (each case built and called natively, not counted)")
    prepare_env = replace(settings, env={**settings.env, PREPARE_VARIABLE: PREPARE_ONLY})
    runs = [(side, settings.run_dir / folder) for side, folder in PREPARE]
    return list(runner(prepare_env, runs, bench, run_variables(settings.run_dir, {})))


def unchecked(base: Mapping[CaseKey, Measurement], checks: Mapping[CaseKey, SimCheck]) -> bool:
    """True when a counted case of ``base`` has no calibrated check of its version."""
    for key, m in base.items():
        check = checks.get(key.canonical())
        if key.benchmark.endswith(f".{SCALING_DECISIVE}") and not m.failed:
            return True  # calibrate checks no scaling case: its base is counted again
        if key.benchmark.endswith(f".{DECISIVE}") and not m.failed:
            if check is None or check.version != m.version:
                return True
    return False


def _count(side: Mapping[CaseKey, Measurement]) -> int:
    return sum(1 for m in side.values() if not m.failed)
