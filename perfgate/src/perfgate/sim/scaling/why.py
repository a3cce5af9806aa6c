"""Why a case's projected E(T) moved (pure): its serial share, its imbalance, or neither.

A scaling case stores, per weighting, E(T), the serial share s and the critical path C
(`perfgate.sim.scaling.model`). From them the rest of the projection follows: the work of a
call is E x T x C, and E = 1 / (T s + I (1 - s)) gives the imbalance I (the largest
worker's share over the mean). E depends on s and I alone, so a moved E is put down to the
one whose change, the other held at the base's value, moves E more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Breakdown:
    """One side's projection at ``threads``: serial share, imbalance, work of a call."""

    threads: int
    serial_share: float
    imbalance: float
    work: float


def breakdown(efficiency: float, share: float, path: float, threads: int) -> Breakdown | None:
    """The projection behind stored E(T), serial share and critical path; None when they
    do not describe one (non-finite, out of range, or an imbalance below 1)."""
    if threads < 1 or not all(map(math.isfinite, (efficiency, share, path))):
        return None
    if not (0.0 < efficiency <= 1.0 + 1e-9 and 0.0 <= share < 1.0 and path > 0.0):
        return None
    imbalance = (1.0 / efficiency - threads * share) / (1.0 - share)
    if imbalance < 1.0 - 1e-6:
        return None
    return Breakdown(threads, share, max(imbalance, 1.0), efficiency * threads * path)


def _efficiency(threads: int, share: float, imbalance: float) -> float:
    return 1.0 / (threads * share + imbalance * (1.0 - share))


def moved_most(base: Breakdown, head: Breakdown) -> str:
    """ "serial share" or "imbalance": which change alone moves E(T) more."""
    e = _efficiency(base.threads, base.serial_share, base.imbalance)
    by_share = _efficiency(base.threads, head.serial_share, base.imbalance)
    by_imbalance = _efficiency(base.threads, base.serial_share, head.imbalance)
    share_move, imbalance_move = abs(math.log(by_share / e)), abs(math.log(by_imbalance / e))
    return "serial share" if share_move >= imbalance_move else "imbalance"


def _count(value: float) -> str:
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def why_text(base: Breakdown, head: Breakdown, unit: str) -> str:
    """``serial share 2.4% -> 5.0%, imbalance 3.31 -> 3.40, work 8M -> 15.2M instructions a
    call: the serial share moved it``."""
    return (
        f"serial share {base.serial_share:.1%} -> {head.serial_share:.1%}, imbalance "
        f"{base.imbalance:.2f} -> {head.imbalance:.2f}, work {_count(base.work)} -> "
        f"{_count(head.work)} {unit} a call: the {moved_most(base, head)} moved it"
    )
