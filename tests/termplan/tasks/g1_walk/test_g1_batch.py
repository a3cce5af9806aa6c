"""The synthetic batch: determinism, distributions, noise draws and input validation."""

from __future__ import annotations

import numpy as np
import pytest

from termplan.tasks.g1_walk import NoiseConfig, draw_noise, make_batch, validate
from termplan.tasks.g1_walk.batch import FIELD_SPECS, G1Batch


def test_same_seed_same_batch_other_seed_differs() -> None:
    a, b, c = make_batch(64, seed=0), make_batch(64, seed=0), make_batch(64, seed=1)
    for name in FIELD_SPECS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert not np.array_equal(a.dof_pos, c.dof_pos)


def test_fields_have_declared_shapes_and_dtypes() -> None:
    batch = make_batch(5)
    assert validate(batch, 5) is batch
    assert batch.num_envs == 5
    for name, (row_shape, dtype) in FIELD_SPECS.items():
        value = getattr(batch, name)
        assert value.shape == (5, *row_shape) and value.dtype == dtype, name


def test_distributions_follow_the_benchmark() -> None:
    b = make_batch(20000, seed=0)
    np.testing.assert_allclose(b.linvel.mean(axis=0), [0.8, 0.0, 0.0], atol=0.01)
    np.testing.assert_allclose(b.linvel.std(axis=0), [0.25, 0.08, 0.08], rtol=0.03)
    np.testing.assert_allclose(b.base_height.mean(), 0.754, atol=1e-3)
    assert b.gravity[:, 2].max() <= 1.0
    assert b.commands[:, 0].min() >= np.float32(0.05)
    assert 0.0 <= b.gait_phase.min() and b.gait_phase.max() < 2 * np.pi
    # any of 4 sensors > 0.45 uniform: P(contact) = 1 - 0.45**4
    np.testing.assert_allclose(b.left_contact.mean(), 1 - 0.45**4, atol=0.01)
    np.testing.assert_array_equal(b.left_foot_quat[3], np.float32([1.0, 0.01, 0.02, 0.0]))
    assert not b.noise_dof_vel.any()


def test_draw_noise_bounds_and_level_zero() -> None:
    batch = make_batch(256, seed=2)
    cfg = NoiseConfig(level=2.0, gyro=0.1, gravity=0.0, joint_angle=0.02, joint_vel=0.3)
    draw_noise(batch, np.random.default_rng(0), cfg)
    assert 0 < np.abs(batch.noise_dof_vel).max() <= 0.6
    assert 0 < np.abs(batch.noise_gyro).max() <= 0.2
    assert not batch.noise_gravity.any()
    draw_noise(batch, np.random.default_rng(0), NoiseConfig(level=0.0))
    assert not batch.noise_dof_vel.any() and not batch.noise_gyro.any()


def test_noise_config_rejects_negative_levels() -> None:
    with pytest.raises(ValueError, match="level"):
        NoiseConfig(level=-1.0)


@pytest.mark.parametrize("name", list(FIELD_SPECS))
def test_wrong_shape_names_the_input(name) -> None:
    batch = make_batch(4)
    value = getattr(batch, name)
    setattr(batch, name, np.zeros((5, *value.shape[1:]), dtype=value.dtype))
    with pytest.raises(ValueError, match=rf"'{name}'.*shape \(4"):
        validate(batch, 4)


@pytest.mark.parametrize("name", list(FIELD_SPECS))
def test_wrong_dtype_names_the_input(name) -> None:
    batch = make_batch(4)
    value = getattr(batch, name)
    wrong = np.float64 if value.dtype != np.float64 else np.float32
    setattr(batch, name, value.astype(wrong))
    with pytest.raises(ValueError, match=rf"'{name}'.*dtype"):
        validate(batch, 4)


def test_non_contiguous_and_non_array_inputs_are_rejected() -> None:
    batch = make_batch(4)
    batch.dof_vel = np.asfortranarray(batch.dof_vel)
    with pytest.raises(ValueError, match="'dof_vel'.*C-contiguous"):
        validate(batch, 4)
    batch = make_batch(4)
    batch.commands = batch.commands.tolist()
    with pytest.raises(ValueError, match="'commands'.*ndarray"):
        validate(batch, 4)
    with pytest.raises(ValueError, match="G1Batch"):
        validate({"linvel": None}, 4)  # type: ignore[arg-type]


def test_single_env_rows_with_odd_strides_are_accepted() -> None:
    batch = make_batch(1)
    batch.dof_pos = np.zeros((1, 58), np.float32)[:, ::2]  # (1, 29), not packed
    with pytest.raises(ValueError, match="dof_pos"):
        validate(batch, 1)
    batch.dof_pos = np.zeros((2, 29), np.float32)[:1]
    assert isinstance(validate(batch, 1), G1Batch)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_make_batch_rejects_bad_sizes(bad) -> None:
    with pytest.raises(ValueError, match="num_envs"):
        make_batch(bad)
