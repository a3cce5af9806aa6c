"""The per-env rotation-matrix helpers of the hand-written motion kernel, against SciPy."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from termplan.kernel_options import SERIAL_OPTIONS
from termplan.tasks.motion_tracking import geometry as geo

pytestmark = pytest.mark.numba("motion_tracking")

_OPTIONS = {**SERIAL_OPTIONS, "cache": False}
Q = Rotation.random(100, random_state=11).as_quat()[:, [3, 0, 1, 2]]  # to wxyz
V = np.random.default_rng(5).normal(size=(100, 3))


@numba.njit(**_OPTIONS)
def _matrices(q, out):  # type: ignore[no-untyped-def]
    for k in range(q.shape[0]):
        m = geo.quat_to_matrix_s(q[k, 0], q[k, 1], q[k, 2], q[k, 3])
        for e in range(9):
            out[k, e] = m[e]


@numba.njit(**_OPTIONS)
def _inverse_rotate(q, v, out):  # type: ignore[no-untyped-def]
    for k in range(q.shape[0]):
        m = geo.quat_to_matrix_s(q[k, 0], q[k, 1], q[k, 2], q[k, 3])
        out[k, 0], out[k, 1], out[k, 2] = geo.mat_t_vec_s(m, v[k, 0], v[k, 1], v[k, 2])


def test_matrix_is_row_major_scipy_matrix() -> None:
    out = np.empty((len(Q), 9))
    _matrices(Q, out)
    want = Rotation.from_quat(Q[:, [1, 2, 3, 0]]).as_matrix().reshape(-1, 9)
    np.testing.assert_allclose(out, want, atol=1e-12)


def test_transpose_product_is_the_inverse_rotation() -> None:
    out = np.empty_like(V)
    _inverse_rotate(Q, V, out)
    want = Rotation.from_quat(Q[:, [1, 2, 3, 0]]).inv().apply(V)
    np.testing.assert_allclose(out, want, atol=1e-12)
    np.testing.assert_allclose(out, geo.quat_rotate_inverse(Q, V), atol=1e-12)
