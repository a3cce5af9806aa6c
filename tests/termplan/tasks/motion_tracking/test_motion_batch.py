"""Synthetic batch and input validation."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from termplan.tasks import motion_tracking as mt
from termplan.tasks.motion_tracking.batch import FIELD_SHAPES, MotionBatch
from termplan.tasks.motion_tracking.config import ANCHOR, NoiseConfig


def test_every_field_is_float32_contiguous_with_expected_shape() -> None:
    batch = mt.make_batch(9, seed=0)
    for f in fields(MotionBatch):
        value = getattr(batch, f.name)
        assert value.shape == (9, *FIELD_SHAPES[f.name]), f.name
        assert value.dtype == np.float32 and value.flags.c_contiguous, f.name
    np.testing.assert_allclose(np.linalg.norm(batch.body_quat_w, axis=-1), 1.0, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(batch.robot_body_quat_w, axis=-1), 1.0, atol=1e-6)


def test_deterministic_per_seed() -> None:
    a, b, c = mt.make_batch(5, seed=3), mt.make_batch(5, seed=3), mt.make_batch(5, seed=4)
    np.testing.assert_array_equal(a.robot_body_pos_w, b.robot_body_pos_w)
    assert not np.array_equal(a.robot_body_pos_w, c.robot_body_pos_w)


def test_about_two_percent_terminate_on_the_lifted_anchor() -> None:
    n = 4096
    batch = mt.make_batch(n, seed=0)
    gap = np.abs(batch.body_pos_w[:, ANCHOR, 2] - batch.robot_body_pos_w[:, ANCHOR, 2])
    assert np.all(gap[: int(0.02 * n)] > 0.25)
    done = mt.build("sac_default", n, "numpy").compute(batch, 0).terminated
    assert done[: int(0.02 * n)].all()
    assert 0.02 <= done.mean() < 0.04


def test_pelvis_contact_only_when_profile_scores_contacts() -> None:
    assert mt.make_batch(100, seed=0).robot_body_pos_w[0, 0, 2] == 0.0
    from termplan.tasks.motion_tracking.profiles import OWNER_VARIANTS

    no_contacts = mt.make_batch(100, seed=0, profile=OWNER_VARIANTS["reward_config_default"])
    assert no_contacts.robot_body_pos_w[0, 0, 2] != 0.0


def test_draw_noise_scales() -> None:
    batch = mt.make_batch(2000, seed=0)
    mt.draw_noise(batch, np.random.default_rng(0), NoiseConfig(level=2.0, gyro=0.25))
    assert 0.45 < np.abs(batch.noise_gyro).max() <= 0.5
    mt.draw_noise(batch, np.random.default_rng(0), NoiseConfig())
    assert not batch.noise_dof_vel.any()


@pytest.mark.parametrize("name", ["dof_pos", "robot_body_quat_w", "noise_gyro"])
def test_wrong_dtype_names_input(name: str) -> None:
    batch = mt.make_batch(4)
    setattr(batch, name, getattr(batch, name).astype(np.float64))
    with pytest.raises(ValueError, match=f"input '{name}'.*float64"):
        mt.validate(batch, 4)


@pytest.mark.parametrize("name", ["body_pos_w", "last_actions"])
def test_wrong_shape_names_input(name: str) -> None:
    batch = mt.make_batch(4)
    setattr(batch, name, getattr(batch, name)[:3])
    for path in ("numpy", "handwritten"):
        with pytest.raises(ValueError, match=f"input '{name}'.*expected shape \\(4,"):
            mt.build("sac_default", 4, path).compute(batch, 0)


def test_non_contiguous_and_non_batch_rejected() -> None:
    batch = mt.make_batch(4)
    batch.gyro = np.zeros((3, 4), np.float32).T
    with pytest.raises(ValueError, match="'gyro'.*C-contiguous"):
        mt.validate(batch, 4)
    with pytest.raises(ValueError, match="batch: expected a MotionBatch"):
        mt.validate({"gyro": 1}, 4)
