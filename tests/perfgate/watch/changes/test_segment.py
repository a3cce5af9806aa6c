"""Candidate splits: ruptures' PELT, a noise-scaled penalty, short regimes absorbed."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from watch_fakes import CV, noisy, stepped

from perfgate.watch.changes.segment import absorb_short_regimes, candidate_splits, noise_scale


def test_noise_scale_is_the_mean_absolute_deviation_and_ignores_a_step_and_a_spike() -> None:
    values = stepped(400, 200, 1.20, seed=1)
    values[100] *= 3.0
    expected = CV * math.sqrt(2 / math.pi)  # of log values at 2% CV
    assert noise_scale(np.log(values)) == pytest.approx(expected, rel=0.15)


def test_noise_scale_of_a_constant_series_is_zero() -> None:
    assert noise_scale(np.zeros(10)) == 0.0
    assert noise_scale(np.zeros(1)) == 0.0


def test_candidates_include_a_clear_step_at_its_first_point() -> None:
    assert 20 in candidate_splits(np.log(stepped(40, 20, 1.10, seed=2)), 5)


def test_candidates_of_a_short_or_constant_series() -> None:
    assert candidate_splits(np.log(noisy(9, seed=0)), 5) == []
    assert candidate_splits(np.zeros(30), 5) == []


def test_every_candidate_regime_is_at_least_min_segment_long() -> None:
    for seed in range(10):
        y = np.log(noisy(40, seed))
        y[[7, 19, 33]] += 0.4  # three spikes
        bounds = [0, *candidate_splits(y, 5), 40]
        assert all(b - a >= 5 for a, b in itertools.pairwise(bounds)), bounds


def test_a_short_regime_joins_the_neighbour_with_the_nearer_median() -> None:
    y = np.array([0.0] * 10 + [0.9, 0.95] + [1.0] * 10)
    assert absorb_short_regimes(y, [10, 12], 5) == [10]  # 0.9-0.95 is nearer the 1.0 regime
    y = np.array([0.0] * 10 + [0.1, 0.05] + [1.0] * 10)
    assert absorb_short_regimes(y, [10, 12], 5) == [12]


def test_short_regimes_at_either_end_are_absorbed() -> None:
    y = np.array([5.0] * 3 + [0.0] * 10 + [1.0] * 4)
    assert absorb_short_regimes(y, [3, 13], 5) == []
    assert absorb_short_regimes(y, [3, 13], 3) == [3, 13]
