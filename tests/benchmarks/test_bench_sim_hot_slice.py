"""benchmarks/sim_hot_slice.py: the simulated hot slice, counted as a training loop runs it."""

from __future__ import annotations

import json

import pytest

from benchmarks import sim_hot_slice
from termplan.tasks.base import LOG_EVERY


def test_the_measured_steps_stand_for_one_logging_period() -> None:
    """Warm-up at step 3, then steps 4 (logging) and 5 weighted 1:3: the weights add up to
    one logging period of termplan's loop, whose first step logs."""
    weights = sim_hot_slice.SimHotSlice.sim_weights
    assert sum(weights) == LOG_EVERY and weights[0] == 1 and len(weights) == 2
    assert (sim_hot_slice.FIRST_STEP + 1) % LOG_EVERY == 0


def test_the_cases_of_one_batch_are_counted_one_after_another() -> None:
    """Cases sharing a batch (task, profile, N) are next to each other, paths in the suite's
    order, so that a run builds each batch once."""
    combos = sim_hot_slice.SimHotSlice()._combinations()
    ordered = sim_hot_slice.SimHotSlice.sim_order(combos)
    assert sorted(ordered) == sorted(combos)
    batches = [(c[0], c[1], c[3]) for c in ordered]
    runs = [b for i, b in enumerate(batches) if i == 0 or batches[i - 1] != b]
    assert len(runs) == len(set(batches))
    first = [c[2] for c in ordered[: len(sim_hot_slice.PATHS)]]
    assert first == list(sim_hot_slice.PATHS)


@pytest.mark.subprocess
def test_one_case_under_callgrind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The NumPy path at N=2048 (no kernel to compile), counted twice in two processes:
    instructions and cycles within the gate's default tolerance (0.1%: calibrated on the
    full grid, this case's counts move up to 0.02% in instructions and 0.09% in cycles with
    the memory layout, which the test process's environment shifts), cycles above
    instructions, misses counted."""
    monkeypatch.setenv(
        "PERFGATE_BENCH", json.dumps([r"\('g1_walk', 'sac_default', 'numpy', 2048\)"])
    )
    first = sim_hot_slice.SimHotSlice().measure_cases()
    second = sim_hot_slice.SimHotSlice().measure_cases()
    assert list(first) == [("g1_walk", "sac_default", "numpy", 2048)]
    (figures,) = first.values()
    (again,) = second.values()
    assert figures["instructions"] == pytest.approx(again["instructions"], rel=1e-3)
    assert figures["cycles"] == pytest.approx(again["cycles"], rel=1e-3)
    assert figures["cycles"] > figures["instructions"] > 1e6
    assert figures["l1_misses"] > figures["ll_misses"] > 0
