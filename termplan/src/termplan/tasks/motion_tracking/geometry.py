"""Quaternion geometry (scalar-first, wxyz) in two forms: vectorised NumPy and Numba device.

NumPy helpers work on ``(..., 4)`` quaternions and ``(..., 3)`` vectors with broadcasting.
Each takes an optional ``out`` and ``tmp`` (one component-shaped scratch array); given both,
it allocates nothing, which is how the NumPy hot-slice path stays allocation-free. ``out``
must not alias an input.

The ``*_s`` helpers are Numba device functions on scalars (inlined into the kernels with
:data:`termplan.kernel_options.INLINE_OPTIONS`); they return tuples of components. All
helpers assume unit quaternions where a rotation is meant.

Conventions: ``rot6d`` is the first two columns of the rotation matrix, row-major
``[R00, R01, R10, R11, R20, R21]``; ``quat_angle_sq(q1, q2) = (2 acos(min(|<q1,q2>|, 1)))**2``
(so q and -q are the same rotation); ``gravity_z(q) = 2 (qx**2 + qy**2) - 1``, the world-z
component of the body's gravity direction up to sign.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numba
import numpy as np

from termplan.kernel_options import INLINE_OPTIONS

Term = tuple[int, np.ndarray, np.ndarray]

# --------------------------------------------------------------------------- NumPy helpers


def _alloc(out: np.ndarray | None, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    return np.empty(shape, dtype=dtype) if out is None else out


def _scratch(tmp: np.ndarray | None, like: np.ndarray) -> np.ndarray:
    return np.empty_like(like) if tmp is None else tmp


def sum_products(dst: np.ndarray, tmp: np.ndarray, terms: Sequence[Term]) -> None:
    """``dst = sum(sign * u * v)`` with in-place ufuncs only (``tmp`` shaped like ``dst``)."""
    sign, u, v = terms[0]
    np.multiply(u, v, out=dst)
    if sign < 0:
        np.negative(dst, out=dst)
    for sign, u, v in terms[1:]:
        np.multiply(u, v, out=tmp)
        (np.add if sign > 0 else np.subtract)(dst, tmp, out=dst)


def _parts(x: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(x[..., k] for k in range(x.shape[-1]))


def quat_mul(
    a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None
) -> np.ndarray:
    """Hamilton product ``a (x) b`` of wxyz quaternions (broadcasting over leading axes)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = _alloc(out, shape, np.result_type(a, b))
    tmp = _scratch(tmp, out[..., 0])
    aw, ax, ay, az = _parts(a)
    bw, bx, by, bz = _parts(b)
    ow, ox, oy, oz = _parts(out)
    sum_products(ow, tmp, [(1, aw, bw), (-1, ax, bx), (-1, ay, by), (-1, az, bz)])
    sum_products(ox, tmp, [(1, aw, bx), (1, ax, bw), (1, ay, bz), (-1, az, by)])
    sum_products(oy, tmp, [(1, aw, by), (-1, ax, bz), (1, ay, bw), (1, az, bx)])
    sum_products(oz, tmp, [(1, aw, bz), (1, ax, by), (-1, ay, bx), (1, az, bw)])
    return out


