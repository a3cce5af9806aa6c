"""benchmarks/sim_scaling.py: a case valgrind cannot count per thread as compiled for the
host is skipped by SimScaling, named, and counted by SimScalingBaseline without AVX."""

from __future__ import annotations

import pytest

from benchmarks import sim_scaling


def test_a_case_counted_elsewhere_is_skipped_with_its_reason() -> None:
    """Building it raises asv's skip (NotImplementedError) naming why and where it is
    counted, before any batch is built, so the per-thread run never starts the kernel
    valgrind stops with SIGILL."""
    with pytest.raises(NotImplementedError, match="SimScalingBaseline .*cannot decode"):
        sim_scaling.SimScaling.sim_case("motion_tracking", "assembled", 2048, 8)


def test_the_baseline_family_counts_exactly_those_cases_without_avx() -> None:
    assert set(sim_scaling.COUNTED_ELSEWHERE) == {("motion_tracking", "assembled")}
    base = sim_scaling.SimScalingBaseline
    assert base.target_mode == "baseline"
    assert base.params[:2] == (("motion_tracking",), ("assembled",))
    assert base.params[2:] == sim_scaling.SimScaling.params[2:]
    assert base.version.startswith("simt-") and base.version != sim_scaling.SimScaling.version
    with pytest.raises(NotImplementedError, match="counted by sim_scaling.SimScaling"):
        base.sim_case("g1_walk", "assembled", 2048, 8)
    tasks, paths = sim_scaling.SimScaling.params[:2]
    assert ("g1_walk", "assembled") in {(t, p) for t in tasks for p in paths}
