"""perfgate.sim.phase.family_times: the sim phase's seconds per family, for the timeline
a later ``--plan`` costs the sim cases from."""

from __future__ import annotations

import pytest

from perfgate.asv.side_run import SideRun
from perfgate.model import CaseKey, Measurement
from perfgate.sim.phase import counted_case, family_times

HOT = CaseKey("sim_hot_slice.SimHotSlice.track_cycles", (("num_envs", "2048"),))
HOT_INS = CaseKey("sim_hot_slice.SimHotSlice.track_instructions", (("num_envs", "2048"),))
SCALE = [
    CaseKey("sim_scaling.SimScaling.track_efficiency", (("threads", str(t)),)) for t in (8, 32)
]


def _base() -> dict[CaseKey, Measurement]:
    keys = [HOT, HOT_INS, *SCALE]
    return {k: Measurement(k, (1.0,)) for k in keys}


def test_the_phase_is_shared_by_the_seconds_asv_recorded_per_family() -> None:
    """A scaling family whose setup_cache took 90 s of 100 recorded gets 90% of the phase;
    one count of a case yields several figures, counted once (its decisive one)."""
    runs = [
        SideRun({}, {}, {"sim_hot_slice.SimHotSlice.track_cycles": 10.0,
                         "<setup_cache sim_scaling:54>": 90.0}),
    ]  # fmt: skip
    got = {f.family: f for f in family_times(runs, _base(), 3, 200.0)}
    assert got["sim_hot_slice"].cases == 1 and got["sim_scaling"].cases == 2
    assert got["sim_scaling"].seconds == pytest.approx(180.0)
    assert got["sim_hot_slice"].seconds == pytest.approx(20.0)
    assert got["sim_scaling"].runs == 3
    assert counted_case(HOT) and not counted_case(HOT_INS)


def test_without_asv_durations_the_phase_is_shared_by_case_count() -> None:
    got = {f.family: f.seconds for f in family_times([SideRun({}, {})], _base(), 2, 30.0)}
    assert got == {"sim_hot_slice": pytest.approx(10.0), "sim_scaling": pytest.approx(20.0)}


def test_a_failed_case_is_not_a_counted_one() -> None:
    base = {**_base(), SCALE[1]: Measurement(SCALE[1], (), failed=True)}
    got = {f.family: f.cases for f in family_times([], base, 3, 30.0)}
    assert got == {"sim_hot_slice": 1, "sim_scaling": 1}
