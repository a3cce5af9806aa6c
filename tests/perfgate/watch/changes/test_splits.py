"""A split tested between two regimes: the rank test's normal approximation against scipy's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from perfgate.watch.changes.splits import Split, compare_regimes, rank_test_normal


def test_normal_rank_test_matches_scipy_asymptotic_with_and_without_ties() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n, m = (int(k) for k in rng.integers(1, 40, size=2))
        decimals = int(rng.integers(0, 3))  # 0 decimals: many ties
        x = np.round(rng.normal(0.0, 1.0, n), decimals)
        y = np.round(rng.normal(float(rng.normal(0.0, 0.7)), 1.0, m), decimals)
        if np.ptp(np.concatenate([x, y])) == 0.0:
            continue
        expected = mannwhitneyu(x, y, alternative="two-sided", method="asymptotic").pvalue
        assert rank_test_normal(x, y) == pytest.approx(float(expected), rel=1e-9, abs=1e-15)


def test_normal_rank_test_of_identical_values_is_no_evidence() -> None:
    assert rank_test_normal(np.ones(5), np.ones(7)) == 1.0


def test_compare_regimes_gives_medians_p_value_and_effect() -> None:
    before, after = np.array([1.0, 2.0, 3.0]), np.array([4.0, 6.0, 8.0])
    split = compare_regimes(before, after, 3)
    assert (split.index, split.before, split.after) == (3, 2.0, 6.0)
    assert split.p_value == pytest.approx(0.1)  # exact: 2 of the 20 orderings are as extreme
    assert split.effect == pytest.approx(math.log(3.0))
    normal = compare_regimes(before, after, 3, asymptotic=True)
    assert normal.p_value == pytest.approx(rank_test_normal(before, after))
    assert compare_regimes(np.ones(3), np.ones(4), 3).p_value == 1.0


def test_a_split_passes_only_if_significant_and_beyond_the_effect() -> None:
    split = Split(index=1, before=1.0, after=1.1, p_value=0.01)
    assert split.passes(0.05, math.log(1.05))
    assert not split.passes(0.01, math.log(1.05))  # p must be below the level
    assert not split.passes(0.05, math.log(1.1) + 1e-12)
