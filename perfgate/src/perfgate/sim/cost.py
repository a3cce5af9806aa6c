"""Callgrind's events of one measured call and the cost model that turns them into cycles.

Cost model (fixed weights, published here and in the README; changing them changes every
sim benchmark's asv version, so old and new figures are never compared)::

    estimated cycles = Ir + 10 x (I1mr + D1mr + D1mw) + 100 x (ILmr + DLmr + DLmw)

Ir is instructions executed; I1mr/D1mr/D1mw are first-level instruction-read, data-read and
data-write misses; ILmr/DLmr/DLmw the same at the last level. The weights are those of
KCachegrind's "cycle estimation" (CEst = Ir + 10 Bm + 10 L1m + 20 Ge + 100 LLm) without the
branch-misprediction and global-bus terms, which this instrument does not simulate: an L1 miss
that hits the last level costs about ten instructions, a last-level miss about a hundred.
The simulated caches are fixed (`callgrind.CACHE`), not the host's, so the model does not move
with the machine's caches. Each event is kept beside the estimate so a report can say what
changed: more instructions, or more misses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from perfgate.model import Shift

#: callgrind's event names, in the order it writes them with --cache-sim=yes
EVENT_NAMES = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")
L1_WEIGHT = 10
LL_WEIGHT = 100
#: the model's name, part of every sim benchmark's version
MODEL = f"Ir+{L1_WEIGHT}*L1m+{LL_WEIGHT}*LLm"


@dataclass(frozen=True)
class Events:
    """Callgrind's counts for one stretch of execution (one case's measured calls)."""

    ir: int
    dr: int = 0
    dw: int = 0
    i1mr: int = 0
    d1mr: int = 0
    d1mw: int = 0
    ilmr: int = 0
    dlmr: int = 0
    dlmw: int = 0

    @classmethod
    def from_counts(cls, counts: Mapping[str, int]) -> Events:
        """From callgrind's ``events:`` names to counts (absent events count 0); a
        negative count (a wrapped total) or no ``Ir`` is a ValueError."""
        if "Ir" not in counts:
            raise ValueError(f"callgrind events without Ir: {sorted(counts)}")
        bad = {k: v for k, v in counts.items() if v < 0}
        if bad:
            raise ValueError(f"negative callgrind counts {bad}")
        values = [int(counts.get(name, 0)) for name in EVENT_NAMES]
        return cls(*values)

    @property
    def l1_misses(self) -> int:
        """First-level misses: instruction reads, data reads and data writes."""
        return self.i1mr + self.d1mr + self.d1mw

    @property
    def ll_misses(self) -> int:
        """Last-level misses: instruction reads, data reads and data writes."""
        return self.ilmr + self.dlmr + self.dlmw

    @property
    def cycles(self) -> int:
        """Estimated cycles (the module's cost model)."""
        return self.ir + L1_WEIGHT * self.l1_misses + LL_WEIGHT * self.ll_misses

    def figures(self) -> dict[str, int]:
        """The figures a sim suite stores: the estimate and the events behind it."""
        return {
            "cycles": self.cycles,
            "instructions": self.ir,
            "l1_misses": self.l1_misses,
            "ll_misses": self.ll_misses,
        }

    def to_dict(self) -> dict[str, int]:
        """Plain data (callgrind's names)."""
        return dict(zip(EVENT_NAMES, (getattr(self, f.name) for f in fields(self)), strict=True))


def per_call(calls: Sequence[Events], weights: Sequence[int]) -> dict[str, float]:
    """The figures per call of measured ``calls`` (one `Events` each) with ``weights``: the
    weighted mean, e.g. one logging step and one plain step weighted 1:3 stand for a loop
    that logs every fourth step."""
    if len(calls) != len(weights) or not calls:
        raise ValueError(
            f"expected one weight per measured call, got {len(weights)} for {len(calls)}"
        )
    if any(w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(
            f"weights: expected non-negative weights with a positive sum, got {weights}"
        )
    total = sum(weights)
    names = calls[0].figures()
    return {
        name: sum(w * e.figures()[name] for e, w in zip(calls, weights, strict=True)) / total
        for name in names
    }


#: What each stored figure contributes to the estimate, per unit.
WEIGHTS = {"instructions": 1, "l1_misses": L1_WEIGHT, "ll_misses": LL_WEIGHT}


def shifts(
    base: Mapping[str, float], head: Mapping[str, float], base_cycles: float
) -> tuple[Shift, ...]:
    """Each event of `WEIGHTS` present on both sides, the largest contribution (by size)
    first: what moved the cycles. Events missing on either side are left out."""
    if not base_cycles > 0:
        return ()
    out = [
        Shift(name, base[name], head[name], w * (head[name] - base[name]) / base_cycles)
        for name, w in WEIGHTS.items()
        if name in base and name in head
    ]
    return tuple(sorted(out, key=lambda s: -abs(s.contribution)))
