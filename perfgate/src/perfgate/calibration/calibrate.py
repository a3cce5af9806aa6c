"""Calibration: A/A rounds of one commit against itself -> a noise floor per case; and, with
the sim instrument, its determinism on this machine: every sim case counted three times in
separate processes, their largest relative difference stored with the floors (a gate on
this machine then counts its base once where the check covers the case's version).

The gate compares a ratio of medians over at least ``min_samples`` paired rounds with the
threshold, so the floor is taken from that same statistic: for every window of
``min_samples`` consecutive A/A rounds the ratio of pooled medians is formed, and the floor
is ``stats.noise_floor`` of those ratios. The per-round spread is recorded too, as
``round_floor``, for information (see ``perfgate calibrate --help``).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from perfgate import machine, stats
from perfgate.asv.discover import discovered_names
from perfgate.errors import UserError
from perfgate.formats import noise
from perfgate.formats.noise import CaseFloor, SimCheck
from perfgate.gate import context, instruments
from perfgate.gate.context import GateOptions, GateSettings
from perfgate.gate.hooks import Hooks
from perfgate.model import EnvironmentCheck, Measurement, natural_key
from perfgate.sim.compare import determinism_checks
from perfgate.sim.phase import run_sim_phase
from perfgate.wall import rounds
from perfgate.wall.measure import Measurer
from perfgate.wall.rounds import RoundLog


def window_ratios(
    base_rounds: Sequence[Sequence[float]], head_rounds: Sequence[Sequence[float]], window: int
) -> list[float]:
    """Ratio of pooled medians head/base over every ``window`` consecutive paired rounds."""
    if len(base_rounds) != len(head_rounds):
        raise ValueError("window_ratios: base and head need the same number of rounds")
    if not 1 <= window <= len(base_rounds):
        raise ValueError(f"window_ratios: window {window} not in 1..{len(base_rounds)}")
    out = []
    for i in range(len(base_rounds) - window + 1):
        b = [s for r in base_rounds[i : i + window] for s in r]
        h = [s for r in head_rounds[i : i + window] for s in r]
        out.append(stats.ratio_of_medians(b, h))
    return out


def case_floor(m_base: Measurement, m_head: Measurement, window: int) -> CaseFloor:
    """The noise floor of one case from its paired A/A rounds."""
    assert m_base.rounds is not None and m_head.rounds is not None
    ratios = window_ratios(m_base.rounds, m_head.rounds, window)
    per_round = [
        float(np.median(h)) / float(np.median(b))
        for b, h in zip(m_base.rounds, m_head.rounds, strict=True)
    ]
    return CaseFloor(
        key=m_base.key,
        noise_floor=stats.noise_floor(ratios),
        round_floor=stats.noise_floor(per_round),
        windows=len(ratios),
        rounds=len(per_round),
    )


def floors_from_log(log: RoundLog, window: int) -> list[CaseFloor]:
    """Floors of every case measured in all rounds without failure."""
    base_m, head_m = rounds.measurements(log)
    out = []
    for key in sorted(set(base_m) & set(head_m), key=natural_key):
        b, h = base_m[key], head_m[key]
        if b.failed or h.failed or not b.valid or not h.valid or b.rounds is None:
            continue
        if len(b.rounds) >= window:
            out.append(case_floor(b, h, window))
    return out


def calibrate(opts: GateOptions, count: int, hooks: Hooks) -> tuple[Path, list[CaseFloor]]:
    """``count`` A/A rounds of ``opts.head``; the noise file written and its floors."""
    revs = context.resolve_revisions(opts)
    config = context.load_gate_config(opts, revs)
    if count < config.min_samples:
        raise UserError(f"--rounds {count}: need at least min_samples = {config.min_samples}")
    plan, fp, settings = context.settings_on_this_machine(
        opts, revs, config, hooks.fingerprint, hooks.valgrind
    )
    try:
        if opts.bench:  # only the instruments the selection has benchmarks for
            hooks.register_machine(settings.machine)
            names = discovered_names(settings, hooks.discover)
            settings = instruments.narrowed(settings, names.values())
        return _calibrate_run(count, hooks, plan, fp, settings)
    finally:
        context.discard_exports(settings)


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


def summary(path: Path, floors: Sequence[CaseFloor]) -> str:
    """The markdown tables ``perfgate calibrate`` prints: the floors, and the sim cases'
    determinism when the file holds it."""
    lines = [f"noise floors written to {path}", "", "| case | floor | per-round | windows |"]
    lines.append("|---|---:|---:|---:|")
    for f in floors:
        lines.append(
            f"| {f.key.label()} | {100 * f.noise_floor:.2f}% | {100 * f.round_floor:.2f}% "
            f"| {f.windows} |"
        )
    checks = noise.read_noise_file(path).sim_checks()
    if checks:
        lines += ["", "| sim case | counts | largest difference |", "|---|---:|---:|"]
        for check in checks.values():
            lines.append(f"| {check.key.label()} | {check.counts} | {check.spread:.4%} |")
    return "\n".join(lines)
