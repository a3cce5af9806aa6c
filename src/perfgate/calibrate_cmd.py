"""`perfgate calibrate`: A/A rounds on this runner -> a noise floor per case.

    perfgate calibrate [--rev REV] [--rounds R] [--quick] [--bench REGEX ...]
        [--config PYPROJECT] [--repo DIR] [--work-dir DIR] [--machine NAME]

Runs one commit against itself in the gate's interleaved rounds (the same asv processes,
pinning and sample format as ``perfgate gate``) and stores, per case, the relative change
that A/A noise alone reaches: a new ``perfgate-noise`` v1 file
``WORK/noise/<machine>/<UTC time>.json`` per calibration (atomic, never overwritten); the
gate reads the newest one for its machine id and never uses a threshold below the floor.

Which spread: the gate compares a ratio of medians over at least ``min_samples`` paired
rounds with the threshold, so the floor is taken from that same statistic. For every window
of ``min_samples`` consecutive A/A rounds the ratio of pooled medians is formed, and the floor
is ``stats.noise_floor`` of those ratios (the 95% quantile of |ln ratio|, or the maximum when
there are fewer than 20 windows). The per-round spread (one process against one process) is
recorded too, as ``round_floor``, for information: it is much wider, and using it would put
every threshold above the effects the gate is meant to catch.

Exit codes: 0 calibrated, 3 error (nothing written).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfgate import compare, gate, gate_cmd, gate_rounds, machine, policy, runner, stats, store
from perfgate.errors import UserError
from perfgate.gate_rounds import RoundLog
from perfgate.store import CaseKey

DEFAULT_ROUNDS = 12


def add_parser(subparsers: Any) -> None:
    """Register the ``calibrate`` subcommand."""
    p = subparsers.add_parser(
        "calibrate",
        help="A/A rounds of one commit -> per-case noise floors for this machine",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--rev", default="HEAD", help="commit measured against itself (HEAD)")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="A/A rounds (12)")
    gate_cmd.add_measurement_args(p, quick_help="the quick grid of the gate")
    p.set_defaults(func=run_from_args)


@dataclass(frozen=True)
class CaseFloor:
    """The calibrated noise of one case."""

    key: CaseKey
    noise_floor: float
    round_floor: float
    windows: int
    rounds: int


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


def case_floor(m_base: compare.Measurement, m_head: compare.Measurement, window: int) -> CaseFloor:
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


def floors_from_log(log: RoundLog, sha: str, window: int) -> list[CaseFloor]:
    """Floors of every case measured in all rounds without failure."""
    base_m, head_m = gate_rounds.measurements(log, sha, sha)
    out = []
    for key in sorted(set(base_m) & set(head_m), key=compare.natural_key):
        b, h = base_m[key], head_m[key]
        if b.failed or h.failed or not b.valid or not h.valid or b.rounds is None:
            continue
        if len(b.rounds) >= window:
            out.append(case_floor(b, h, window))
    return out


def noise_document(
    floors: Sequence[CaseFloor], machine_name: str, sha: str, window: int, fp: dict[str, Any]
) -> dict[str, Any]:
    """The ``perfgate-noise`` v1 document (extra keys are informational)."""
    return {
        "api_version": store.NOISE_API_VERSION,
        "kind": store.NOISE_KIND,
        "machine": machine_name,
        "created_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "commit": sha,
        "window": window,
        "fingerprint": fp,
        "cases": [
            {
                "benchmark": f.key.benchmark,
                "params": dict(f.key.params),
                "noise_floor": f.noise_floor,
                "round_floor": f.round_floor,
                "pairs": f.windows,
                "rounds": f.rounds,
            }
            for f in floors
        ],
    }


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `run`."""
    opts = gate_cmd.GateOptions(base=args.rev, head=args.rev, **gate_cmd.measurement_options(args))
    return run(opts, args.rounds)


def run(opts: gate_cmd.GateOptions, rounds: int, hooks: gate_cmd.Hooks | None = None) -> int:
    """Calibrate and write the noise file; print a summary; 0 or 3."""
    hooks = hooks or gate_cmd.Hooks()
    try:
        path, floors = _calibrate(opts, rounds, hooks)
    except (UserError, runner.RunnerError, OSError) as exc:
        print(f"perfgate calibrate: error: {exc}", file=sys.stderr)
        return 3
    hooks.write(_summary(path, floors))
    return 0


def _calibrate(
    opts: gate_cmd.GateOptions, rounds: int, hooks: gate_cmd.Hooks
) -> tuple[Path, list[CaseFloor]]:
    revs = gate_cmd.resolve_revisions(opts)
    config = gate_cmd.load_gate_config(opts, revs)
    if rounds < config.min_samples:
        raise UserError(f"--rounds {rounds}: need at least min_samples = {config.min_samples}")
    plan = gate.pin_plan(config.pin_threads)
    fp = hooks.fingerprint(plan)
    machine_name = opts.machine or gate.machine_id(fp)
    settings = gate_cmd.build_settings(opts, revs, config, plan, machine_name)
    try:
        return _calibrate_run(rounds, hooks, plan, fp, settings)
    finally:
        gate_cmd.discard_exports(settings)


def _calibrate_run(
    rounds: int,
    hooks: gate_cmd.Hooks,
    plan: machine.PinPlan,
    fp: machine.Fingerprint,
    settings: gate.GateSettings,
) -> tuple[Path, list[CaseFloor]]:
    config, machine_name = settings.config, settings.machine
    hooks.register_machine(machine_name)
    measurer = gate.Measurer(settings, fp.to_dict(), hooks.side_runner)
    log = RoundLog("calibrate")
    for i in range(rounds):
        measurer.run_round(log, None)
        hooks.log(f"calibration round {i + 1}/{rounds} ({measurer.elapsed():.0f}s)")
    measurer.finish(log)
    end = hooks.fingerprint(plan)
    changed = policy.EnvironmentCheck(
        gate.comparable_fingerprint(fp), gate.comparable_fingerprint(end)
    ).differing_keys
    if changed:  # a floor of a host that changed during calibration describes neither state
        raise UserError(f"the machine changed during calibration ({', '.join(changed)}); rerun")
    floors = floors_from_log(log, settings.head, config.min_samples)
    if not floors:
        raise UserError("calibration measured no case in every round; nothing to store")
    work = settings.run_dir.parent.parent
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = gate.noise_dir(work, machine_name) / f"{stamp}.json"
    doc = noise_document(floors, machine_name, settings.head, config.min_samples, fp.to_dict())
    return store.write_noise_floors_atomic(target, doc), floors


def _summary(path: Path, floors: Sequence[CaseFloor]) -> str:
    lines = [f"noise floors written to {path}", "", "| case | floor | per-round | windows |"]
    lines.append("|---|---:|---:|---:|")
    for f in floors:
        lines.append(
            f"| {f.key.label()} | {100 * f.noise_floor:.2f}% | {100 * f.round_floor:.2f}% "
            f"| {f.windows} |"
        )
    return "\n".join(lines)
