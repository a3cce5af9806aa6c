"""NumPy path vs hand-written kernel: every profile, several seeds and sizes, noise on and off."""

from __future__ import annotations

import numpy as np
import pytest
from hot_slices import SESSION

from termplan.tasks import motion_tracking as mt
from termplan.tasks.base import StepOutputs
from termplan.tasks.motion_tracking.config import NoiseConfig, Thresholds
from termplan.tasks.motion_tracking.profiles import (
    OWNER_VARIANTS,
    PROFILE_DEFS,
    SAC_OWNER_NOISE,
    Profile,
)

pytestmark = pytest.mark.numba("motion_tracking")

NOISES = {"off": NoiseConfig(), "on": NoiseConfig(level=1.0, gyro=0.2, joint_vel=1.5)}


def _run(profile: str | Profile, n: int, seed: int, noise: NoiseConfig) -> list[StepOutputs]:
    batch = mt.make_batch(n, seed=seed, profile=profile)
    mt.draw_noise(batch, np.random.default_rng(seed + 100), noise)
    outs = []
    for path in ("numpy", "handwritten"):
        hot = SESSION.get("motion_tracking", profile, n, path, num_threads=None, noise=noise)
        outs.append(hot.compute(batch, step=0))
    return outs


def assert_parity(a: StepOutputs, b: StepOutputs) -> None:
    """The project's motion tolerances (upstream check_parity)."""
    np.testing.assert_allclose(a.reward, b.reward, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(a.terminated, b.terminated)
    np.testing.assert_allclose(a.obs, b.obs, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(a.critic, b.critic, rtol=1e-5, atol=1e-5)
    assert a.logs.keys() == b.logs.keys()
    for key in a.logs:
        assert a.logs[key] == pytest.approx(b.logs[key], rel=1e-3, abs=1e-6), key


@pytest.mark.parametrize("noise", sorted(NOISES))
@pytest.mark.parametrize("n", [1, 7, 512])
@pytest.mark.parametrize("seed", [0, 11])
@pytest.mark.parametrize("profile", sorted(PROFILE_DEFS))
def test_numpy_matches_handwritten(profile: str, seed: int, n: int, noise: str) -> None:
    ref, hand = _run(profile, n, seed, NOISES[noise])
    assert_parity(ref, hand)
    assert ref.obs.shape == (n, 160)
    assert ref.critic.shape == (n, PROFILE_DEFS[profile].critic_dim)
    assert set(ref.logs) == {f"reward/{t}" for t in PROFILE_DEFS[profile].active_terms()}


@pytest.mark.parametrize("variant", sorted(OWNER_VARIANTS))
def test_owner_variants_match(variant: str) -> None:
    ref, hand = _run(OWNER_VARIANTS[variant], 64, 5, SAC_OWNER_NOISE)
    assert_parity(ref, hand)


def test_contact_termination_and_no_orientation_check_match() -> None:
    """The optional termination branches agree too (and change the outcome)."""
    base = PROFILE_DEFS["full_supported"]
    strict = Profile(
        "strict",
        base.scales,
        thresholds=Thresholds(anchor_ori=0.01),
        terminate_on_undesired_contacts=True,
    )
    loose = Profile("loose", base.scales, thresholds=Thresholds(anchor_ori=5.0))
    for prof in (strict, loose):
        ref, hand = _run(prof, 256, 2, NoiseConfig())
        assert_parity(ref, hand)
    strict_done = _run(strict, 256, 2, NoiseConfig())[0].terminated.mean()
    loose_done = _run(loose, 256, 2, NoiseConfig())[0].terminated.mean()
    assert strict_done > 0.5 > loose_done


def test_nonzero_bias_matches() -> None:
    batch = mt.make_batch(33, seed=4)
    batch.default_dof_pos_bias[...] = np.random.default_rng(1).normal(0, 0.1, (33, 29))
    outs = [mt.build("ppo_default", 33, p).compute(batch, 0) for p in ("numpy", "handwritten")]
    assert_parity(*outs)


def test_handwritten_thread_counts_agree() -> None:
    """Rows are independent, so outputs match bit for bit; per-thread log sums to 1e-12."""
    from termplan.threads import max_threads

    batch = mt.make_batch(777, seed=6, profile="full_supported")
    one = mt.build("full_supported", 777, "handwritten", num_threads=1).compute(batch, 0)
    one = StepOutputs(
        one.reward.copy(), one.terminated.copy(), one.obs.copy(), one.critic.copy(), one.logs
    )
    hot = mt.build("full_supported", 777, "handwritten", num_threads=max_threads())
    many = hot.compute(batch, 0)
    np.testing.assert_array_equal(one.reward, many.reward)
    np.testing.assert_array_equal(one.terminated, many.terminated)
    np.testing.assert_array_equal(one.critic, many.critic)
    for key, value in one.logs.items():
        assert many.logs[key] == pytest.approx(value, rel=1e-12, abs=1e-15)
