"""Task API: build, paths, profiles, errors, reused outputs, logging steps, NaN policy."""

from __future__ import annotations

import importlib.util
from types import MappingProxyType

import numpy as np
import pytest

from termplan import tasks
from termplan.errors import TermPlanError
from termplan.tasks import motion_tracking as mt
from termplan.tasks.motion_tracking.config import ANCHOR, EE_INDICES, NoiseConfig, Thresholds
from termplan.tasks.motion_tracking.profiles import OWNER_VARIANTS, PROFILE_DEFS, Profile

pytestmark = pytest.mark.numba("motion_tracking")

PATHS = ["numpy", "handwritten"]


def test_paths_and_profiles() -> None:
    assert mt.PROFILES == ("sac_default", "ppo_default", "full_supported")
    has_assembled = importlib.util.find_spec("termplan.tasks.motion_tracking.assembled")
    assert ("assembled" in mt.PATHS) == (has_assembled is not None)
    assert mt.PATHS[:2] == ("numpy", "handwritten")


def test_registry_builds_both_paths() -> None:
    for path in PATHS:
        hot = tasks.build("motion_tracking", "ppo_default", 8, path, num_threads=1)
        assert (hot.task, hot.profile, hot.path, hot.num_envs) == (
            "motion_tracking", "ppo_default", path, 8,
        )  # fmt: skip
    assert isinstance(tasks.make_batch("motion_tracking", 3, seed=1), mt.MotionBatch)


def test_unknown_path_and_profile_are_named() -> None:
    with pytest.raises(ValueError, match="path 'gpu'"):
        mt.build("sac_default", 4, "gpu")
    with pytest.raises(ValueError, match="profile 'nope'"):
        mt.build("nope", 4, "numpy")


@pytest.mark.parametrize("path", PATHS)
def test_unknown_option_is_named_with_the_accepted_ones(path: str) -> None:
    """The shared builder (tasks.base.TaskSpec.build): a typo is an error, never ignored."""
    with pytest.raises(ValueError, match=r"options \['nosie'\]: .*accepts noise"):
        mt.build("sac_default", 4, path, nosie=NoiseConfig())


@pytest.mark.parametrize("path", PATHS)
def test_unknown_term_with_nonzero_scale_fails_at_construction(path: str) -> None:
    bad = Profile("bad", MappingProxyType({"motion_body_pos": 1.0, "feet_air_time": 0.5}))
    with pytest.raises(TermPlanError, match="unknown reward term 'feet_air_time'"):
        mt.build(bad, 4, path)
    ok = Profile("ok", MappingProxyType({"motion_body_pos": 1.0, "feet_air_time": 0.0}))
    assert mt.build(ok, 4, path).compute(mt.make_batch(4), 0).logs.keys() == {
        "reward/motion_body_pos"
    }


def test_bad_threads_and_sizes() -> None:
    with pytest.raises(ValueError, match="num_threads"):
        mt.build("sac_default", 4, "handwritten", num_threads=10_000)
    with pytest.raises(ValueError, match="num_envs"):
        mt.build("sac_default", 0, "numpy")
    with pytest.raises(ValueError, match="noise level"):
        NoiseConfig(level=-1.0)


@pytest.mark.parametrize("path", PATHS)
def test_same_output_objects_and_log_steps(path: str) -> None:
    hot = mt.build("full_supported", 16, path)
    batch = mt.make_batch(16, seed=2)
    first = hot.compute(batch, step=0)
    ids = [id(first.reward), id(first.terminated), id(first.obs), id(first.critic)]
    assert len(first.logs) == 12
    for step in (1, 2, 3):
        out = hot.compute(batch, step=step)
        assert out.logs == {}
        assert [id(out.reward), id(out.terminated), id(out.obs), id(out.critic)] == ids
    assert len(hot.compute(batch, step=4).logs) == 12


@pytest.mark.parametrize("variant", sorted(OWNER_VARIANTS))
@pytest.mark.parametrize("path", PATHS)
def test_every_owner_config_constructs_and_runs(variant: str, path: str) -> None:
    out = mt.build(OWNER_VARIANTS[variant], 8, path).compute(mt.make_batch(8), 0)
    assert np.isfinite(out.reward).all()


