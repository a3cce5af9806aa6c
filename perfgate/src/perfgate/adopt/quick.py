"""The quick gate ``perfgate init`` proposes, from what one run of the suite cost (pure).

The quick gate (``perfgate gate --quick``) must decide within ``quick_budget_minutes``: its
selection gets ``min_samples`` paired rounds, each both sides of every selected benchmark
plus asv's own seconds per process. From the `perfgate.adopt.probe.Probe` of the suite
this picks the blocking benchmarks that fit with `SAFETY` to spare (a shared CI runner is
slower than the machine init ran on, and the gate gives what is left to extra rounds):
the cheapest benchmark of each blocking family first, then the cheapest others. Broken
benchmarks are never selected. When not even the cheapest benchmark fits, it is selected
alone and the budget raised to what it needs, never left at a figure that cannot decide.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from perfgate.adopt.probe import Probe
from perfgate.config_costs import MeasuredCosts

#: The selection's ``min_samples`` rounds take at most 1/SAFETY of the budget.
SAFETY = 2.0
_SETUP = re.compile(r"^<setup_cache (\w+)[.:]")


@dataclass(frozen=True)
class QuickChoice:
    """The proposed quick selection and budget, and the figures behind them."""

    bench: tuple[str, ...]
    names: tuple[str, ...]
    budget_minutes: float
    round_s: float  # one round of the selection, both sides, asv's overhead included
    rounds: int
    left_out: int  # working blocking benchmarks not selected
    raised: bool  # the budget had to grow to fit even one benchmark

    @property
    def expected_minutes(self) -> float:
        """Minutes of the selection's ``rounds`` rounds."""
        return self.round_s * self.rounds / 60.0


def selection_regex(name: str) -> str:
    """asv's ``--bench`` regex of benchmark ``name`` and every parameter combination of it:
    asv matches a parameterized benchmark as ``name(1, 2)``, so an anchored ``name$`` would
    select none of its cases (and ``name`` alone would also select ``name_more``)."""
    return "^" + re.escape(name) + r"(\(|$)"


def measured_costs(probe: Probe) -> MeasuredCosts:
    """The probe as ``[tool.perfgate.costs]``: both sides of a round (twice one side)."""
    rows = tuple((name, round(2.0 * s, 3)) for name, s in sorted(probe.seconds.items()))
    return MeasuredCosts(rows, round(2.0 * probe.overhead_s, 3), probe.machine)


def _module(name: str) -> str:
    return name.split(".", 1)[0]


def _round_s(names: Sequence[str], probe: Probe) -> float:
    """One round of ``names`` on both sides: their seconds, their modules' setup_cache
    phases, asv's overhead of two processes."""
    modules = {_module(n) for n in names}
    setup = sum(
        s for phase, s in probe.seconds.items() if (m := _SETUP.match(phase)) and m[1] in modules
    )
    return 2.0 * (sum(probe.seconds[n] for n in names) + setup + probe.overhead_s)


def _order(candidates: Sequence[str], probe: Probe) -> list[str]:
    """The cheapest of each family first (by cost), then the rest by cost."""
    by_cost = sorted(candidates, key=lambda n: (probe.seconds[n], n))
    firsts: dict[str, str] = {}
    for name in by_cost:
        firsts.setdefault(_module(name), name)
    heads = sorted(firsts.values(), key=lambda n: (probe.seconds[n], n))
    return heads + [n for n in by_cost if n not in set(heads)]


def choose_quick(
    probe: Probe, blocking: Sequence[str], min_samples: int, budget_minutes: float
) -> QuickChoice | None:
    """The quick selection (None: no working benchmark of a blocking family to select)."""
    candidates = [
        n
        for n in probe.seconds
        if not n.startswith("<") and any(re.search(p, n) for p in blocking)
    ]
    if not candidates:
        return None
    budget_s = budget_minutes * 60.0
    chosen: list[str] = []
    for name in _order(candidates, probe):
        if min_samples * _round_s([*chosen, name], probe) * SAFETY <= budget_s:
            chosen.append(name)
    raised = not chosen
    if raised:
        chosen = _order(candidates, probe)[:1]
        need = min_samples * _round_s(chosen, probe) * SAFETY / 60.0
        budget_minutes = float(math.ceil(need))
    chosen.sort()
    return QuickChoice(
        bench=tuple(selection_regex(n) for n in chosen),
        names=tuple(chosen),
        budget_minutes=budget_minutes,
        round_s=_round_s(chosen, probe),
        rounds=min_samples,
        left_out=len(candidates) - len(chosen),
        raised=raised,
    )
