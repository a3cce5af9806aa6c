"""perfgate.sim.phase.unchecked with a scaling family: calibrate stores no check of
its cases, so a base that has one is counted again (its rows need the second count)."""

from __future__ import annotations

from perfgate.formats.noise import SimCheck
from perfgate.model import CaseKey, Measurement
from perfgate.sim.phase import unchecked

PARAMS = (("task", "'g1_walk'"), ("threads", "32"))


def test_a_counted_scaling_case_is_never_taken_as_checked() -> None:
    cycles = CaseKey("sim_hot_slice.SimHotSlice.track_cycles", PARAMS)
    checks = {cycles.canonical(): SimCheck(cycles, "sim-1", 0.0, 3, 0.0)}
    hot = {cycles: Measurement(cycles, (1.0,), version="sim-1")}
    assert not unchecked(hot, checks)
    efficiency = CaseKey("sim_scaling.SimScaling.track_efficiency", PARAMS)
    both = {**hot, efficiency: Measurement(efficiency, (0.5,), version="simt-1")}
    assert unchecked(both, checks)
    failed = {**hot, efficiency: Measurement(efficiency, (), failed=True, version="simt-1")}
    assert not unchecked(failed, checks)
