"""benchmarks/sim_scaling.py: the cases valgrind cannot count per thread are skipped, named."""

from __future__ import annotations

import pytest

from benchmarks import sim_scaling


def test_an_uncountable_case_is_skipped_with_its_reason() -> None:
    """Building it raises asv's skip (NotImplementedError) naming why, before any batch is
    built, so the per-thread run never starts the kernel valgrind stops with SIGILL."""
    with pytest.raises(NotImplementedError, match="valgrind 3.19 cannot decode"):
        sim_scaling.SimScaling.sim_case("motion_tracking", "assembled", 2048, 8)


def test_only_the_motion_tracking_assembled_path_is_uncountable() -> None:
    assert set(sim_scaling.UNCOUNTABLE) == {("motion_tracking", "assembled")}
    tasks, paths = sim_scaling.SimScaling.params[:2]
    assert ("g1_walk", "assembled") in {(t, p) for t in tasks for p in paths}
