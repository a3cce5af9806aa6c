"""The figures a sim suite stores per case, as asv benchmarks of its class (pure names).

Each figure is a ``track_*`` benchmark of the suite's class with the same params, holding one
value per call of the case: the gate decides a sim case on `DECISIVE` (the cost model's
estimated cycles), or on `LAYOUT_PROOF` (instructions) where the cycles move with the memory
layout alone (`perfgate.sim.compare`), and reads the others to say what moved.
"""

from __future__ import annotations

#: benchmark method -> (figure name in `perfgate.sim.cost.Events.per_call`, asv unit)
FIGURES = {
    "track_cycles": ("cycles", "cycles"),
    "track_instructions": ("instructions", "instructions"),
    "track_l1_misses": ("l1_misses", "misses"),
    "track_ll_misses": ("ll_misses", "misses"),
}
#: the benchmark whose figure the gate decides a sim case on
DECISIVE = "track_cycles"
#: the figure that does not depend on where data lie: what decides a case whose cycles do
LAYOUT_PROOF = "track_instructions"
