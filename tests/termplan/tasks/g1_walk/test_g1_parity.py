"""NumPy vs hand-written parity for every profile, several seeds and sizes, noise off and on."""

from __future__ import annotations

import numpy as np
import pytest

from termplan.tasks import g1_walk
from termplan.tasks.g1_walk import NoiseConfig, draw_noise, make_batch
from termplan.tasks.g1_walk.profiles import FULL_SUPPORTED_PLAN, OWNER_NOISE, OWNER_VARIANTS

pytestmark = pytest.mark.numba("g1_walk")

NOISE = NoiseConfig(level=1.0, gyro=0.1, gravity=0.05, joint_angle=0.02, joint_vel=0.3)


@pytest.mark.parametrize("profile", g1_walk.PROFILES)
@pytest.mark.parametrize("num_envs", [1, 7, 512])
@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("level", [0.0, 1.0])
def test_paths_agree(profile, num_envs, seed, level, run_paths, agree) -> None:
    batch = make_batch(num_envs, seed=seed)
    noise = NoiseConfig(level=level) if level == 0 else NOISE
    draw_noise(batch, np.random.default_rng(seed + 100), noise)
    outs = run_paths(profile, batch, step=0, noise=noise)
    agree(outs["numpy"], outs["handwritten"])
    assert set(outs["numpy"].logs) == {
        f"reward/{t}" for t in g1_walk.get_profile(profile).active_terms
    }


def test_noise_reaches_actor_obs_only(run_paths, agree) -> None:
    batch = make_batch(64, seed=5)
    draw_noise(batch, np.random.default_rng(1), NOISE)
    clean = run_paths("sac_default", batch)
    noisy = run_paths("sac_default", batch, noise=NOISE)
    agree(noisy["numpy"], noisy["handwritten"])
    for path in ("numpy", "handwritten"):
        np.testing.assert_array_equal(noisy[path].critic, clean[path].critic)
        np.testing.assert_array_equal(noisy[path].reward, clean[path].reward)
        # Walk profile: gyro multiplier 0.25, noise added before it.
        expected = (batch.gyro + batch.noise_gyro) * np.float32(0.25)
        np.testing.assert_allclose(noisy[path].obs[:, 0:3], expected, rtol=1e-6, atol=1e-7)
        assert not np.allclose(noisy[path].obs[:, 35:64], clean[path].obs[:, 35:64])


def test_noise_arrays_ignored_at_level_zero(run_paths) -> None:
    batch = make_batch(16, seed=2)
    reference = run_paths("sac_default", batch)
    draw_noise(batch, np.random.default_rng(0), NOISE)
    outs = run_paths("sac_default", batch, noise=NoiseConfig(level=0.0))
    for path in ("numpy", "handwritten"):
        np.testing.assert_array_equal(outs[path].obs, reference[path].obs)


@pytest.mark.parametrize("name", [*OWNER_VARIANTS, FULL_SUPPORTED_PLAN.name])
def test_owner_variants_agree(name, run_paths, agree) -> None:
    batch = make_batch(33, seed=11)
    noise = OWNER_NOISE.get(name, NoiseConfig())
    draw_noise(batch, np.random.default_rng(4), noise)
    outs = run_paths(name, batch, step=4, noise=noise)
    agree(outs["numpy"], outs["handwritten"])


@pytest.mark.parametrize("num_threads", [1, None])
def test_thread_count_does_not_change_results(num_threads, agree) -> None:
    batch = make_batch(512, seed=9)
    ref = g1_walk.build("full_supported", 512, "numpy").compute(batch, 0)
    hot = g1_walk.build("full_supported", 512, "handwritten", num_threads=num_threads)
    agree(ref, hot.compute(batch, 0))


def test_nonzero_default_angles_agree(run_paths, agree) -> None:
    batch = make_batch(40, seed=6)
    angles = np.linspace(-0.3, 0.4, 29)
    outs = run_paths("full_supported", batch, default_angles=angles)
    agree(outs["numpy"], outs["handwritten"])
    expected = (batch.dof_pos - angles).astype(np.float32)
    np.testing.assert_allclose(outs["handwritten"].critic[:, 6:35], expected, atol=1e-7)