@pytest.mark.parametrize("path", PATHS)
def test_noise_goes_to_actor_only(path: str) -> None:
    batch = mt.make_batch(8, seed=1)
    noise = NoiseConfig(level=1.0)
    mt.draw_noise(batch, np.random.default_rng(0), noise)
    out = mt.build("sac_default", 8, path, noise=noise).compute(batch, 0)
    np.testing.assert_allclose(out.obs[:, 67:70], batch.linvel + batch.noise_linvel, atol=1e-6)
    np.testing.assert_array_equal(out.critic[:, 67:70], batch.linvel)
    np.testing.assert_array_equal(out.critic[:, 286:289], batch.linvel)
    clean = mt.build("sac_default", 8, path).compute(batch, 0)  # level 0 ignores the arrays
    np.testing.assert_array_equal(clean.obs[:, 67:70], batch.linvel)


@pytest.mark.parametrize("path", PATHS)
def test_nan_policy(path: str) -> None:
    """NaN termination inputs terminate; rewards/obs propagate NaN; zero scales stay 0."""
    batch = mt.make_batch(8, seed=5, profile="sac_default")
    hot = mt.build("sac_default", 8, path)
    base = hot.compute(batch, 0).terminated.copy()
    assert not base[4:].any()
    batch.robot_body_pos_w[4, ANCHOR, 2] = np.nan
    batch.body_pos_w[5, EE_INDICES[2], 2] = np.nan
    batch.robot_body_quat_w[6, ANCHOR, 1] = np.nan
    batch.joint_vel[7, 3] = np.nan  # motion_joint_vel has scale 0 in sac_default
    out = hot.compute(batch, 0)
    np.testing.assert_array_equal(out.terminated[4:], [True, True, True, False])
    assert np.isnan(out.reward[4:7]).all() and np.isfinite(out.reward[7])
    assert np.isnan(out.obs[7, 29 + 3]) and np.isnan(out.critic[7, 29 + 3])
    assert np.isfinite(out.obs[7, 58:]).all()


@pytest.mark.parametrize("path", PATHS)
def test_nan_contact_height_terminates_only_with_contact_termination(path: str) -> None:
    strict = Profile(
        "strict", PROFILE_DEFS["sac_default"].scales, terminate_on_undesired_contacts=True
    )
    batch = mt.make_batch(64, seed=0)
    batch.robot_body_pos_w[:, :, 2] = 0.5  # nobody on the floor, EE consistent below
    batch.body_pos_w[:, :, 2] = 0.5
    batch.robot_body_pos_w[10, 1, 2] = np.nan
    done = mt.build(strict, 64, path).compute(batch, 0).terminated
    assert done[10] and done.sum() == 1
    loose = mt.build("sac_default", 64, path).compute(batch, 0)
    assert not loose.terminated.any()


@pytest.mark.parametrize("path", PATHS)
def test_steady_state_allocates_nothing_that_scales_with_n(path: str) -> None:
    """Above 8192 envs NumPy's casting buffers are capped, so peak memory must not grow."""
    import tracemalloc

    strict = Profile(
        "strict", PROFILE_DEFS["full_supported"].scales, terminate_on_undesired_contacts=True
    )
    peaks = []
    for n in (10_000, 20_000):
        batch = mt.make_batch(n, seed=0)
        hot = mt.build(strict, n, path, noise=NoiseConfig(level=1.0))
        hot.compute(batch, 0)
        tracemalloc.start()
        hot.compute(batch, 0)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] <= peaks[0] + 4096
    assert peaks[1] < 200_000  # one (N, 14) float32 scratch alone would be 1.1 MB


def test_thresholds_and_stds_are_checked_at_construction() -> None:
    """A NaN threshold or a zero std (``1 / std**2``) fails the same way for every path."""
    from dataclasses import replace

    with pytest.raises(ValueError, match="Thresholds.anchor_pos_z: expected a finite number"):
        Thresholds(anchor_pos_z=float("nan"))
    sac = PROFILE_DEFS["sac_default"]
    with pytest.raises(ValueError, match="stds.motion_body_pos: expected a finite number > 0"):
        replace(sac, stds=MappingProxyType({**sac.stds, "motion_body_pos": 0.0}))
