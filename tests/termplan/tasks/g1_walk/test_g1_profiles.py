"""Reward constants, profiles (benchmark and owner variants) and the observation layout."""

from __future__ import annotations

import numpy as np
import pytest

from termplan.errors import TermPlanError
from termplan.tasks import g1_walk
from termplan.tasks.g1_walk import config, profiles
from termplan.tasks.g1_walk.handwritten import check_layout_matches_kernel


def test_term_order_and_formulas() -> None:
    assert len(config.TERM_ORDER) == 22 == len(set(config.TERM_ORDER))
    assert config.TERM_ORDER[0] == "tracking_lin_vel" and config.TERM_ORDER[-1] == "alive"
    assert config.TERM_INDEX["feet_air_time"] == 20
    assert set(config.TERM_FORMULA) == set(config.TERM_ORDER)
    assert config.TERM_FORMULA["penalty_feet_ori"] == "feet_ori"


def test_pose_weights() -> None:
    w, ub = config.POSE_WEIGHTS, config.UPPER_BODY_POSE_WEIGHTS
    assert w.shape == ub.shape == (29,) and w.dtype == np.float64
    np.testing.assert_array_equal(w[:6], [0.01, 1, 5, 0.01, 5, 5])
    np.testing.assert_array_equal(w[6:12], w[:6])
    assert (w[12:] == 50.0).all() and (ub[:12] == 0).all() and (ub[12:] == 50.0).all()
    assert not w.flags.writeable


def test_benchmark_profiles() -> None:
    assert g1_walk.PROFILES == ("ppo_default", "sac_default", "full_supported")
    sac, ppo, full = (profiles.get_profile(n) for n in ("sac_default", "ppo_default",
                                                         "full_supported"))  # fmt: skip
    assert len(sac.active_terms) == 9 and len(ppo.active_terms) == 9
    assert len(full.active_terms) == 22 and len(profiles.FULL_SUPPORTED_PLAN.active_terms) == 20
    assert sac.walk_observation and full.walk_observation and not ppo.walk_observation
    assert ppo.reward.feet_phase_tracking_sigma == 0.008 and ppo.reward.max_tilt_deg == 25
    assert sac.reward.min_base_height == 0.3
    np.testing.assert_allclose(sac.reward.max_tilt_rad, np.deg2rad(65))
    vector = full.scale_vector()
    assert vector.shape == (22,) and vector[config.TERM_INDEX["base_height"]] == -500


@pytest.mark.parametrize(
    ("names", "curriculum", "walk"),
    [
        ({"alive": 0.0, "orientation": 1.0}, False, True),
        ({"orientation": 1.0}, True, False),
        ({"pose": 1.0}, True, True),
        ({"pose": 1.0}, False, False),
    ],
)
def test_walk_observation_rule(names, curriculum, walk) -> None:
    assert profiles.uses_walk_observation(names, curriculum) is walk


@pytest.mark.parametrize("name", list(profiles.OWNER_VARIANTS))
@pytest.mark.parametrize("path", ["numpy", "handwritten"])
def test_every_owner_config_constructs(name, path) -> None:
    hot = g1_walk.build(name, 3, path, noise=profiles.OWNER_NOISE.get(name))
    assert hot.profile == name


def test_profile_validation() -> None:
    with pytest.raises(TermPlanError, match="'hop'"):
        profiles.Profile("x", {"hop": 1.0})
    with pytest.raises(TermPlanError, match="nan"):
        profiles.Profile("x", {"alive": float("nan")})
    assert profiles.Profile("x", {"hop": 0.0}).active_terms == ()
    custom = profiles.resolve_profile("ppo_default", {"alive": 2.0})
    assert custom.name == "ppo_default+custom" and custom.reward == profiles.PPO_REWARD
    with pytest.raises(ValueError, match="profile"):
        profiles.resolve_profile(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("max_tilt_deg", float("nan"), "max_tilt_deg: expected a finite number, got nan"),
        ("min_base_height", float("inf"), "min_base_height: expected a finite number"),
        ("tracking_sigma", 0.0, "tracking_sigma: expected a finite number > 0"),
        ("feet_phase_tracking_sigma", -1.0, "feet_phase_tracking_sigma: expected a finite"),
        ("close_feet_threshold", "0.1", "close_feet_threshold: expected a finite number"),
    ],
)
def test_reward_config_refuses_non_finite_and_zero_widths(
    field: str, value: object, message: str
) -> None:
    """Such values behaved differently per path (the assembled one refused NaN, the others
    terminated every row), so every path now gets the same error at construction."""
    with pytest.raises(ValueError, match=f"RewardConfig.{message}"):
        config.RewardConfig(**{field: value})  # type: ignore[arg-type]


def test_layout_tiles_and_matches_the_kernel() -> None:
    assert sum(s.width for s in config.ACTOR_LAYOUT) == config.ACTOR_DIM == 98
    assert sum(s.width for s in config.CRITIC_LAYOUT) == config.CRITIC_DIM == 101
    noisy = {s.source: s.noise for s in config.ACTOR_LAYOUT if s.noise}
    assert noisy == {"gyro": "noise_gyro", "gravity": "noise_gravity",
                     "dof_pos_diff": "noise_dof_pos", "dof_vel": "noise_dof_vel"}  # fmt: skip
    assert not any(s.noise for s in config.CRITIC_LAYOUT)
    linvel = config.CRITIC_LAYOUT[-1]
    assert (linvel.offset, linvel.multiplier(True), linvel.multiplier(False)) == (98, 2.0, 1.0)
    check_layout_matches_kernel()