def quat_conjugate(q: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``(w, -x, -y, -z)``; equals the inverse for a unit quaternion."""
    out = _alloc(out, q.shape, q.dtype)
    out[..., 0] = q[..., 0]
    np.negative(q[..., 1:], out=out[..., 1:])
    return out


def _diag_entry(dst: np.ndarray, tmp: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """``dst = 1 - 2 (a**2 + b**2)``."""
    sum_products(dst, tmp, [(1, a, a), (1, b, b)])
    np.multiply(dst, -2.0, out=dst)
    np.add(dst, 1.0, out=dst)


def _off_entry(
    dst: np.ndarray,
    tmp: np.ndarray,
    sign: int,
    ab: tuple[np.ndarray, np.ndarray],
    cd: tuple[np.ndarray, np.ndarray],
) -> None:
    """``dst = 2 (a b + sign c d)``."""
    sum_products(dst, tmp, [(1, *ab), (sign, *cd)])
    np.multiply(dst, 2.0, out=dst)


def quat_to_matrix(
    q: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None
) -> np.ndarray:
    """Rotation matrix ``(..., 3, 3)`` of unit wxyz quaternions."""
    out = _alloc(out, (*q.shape[:-1], 3, 3), q.dtype)
    tmp = _scratch(tmp, out[..., 0, 0])
    w, x, y, z = _parts(q)
    _diag_entry(out[..., 0, 0], tmp, y, z)
    _off_entry(out[..., 0, 1], tmp, -1, (x, y), (w, z))
    _off_entry(out[..., 0, 2], tmp, 1, (x, z), (w, y))
    _off_entry(out[..., 1, 0], tmp, 1, (x, y), (w, z))
    _diag_entry(out[..., 1, 1], tmp, x, z)
    _off_entry(out[..., 1, 2], tmp, -1, (y, z), (w, x))
    _off_entry(out[..., 2, 0], tmp, -1, (x, z), (w, y))
    _off_entry(out[..., 2, 1], tmp, 1, (y, z), (w, x))
    _diag_entry(out[..., 2, 2], tmp, x, y)
    return out


def rot6d(
    q: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None
) -> np.ndarray:
    """First two rotation-matrix columns, row-major ``[R00, R01, R10, R11, R20, R21]``."""
    out = _alloc(out, (*q.shape[:-1], 6), q.dtype)
    tmp = _scratch(tmp, out[..., 0])
    w, x, y, z = _parts(q)
    _diag_entry(out[..., 0], tmp, y, z)
    _off_entry(out[..., 1], tmp, -1, (x, y), (w, z))
    _off_entry(out[..., 2], tmp, 1, (x, y), (w, z))
    _diag_entry(out[..., 3], tmp, x, z)
    _off_entry(out[..., 4], tmp, -1, (x, z), (w, y))
    _off_entry(out[..., 5], tmp, 1, (y, z), (w, x))
    return out


def mat_vec(
    mat: np.ndarray,
    vec: np.ndarray,
    out: np.ndarray | None = None,
    tmp: np.ndarray | None = None,
    transpose: bool = False,
) -> np.ndarray:
    """``mat @ vec`` (or ``mat.T @ vec``) for ``(..., 3, 3)`` matrices and ``(..., 3)`` vectors."""
    shape = np.broadcast_shapes(mat.shape[:-1], vec.shape)
    out = _alloc(out, shape, np.result_type(mat, vec))
    tmp = _scratch(tmp, out[..., 0])
    for i in range(3):
        row = [mat[..., j, i] if transpose else mat[..., i, j] for j in range(3)]
        sum_products(out[..., i], tmp, [(1, row[j], vec[..., j]) for j in range(3)])
    return out


def quat_rotate(q: np.ndarray, vec: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Rotate ``vec`` by unit quaternion ``q`` (``R(q) v``)."""
    return mat_vec(quat_to_matrix(q), vec, out=out)


def quat_rotate_inverse(
    q: np.ndarray, vec: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """Rotate ``vec`` by the inverse of unit quaternion ``q`` (``R(q)^T v``)."""
    return mat_vec(quat_to_matrix(q), vec, out=out, transpose=True)


def yaw(q: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None) -> np.ndarray:
    """Yaw angle ``atan2(2 (w z + x y), 1 - 2 (y**2 + z**2))`` of wxyz quaternions.

    ``tmp`` here is ``(2, *q.shape[:-1])``: the denominator and one product scratch.
    """
    out = _alloc(out, q.shape[:-1], q.dtype)
    tmp = np.empty((2, *out.shape), dtype=out.dtype) if tmp is None else tmp
    w, x, y, z = _parts(q)
    den, scratch = tmp[0], tmp[1]
    _diag_entry(den, scratch, y, z)
    _off_entry(out, scratch, 1, (w, z), (x, y))
    np.arctan2(out, den, out=out)
    return out


def yaw_quat(psi: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The pure-yaw quaternion ``(cos psi/2, 0, 0, sin psi/2)``."""
    out = _alloc(out, (*psi.shape, 4), psi.dtype)
    np.multiply(psi, 0.5, out=out[..., 1])
    np.sin(out[..., 1], out=out[..., 3])
    np.cos(out[..., 1], out=out[..., 0])
    out[..., 1:3] = 0.0
    return out


def quat_dot(
    a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None
) -> np.ndarray:
    """``<a, b>`` over the last axis."""
    out = _alloc(out, np.broadcast_shapes(a.shape, b.shape)[:-1], np.result_type(a, b))
    tmp = _scratch(tmp, out)
    sum_products(out, tmp, [(1, a[..., k], b[..., k]) for k in range(4)])
    return out


def quat_angle_sq(
    a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None
) -> np.ndarray:
    """Squared rotation angle between unit quaternions: ``(2 acos(min(|<a,b>|, 1)))**2``.

    NaN inputs give NaN (``np.minimum`` propagates it).
    """
    out = quat_dot(a, b, out=out, tmp=tmp)
    np.abs(out, out=out)
    np.minimum(out, 1.0, out=out)
    np.arccos(out, out=out)
    np.multiply(out, 2.0, out=out)
    np.square(out, out=out)
    return out


def gravity_z(
    q: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None
) -> np.ndarray:
    """``2 (qx**2 + qy**2) - 1`` of wxyz quaternions."""
    out = _alloc(out, q.shape[:-1], q.dtype)
    tmp = _scratch(tmp, out)
    sum_products(out, tmp, [(1, q[..., 1], q[..., 1]), (1, q[..., 2], q[..., 2])])
    np.multiply(out, 2.0, out=out)
    np.subtract(out, 1.0, out=out)
    return out


# --------------------------------------------------------------------------- Numba helpers
# Scalar device functions, inlined into the kernels. Quaternions are passed as 4 scalars.


@numba.njit(**INLINE_OPTIONS)
def quat_mul_s(
    aw: float, ax: float, ay: float, az: float, bw: float, bx: float, by: float, bz: float
) -> tuple[float, float, float, float]:
    """Hamilton product of two wxyz quaternions."""
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


@numba.njit(**INLINE_OPTIONS)
def quat_conjugate_s(w: float, x: float, y: float, z: float) -> tuple[float, float, float, float]:
    """``(w, -x, -y, -z)``."""
    return w, -x, -y, -z


@numba.njit(**INLINE_OPTIONS)
def quat_rotate_s(
    w: float, x: float, y: float, z: float, vx: float, vy: float, vz: float
) -> tuple[float, float, float]:
    """``R(q) v`` via ``v + 2 w (u x v) + 2 u x (u x v)``, u = (x, y, z)."""
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (
        vx + w * tx + (y * tz - z * ty),
        vy + w * ty + (z * tx - x * tz),
        vz + w * tz + (x * ty - y * tx),
    )


@numba.njit(**INLINE_OPTIONS)
def quat_rotate_inverse_s(
    w: float, x: float, y: float, z: float, vx: float, vy: float, vz: float
) -> tuple[float, float, float]:
    """``R(q)^T v``: rotation by the conjugate."""
    return quat_rotate_s(w, -x, -y, -z, vx, vy, vz)


Mat3 = tuple[float, float, float, float, float, float, float, float, float]


@numba.njit(**INLINE_OPTIONS)
def quat_to_matrix_s(w: float, x: float, y: float, z: float) -> Mat3:
    """Row-major rotation matrix ``R(q)`` of a unit quaternion (9 scalars).

    Built once per env and applied to many vectors with :func:`mat_t_vec_s`, it replaces a
    per-vector :func:`quat_rotate_inverse_s` (9 multiply-adds instead of about 18 flops).
    """
    return (
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y - w * z),
        2.0 * (x * z + w * y),
        2.0 * (x * y + w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z - w * x),
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
        1.0 - 2.0 * (x * x + y * y),
    )


@numba.njit(**INLINE_OPTIONS)
def mat_t_vec_s(m: Mat3, vx: float, vy: float, vz: float) -> tuple[float, float, float]:
    """``R^T v`` for a row-major ``R`` from :func:`quat_to_matrix_s` (inverse rotation)."""
    return (
        m[0] * vx + m[3] * vy + m[6] * vz,
        m[1] * vx + m[4] * vy + m[7] * vz,
        m[2] * vx + m[5] * vy + m[8] * vz,
    )


@numba.njit(**INLINE_OPTIONS)
def yaw_s(w: float, x: float, y: float, z: float) -> float:
    """Yaw angle ``atan2(2 (w z + x y), 1 - 2 (y**2 + z**2))``."""
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


@numba.njit(**INLINE_OPTIONS)
def yaw_quat_s(psi: float) -> tuple[float, float, float, float]:
    """``(cos psi/2, 0, 0, sin psi/2)``."""
    return math.cos(0.5 * psi), 0.0, 0.0, math.sin(0.5 * psi)


@numba.njit(**INLINE_OPTIONS)
def rot6d_s(
    w: float, x: float, y: float, z: float
) -> tuple[float, float, float, float, float, float]:
    """``[R00, R01, R10, R11, R20, R21]`` of a unit quaternion."""
    return (
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y - w * z),
        2.0 * (x * y + w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
    )


#: Abramowitz & Stegun 4.4.46: ``acos(x) = sqrt(1 - x) * P7(x) + e``, ``|e| <= 2e-8`` on [0, 1].
ACOS_COEFFS = (
    1.5707963050,
    -0.2145988016,
    0.0889789874,
    -0.0501743046,
    0.0308918810,
    -0.0170881256,
    0.0066700901,
    -0.0012624911,
)
_C0, _C1, _C2, _C3, _C4, _C5, _C6, _C7 = ACOS_COEFFS


@numba.njit(**INLINE_OPTIONS)
def acos_unit_s(x: float) -> float:
    """``acos(x)`` for ``x`` in [0, 1] to within 2e-8 rad (NaN in gives NaN out).

    libm's ``acos`` is the single most expensive operation of the motion kernel (15 calls
    per env row); this polynomial is about 3x cheaper and far inside every parity tolerance
    (float32 inputs already carry 6e-8 relative error).
    """
    p = ((((((_C7 * x + _C6) * x + _C5) * x + _C4) * x + _C3) * x + _C2) * x + _C1) * x + _C0
    return math.sqrt(1.0 - x) * p


@numba.njit(**INLINE_OPTIONS)
def quat_angle_sq_s(
    aw: float, ax: float, ay: float, az: float, bw: float, bx: float, by: float, bz: float
) -> float:
    """``(2 acos(min(|<a,b>|, 1)))**2``; NaN in gives NaN out (the clamp keeps NaN)."""
    d = abs(float(aw * bw + ax * bx + ay * by + az * bz))
    d = 1.0 if d > 1.0 else d
    angle = 2.0 * acos_unit_s(d)
    return angle * angle


@numba.njit(**INLINE_OPTIONS)
def gravity_z_s(w: float, x: float, y: float, z: float) -> float:
    """``2 (qx**2 + qy**2) - 1``."""
    return 2.0 * (x * x + y * y) - 1.0
