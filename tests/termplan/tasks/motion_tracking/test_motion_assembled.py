"""Assembled (term-plan) motion-tracking path: parity with NumPy and hand-written paths."""

from __future__ import annotations

import numpy as np
import pytest
from hot_slices import SliceCache

from termplan.codegen import ScaleMode, generate_source
from termplan.tasks import motion_tracking as mt
from termplan.tasks.base import StepOutputs
from termplan.tasks.motion_tracking import make_batch
from termplan.tasks.motion_tracking.assembled import AssembledMotionTracking
from termplan.tasks.motion_tracking.batch import draw_noise
from termplan.tasks.motion_tracking.profiles import OWNER_VARIANTS, PROFILE_DEFS, SAC_OWNER_NOISE
from termplan.tasks.motion_tracking.terms import build_plan

pytestmark = pytest.mark.numba("motion_tracking")


def _snap(out: StepOutputs) -> StepOutputs:
    return StepOutputs(
        out.reward.copy(), out.terminated.copy(), out.obs.copy(), out.critic.copy(),
        dict(out.logs),
    )  # fmt: skip


def _agree(ref: StepOutputs, got: StepOutputs) -> None:
    """Motion tolerances: reward 1e-4/1e-5, termination exact, obs 1e-5, logs 1e-3/1e-6."""
    np.testing.assert_allclose(got.reward, ref.reward, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(got.terminated, ref.terminated)
    np.testing.assert_allclose(got.obs, ref.obs, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got.critic, ref.critic, rtol=1e-5, atol=1e-5)
    assert list(got.logs) == list(ref.logs)
    for key, value in ref.logs.items():
        np.testing.assert_allclose(got.logs[key], value, rtol=1e-3, atol=1e-6, err_msg=key)


def _batch(num_envs: int, profile: str, seed: int) -> mt.MotionBatch:
    batch = make_batch(num_envs, seed=seed, profile=profile)
    n = num_envs
    batch.robot_body_pos_w[0, 2, 0] = np.nan  # body rewards + critic body block
    batch.body_quat_w[n // 2, 7, 1] = np.nan  # anchor: termination fails closed
    batch.dof_pos[n - 1, 3] = np.nan  # joint terms and obs
    return batch


@pytest.mark.parametrize("profile", list(PROFILE_DEFS))
@pytest.mark.parametrize("mode", [m.value for m in ScaleMode])
@pytest.mark.parametrize("num_envs", [1, 7, 512])
def test_assembled_matches_reference_paths(
    profile: str, mode: str, num_envs: int, hot_slices: SliceCache
) -> None:
    """Both scale modes agree with NumPy and hand-written, log and non-log steps, NaNs too."""
    batch = _batch(num_envs, profile, seed=num_envs)
    hot = hot_slices.get("motion_tracking", profile, num_envs, "assembled", scale_mode=mode)
    for step in (0, 1):
        got = _snap(hot.compute(batch, step))
        for path in ("numpy", "handwritten"):
            ref = hot_slices.get("motion_tracking", profile, num_envs, path)
            _agree(ref.compute(batch, step), got)
        assert bool(got.logs) == (step == 0)


@pytest.mark.parametrize("profile", list(PROFILE_DEFS))
def test_plan_numpy_backend_matches(profile: str) -> None:
    """The plan's NumPy fallback agrees with the task's independent NumPy path."""
    batch = _batch(64, profile, seed=2)
    got = AssembledMotionTracking(profile, 64, backend="numpy").compute(batch, 0)
    _agree(mt.build(profile, 64, "numpy").compute(batch, 0), got)


@pytest.mark.parametrize("variant", sorted(OWNER_VARIANTS))
def test_owner_variants_build_on_every_path(variant: str) -> None:
    """Every owner config builds on all three paths (upstream: 'requires env.term_plan')."""
    batch = make_batch(8, seed=1, profile=variant)
    outs = {p: _snap(mt.build(variant, 8, p).compute(batch, 0)) for p in mt.PATHS}
    assert set(outs) == {"numpy", "handwritten", "assembled"}
    _agree(outs["numpy"], outs["assembled"])


def test_noise_parity() -> None:
    """With the SAC owner noise, the actor reads ``x + noise``; the critic stays clean."""
    batch = make_batch(9, seed=3, profile="sac_default")
    draw_noise(batch, np.random.default_rng(0), SAC_OWNER_NOISE)
    got = _snap(AssembledMotionTracking("sac_default", 9, noise=SAC_OWNER_NOISE).compute(batch))
    _agree(mt.build("sac_default", 9, "numpy", noise=SAC_OWNER_NOISE).compute(batch), got)


def test_preamble_stays_in_registers_and_dead_terms_vanish() -> None:
    """No workspace arrays: the reference poses are locals; zero-scale joint terms are absent."""
    text = generate_source(build_plan(PROFILE_DEFS["sac_default"])).text
    assert "refx = " in text
    for absent in ("jpos_sum", "jvel_sum", "ee_sum", "np.empty", "np.zeros", "in_noise_"):
        assert absent not in text
    full = generate_source(build_plan(PROFILE_DEFS["full_supported"])).text
    assert "jpos_sum" in full
    assert "ee_sum" in full


def test_bad_batch() -> None:
    """Wrong batch types and arrays are ValueErrors naming the input."""
    hot = AssembledMotionTracking("ppo_default", 4, num_threads=1)
    with pytest.raises(ValueError, match="MotionBatch"):
        hot.compute(object(), 0)  # type: ignore[arg-type]
    batch = make_batch(4)
    batch.dof_pos = batch.dof_pos[:, :28].copy()
    with pytest.raises(ValueError, match="input 'dof_pos'"):
        hot.compute(batch, 0)


def test_one_parfor() -> None:
    """The parallel kernel is a single parfor."""
    hot = AssembledMotionTracking("sac_default", 64, num_threads=2)
    assert hot.runtime.parfor_count("step_parallel") == 1
