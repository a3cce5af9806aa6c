"""The thread budget split: a pure function, checked for 1..160 cores."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from termplan.collector.budget import split_budget


@pytest.mark.parametrize("cores", range(1, 161))
def test_split_never_oversubscribes(cores: int) -> None:
    split = split_budget(cores)
    assert min(split.physics, split.numba, split.blas) >= 1
    # each pool = the calling thread + a disjoint share of the other cores
    assert (split.physics - 1) + (split.numba - 1) + (split.blas - 1) == cores - 1
    assert split.physics >= split.numba >= split.blas
    assert split.physics <= cores


def test_split_is_monotone_in_the_budget() -> None:
    splits = [split_budget(c) for c in range(1, 161)]
    for a, b in itertools.pairwise(splits):
        assert b.physics >= a.physics and b.numba >= a.numba and b.blas >= a.blas


@pytest.mark.parametrize(
    ("cores", "expected"),
    [(1, (1, 1, 1)), (2, (2, 1, 1)), (4, (3, 2, 1)), (8, (5, 3, 2)), (160, (81, 41, 40))],
)
def test_known_splits(cores: int, expected: tuple[int, int, int]) -> None:
    split = split_budget(cores)
    assert (split.physics, split.numba, split.blas) == expected
    assert split.as_record()["thread_budget"] == cores


@pytest.mark.parametrize("bad", [0, -3, True, 2.0, "4"])
def test_bad_budget_is_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="thread budget"):
        split_budget(bad)  # type: ignore[arg-type]


def test_budget_takes_a_numpy_integer() -> None:
    """Core counts computed with NumPy (e.g. from a topology array) are ints too."""
    assert split_budget(np.int64(8)) == split_budget(8)  # type: ignore[arg-type]


def test_apply_split_masks_numba_and_limits_blas() -> None:
    import numba
    from threadpoolctl import threadpool_info

    from termplan.collector.budget import apply_split

    before = numba.get_num_threads()
    limiter = apply_split(split_budget(2))
    try:
        assert numba.get_num_threads() == 1
        assert all(p["num_threads"] == 1 for p in threadpool_info() if p["user_api"] == "blas")
    finally:
        limiter.restore_original_limits()
        numba.set_num_threads(before)
