"""The hand-written kernel's exact shortcuts equal the plain formulas they replace."""

from __future__ import annotations

import math

import numpy as np
import pytest

from termplan.tasks.g1_walk.config import min_upright_gz
from termplan.tasks.g1_walk.handwritten_kernel import tilted
from termplan.tasks.g1_walk.handwritten_layout import LOG_STRIDE
from termplan.tasks.g1_walk.handwritten_reward import fmod_two_pi

pytestmark = pytest.mark.numba("g1_walk")

TWO_PI = 2.0 * math.pi


def test_fmod_two_pi_is_bit_exact() -> None:
    rng = np.random.default_rng(0)
    ys = np.concatenate([
        rng.uniform(0.0, 4.0 * math.pi, 20000),
        rng.uniform(-20.0, 60.0, 2000),
        [0.0, -0.0, TWO_PI, np.nextafter(TWO_PI, 0), np.nextafter(TWO_PI, 10),
         2 * TWO_PI, np.nextafter(2 * TWO_PI, 0), np.inf, -np.inf, np.nan],
    ])  # fmt: skip
    got = np.array([fmod_two_pi(float(y)) for y in ys])
    with np.errstate(invalid="ignore"):
        want = np.fmod(ys, TWO_PI)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("max_tilt_deg", [0.0, 25.0, 60.0, 65.0, 90.0, 180.0])
def test_tilted_is_the_tasks_tilt_rule(max_tilt_deg) -> None:
    """``not (clip(gz) >= cos(limit))``; away from the last ulp that is the acos formula."""
    limit = math.radians(max_tilt_deg)
    c = min_upright_gz(limit)
    near = [c + k * 1e-12 for k in range(-3000, 3001, 7)]
    gz = np.concatenate([np.linspace(-1.2, 1.2, 4001), near, [1.0, -1.0, 0.5, np.nan]])
    got = np.array([tilted(float(g), c) for g in gz])
    np.testing.assert_array_equal(got, ~(np.clip(gz, -1.0, 1.0) >= c))
    far = np.abs(np.clip(gz, -1.0, 1.0) - c) > 1e-12
    with np.errstate(invalid="ignore"):
        acos_rule = ~(np.arccos(np.clip(gz, -1.0, 1.0)) <= limit)
    np.testing.assert_array_equal(got[far], acos_rule[far])


def test_log_rows_are_padded_to_whole_cache_lines() -> None:
    assert LOG_STRIDE % 16 == 0 and LOG_STRIDE >= 22
