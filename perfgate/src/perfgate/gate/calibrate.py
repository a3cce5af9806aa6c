"""``perfgate calibrate``'s run: A/A rounds of one commit against itself, through the gate's
own context and instruments, into a noise file (the floors themselves:
`perfgate.calibration.floors`). With the sim instrument, every sim case is counted three
times in separate processes, their largest relative difference stored with the floors (a
gate on this machine then counts its base once where the check covers the case's version).
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from perfgate import machine
from perfgate.asv.discover import discovered_names
from perfgate.calibration.floors import floors_from_log
from perfgate.errors import UserError
from perfgate.formats import noise
from perfgate.formats.noise import CaseFloor, SimCheck
from perfgate.gate import context, instruments, sides
from perfgate.gate.hooks import Hooks
from perfgate.model import EnvironmentCheck
from perfgate.settings import GateOptions, GateSettings
from perfgate.sim.compare import determinism_checks
from perfgate.sim.phase import run_sim_phase
from perfgate.wall.measure import Measurer
from perfgate.wall.rounds import RoundLog


def calibrate(opts: GateOptions, count: int, hooks: Hooks) -> tuple[Path, list[CaseFloor]]:
    """``count`` A/A rounds of ``opts.head``; the noise file written and its floors."""
    revs = context.resolve_revisions(opts)
    config = context.load_gate_config(opts, revs)
    if count < config.min_samples:
        raise UserError(f"--rounds {count}: need at least min_samples = {config.min_samples}")
    plan, fp, settings = context.settings_on_this_machine(
        opts, revs, config, hooks.fingerprint, hooks.valgrind
    )
    with sides.prepared(settings) as settings:
        if opts.bench:  # only the instruments the selection has benchmarks for
            hooks.register_machine(settings.machine)
            names = discovered_names(settings, hooks.discover)
            settings = instruments.narrowed(settings, names.values())
        return _calibrate_run(count, hooks, plan, fp, settings)


def _calibrate_run(
    count: int,
    hooks: Hooks,
    plan: machine.PinPlan,
    fp: machine.Fingerprint,
    settings: GateSettings,
) -> tuple[Path, list[CaseFloor]]:
    config, machine_name = settings.config, settings.machine
    hooks.register_machine(machine_name)
    checks: list[SimCheck] = []
    if settings.sim_bench:
        sim = run_sim_phase(settings, settings.sim_bench, hooks.log, hooks.sim_runner)
        checks = determinism_checks([sim.base, sim.head, sim.base_again])
    measurer = Measurer(settings, fp.to_dict(), hooks.side_runner)
    log = RoundLog("calibrate")
    for i in range(count if settings.wall else 0):
        measurer.run_round(log, None)
        hooks.log(f"calibration round {i + 1}/{count} ({measurer.elapsed():.0f}s)")
    measurer.finish(log)
    end = hooks.fingerprint(plan)
    changed = EnvironmentCheck(
        context.comparable_fingerprint(fp), context.comparable_fingerprint(end)
    ).differing_keys
    if changed:  # a floor of a host that changed during calibration describes neither state
        raise UserError(f"the machine changed during calibration ({', '.join(changed)}); rerun")
    floors = floors_from_log(log, config.min_samples)
    if not floors and not checks:
        raise UserError("calibration measured no case in every round; nothing to store")
    now = _dt.datetime.now(_dt.UTC)
    target = noise.noise_dir(settings.work_dir, machine_name) / (
        now.strftime("%Y%m%dT%H%M%S%fZ") + ".json"
    )
    doc = noise.noise_document(
        floors,
        machine_name,
        settings.head,
        config.min_samples,
        fp.to_dict(),
        now.isoformat(timespec="seconds"),
        checks,
    )
    return noise.write_noise_floors_atomic(target, doc), floors
