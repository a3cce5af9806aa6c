"""Noise floors from A/A rounds (pure): the gate compares a ratio of medians over at least
``min_samples`` paired rounds with the threshold, so the floor is taken from that same
statistic: for every window of ``min_samples`` consecutive A/A rounds the ratio of pooled
medians is formed, and the floor is ``stats.noise_floor`` of those ratios. The per-round
spread is recorded too, as ``round_floor``, for information (see ``perfgate calibrate
--help``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from perfgate import stats
from perfgate.formats import noise
from perfgate.formats.noise import CaseFloor
from perfgate.model import Measurement, natural_key
from perfgate.wall import rounds
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
