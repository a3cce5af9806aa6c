"""Quaternion helpers against SciPy (scalar-last!) and the Numba helpers against NumPy."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from termplan.tasks import motion_tracking as mt
from termplan.tasks.motion_tracking import geometry as geo

pytestmark = pytest.mark.numba("motion_tracking")

RNG = np.random.default_rng(7)
Q = Rotation.random(200, random_state=3).as_quat()[:, [3, 0, 1, 2]]  # to wxyz
Q2 = Rotation.random(200, random_state=4).as_quat()[:, [3, 0, 1, 2]]
V = RNG.normal(size=(200, 3))


def _rot(q: np.ndarray) -> Rotation:
    """SciPy rotation of wxyz quaternions (SciPy is xyzw)."""
    return Rotation.from_quat(q[..., [1, 2, 3, 0]])


def test_matrix_matches_scipy() -> None:
    np.testing.assert_allclose(geo.quat_to_matrix(Q), _rot(Q).as_matrix(), atol=1e-12)


def test_multiply_is_composition() -> None:
    got = _rot(geo.quat_mul(Q, Q2)).as_matrix()
    np.testing.assert_allclose(got, (_rot(Q) * _rot(Q2)).as_matrix(), atol=1e-12)


def test_conjugate_is_inverse() -> None:
    got = _rot(geo.quat_conjugate(Q)).as_matrix()
    np.testing.assert_allclose(got, _rot(Q).inv().as_matrix(), atol=1e-12)


def test_rotate_matches_scipy_and_round_trips() -> None:
    rotated = geo.quat_rotate(Q, V)
    np.testing.assert_allclose(rotated, _rot(Q).apply(V), atol=1e-12)
    np.testing.assert_allclose(geo.quat_rotate_inverse(Q, rotated), V, atol=1e-12)


def test_axis_angle_rotation_about_z() -> None:
    """A 90 degree turn about z maps x to y (independent of any quaternion formula)."""
    q = Rotation.from_rotvec([0.0, 0.0, math.pi / 2]).as_quat()[[3, 0, 1, 2]]
    np.testing.assert_allclose(
        geo.quat_rotate(q, np.array([1.0, 0.0, 0.0])), [0, 1, 0], atol=1e-12
    )


def test_yaw_matches_scipy_euler() -> None:
    np.testing.assert_allclose(geo.yaw(Q), _rot(Q).as_euler("ZYX")[:, 0], atol=1e-9)


def test_yaw_quat_is_rotation_about_z() -> None:
    psi = RNG.uniform(-3, 3, 50)
    want = Rotation.from_rotvec(np.outer(psi, [0, 0, 1])).as_quat()[:, [3, 0, 1, 2]]
    np.testing.assert_allclose(geo.yaw_quat(psi), want, atol=1e-12)


def test_rot6d_columns_and_identity() -> None:
    mat = _rot(Q).as_matrix()
    np.testing.assert_allclose(geo.rot6d(Q), mat[:, :, :2].reshape(-1, 6), atol=1e-12)
    np.testing.assert_array_equal(geo.rot6d(np.array([1.0, 0, 0, 0])), [1, 0, 0, 1, 0, 0])


def test_angle_sq_matches_relative_magnitude() -> None:
    want = (_rot(Q).inv() * _rot(Q2)).magnitude() ** 2
    np.testing.assert_allclose(geo.quat_angle_sq(Q, Q2), want, atol=1e-9)
    np.testing.assert_allclose(geo.quat_angle_sq(Q, -Q2), want, atol=1e-9)
    np.testing.assert_allclose(geo.quat_angle_sq(Q, Q), 0.0, atol=1e-12)


def test_gravity_z_is_minus_r22() -> None:
    np.testing.assert_allclose(geo.gravity_z(Q), -_rot(Q).as_matrix()[:, 2, 2], atol=1e-12)


def test_out_buffers_are_written_in_place() -> None:
    out = np.empty((200, 4))
    tmp = np.empty(200)
    assert geo.quat_mul(Q, Q2, out=out, tmp=tmp) is out


# --------------------------------------------------------------------- Numba == NumPy


@numba.njit
def _put(out: np.ndarray, i: int, start: int, values: tuple[float, ...]) -> None:
    for k in range(len(values)):
        out[i, start + k] = values[k]


@numba.njit
def _numba_helpers(q: np.ndarray, p: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    for i in range(q.shape[0]):
        w, x, y, z = q[i, 0], q[i, 1], q[i, 2], q[i, 3]
        a, b, c, d = p[i, 0], p[i, 1], p[i, 2], p[i, 3]
        vx, vy, vz = v[i, 0], v[i, 1], v[i, 2]
        _put(out, i, 0, geo.quat_mul_s(w, x, y, z, a, b, c, d))
        _put(out, i, 4, geo.quat_conjugate_s(w, x, y, z))
        _put(out, i, 8, geo.quat_rotate_s(w, x, y, z, vx, vy, vz))
        _put(out, i, 11, geo.quat_rotate_inverse_s(w, x, y, z, vx, vy, vz))
        out[i, 14] = geo.yaw_s(w, x, y, z)
        _put(out, i, 15, geo.yaw_quat_s(out[i, 14]))
        _put(out, i, 19, geo.rot6d_s(w, x, y, z))
        out[i, 25] = geo.quat_angle_sq_s(w, x, y, z, a, b, c, d)
        out[i, 26] = geo.gravity_z_s(w, x, y, z)


def test_numba_helpers_equal_numpy_helpers() -> None:
    out = np.empty((200, 27))
    _numba_helpers(Q, Q2, V, out)
    psi = geo.yaw(Q)
    want = np.concatenate(
        [
            geo.quat_mul(Q, Q2),
            geo.quat_conjugate(Q),
            geo.quat_rotate(Q, V),
            geo.quat_rotate_inverse(Q, V),
            psi[:, None],
            geo.yaw_quat(psi),
            geo.rot6d(Q),
            geo.quat_angle_sq(Q, Q2)[:, None],
            geo.gravity_z(Q)[:, None],
        ],
        axis=1,
    )
    np.testing.assert_allclose(out, want, atol=1e-7)


@numba.njit
def _acos_all(x: np.ndarray, out: np.ndarray) -> None:
    for i in range(x.shape[0]):
        out[i] = geo.acos_unit_s(x[i])


def test_polynomial_acos_within_2e8() -> None:
    x = np.concatenate([np.linspace(0.0, 1.0, 100_001), 1 - np.logspace(-12, -1, 200)])
    out = np.empty_like(x)
    _acos_all(x, out)
    assert np.max(np.abs(out - np.arccos(x))) <= 3e-8
    _acos_all(np.array([np.nan]), out[:1])
    assert np.isnan(out[0])


# --------------------------------------------------------------------- task-level geometry


@pytest.mark.parametrize("path", ["numpy", "handwritten"])
def test_sign_of_quaternions_does_not_matter(path: str) -> None:
    batch = mt.make_batch(64, seed=9, profile="full_supported")
    flipped = mt.make_batch(64, seed=9, profile="full_supported")
    mask = np.random.default_rng(0).random((64, 14)) < 0.5
    flipped.body_quat_w[mask] *= -1
    flipped.robot_body_quat_w[~mask] *= -1
    hot = mt.build("full_supported", 64, path)
    a = hot.compute(batch, 0)
    a = type(a)(a.reward.copy(), a.terminated.copy(), a.obs.copy(), a.critic.copy(), a.logs)
    b = hot.compute(flipped, 0)
    np.testing.assert_allclose(a.reward, b.reward, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(a.terminated, b.terminated)
    np.testing.assert_allclose(a.obs, b.obs, atol=1e-6)
    np.testing.assert_allclose(a.critic, b.critic, atol=1e-6)


def _yaw_shifted_reference(n: int, seed: int) -> mt.MotionBatch:
    """A batch whose reference is the robot pose turned about z and shifted in x/y."""
    batch = mt.make_batch(n, seed=seed)
    rng = np.random.default_rng(seed)
    theta, shift = rng.uniform(-3, 3, n), rng.uniform(-2, 2, (n, 1, 3))
    shift[..., 2] = 0.0
    turn = Rotation.from_rotvec(np.outer(theta, [0, 0, 1]))
    for i in range(n):
        batch.body_pos_w[i] = turn[i].apply(batch.robot_body_pos_w[i]) + shift[i]
        rot = turn[i] * _rot(batch.robot_body_quat_w[i].astype(np.float64))
        batch.body_quat_w[i] = rot.as_quat()[:, [3, 0, 1, 2]]
    return batch


@pytest.mark.parametrize("path", ["numpy", "handwritten"])
def test_yaw_alignment_undoes_a_yaw_turn(path: str) -> None:
    """Aligned to the robot anchor, the reference is the robot pose: body pos/ori terms = 1."""
    batch = _yaw_shifted_reference(32, 3)
    out = mt.build("sac_default", 32, path).compute(batch, 0)
    assert out.logs["reward/motion_body_pos"] == pytest.approx(1.0, abs=1e-5)
    assert out.logs["reward/motion_body_ori"] == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("path", ["numpy", "handwritten"])
def test_identical_reference_gives_identity_anchor(path: str) -> None:
    batch = mt.make_batch(16, seed=1)
    batch.body_pos_w[...] = batch.robot_body_pos_w
    batch.body_quat_w[...] = batch.robot_body_quat_w
    out = mt.build("sac_default", 16, path).compute(batch, 0)
    np.testing.assert_allclose(out.obs[:, 58:61], 0.0, atol=1e-6)
    np.testing.assert_allclose(out.obs[:, 61:67], np.tile([1, 0, 0, 1, 0, 0], (16, 1)), atol=1e-6)
    assert out.logs["reward/motion_global_root_pos"] == pytest.approx(0.5, abs=1e-7)
