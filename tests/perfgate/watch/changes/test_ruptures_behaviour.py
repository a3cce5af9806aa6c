"""ruptures' published behaviour that the detector relies on (pinned range in the gate extra).

From its documentation: `predict` returns the sorted breakpoints, each the end (exclusive) of a
segment, so each is the index of the first sample of the next regime and the last one is the
number of samples; `jump` (default 5) restricts breakpoints to its multiples; `min_size` bounds
segment length; the documented example draws a piecewise constant signal with `pw_constant` and
recovers its breakpoints.
"""

from __future__ import annotations

import numpy as np
import ruptures


def test_breakpoints_are_first_points_of_new_regimes_and_end_with_n() -> None:
    signal = np.array([1.0] * 13 + [2.0] * 17)
    breakpoints = ruptures.Pelt(model="l1", min_size=2, jump=1).fit(signal).predict(pen=0.5)
    assert breakpoints == [13, 30]
    assert signal[breakpoints[0]] == 2.0 and signal[breakpoints[0] - 1] == 1.0


def test_default_jump_puts_breakpoints_on_multiples_of_five() -> None:
    """Why the detector passes jump=1: the default would report the step 2 commits late."""
    signal = np.array([1.0] * 13 + [2.0] * 17)
    assert ruptures.Pelt(model="l1").fit(signal).predict(pen=0.5) == [15, 30]


def test_min_size_bounds_every_segment() -> None:
    signal = np.array([1.0] * 20 + [5.0] * 2 + [1.0] * 20)
    assert ruptures.Pelt(model="l1", min_size=2, jump=1).fit(signal).predict(pen=0.5) == [
        20,
        22,
        42,
    ]
    assert ruptures.Pelt(model="l1", min_size=5, jump=1).fit(signal).predict(pen=0.5) == [42]


def test_documented_pw_constant_example_is_recovered_exactly_without_noise() -> None:
    signal, true_breakpoints = ruptures.pw_constant(200, 1, 4, seed=3)
    found = ruptures.Pelt(model="l1", min_size=2, jump=1).fit(signal).predict(pen=1.0)
    assert found == true_breakpoints
    assert found[-1] == 200


def test_the_same_signal_gives_the_same_breakpoints() -> None:
    signal, _ = ruptures.pw_constant(120, 1, 3, noise_std=0.5, seed=4)
    runs = {
        tuple(ruptures.Pelt(model="l1", jump=1).fit(signal).predict(pen=3.0)) for _ in range(3)
    }
    assert len(runs) == 1
