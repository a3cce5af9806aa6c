"""The per-step input batch of the motion-tracking hot slice, and its synthetic generator.

A :class:`MotionBatch` holds, for N envs, the reference-motion frame (``body_*_w``,
``joint_*``), the robot state (``robot_body_*_w``, ``linvel``, ``gyro``, ``dof_*``), the
actions, an optional default-joint bias, and the actor-noise arrays the owner draws before the
hot slice runs (:func:`draw_noise`). Every array is float32 and C-contiguous.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields

import numpy as np

from termplan.arrays import Layout, check_count, check_fields, row_layouts
from termplan.tasks.motion_tracking.config import (
    ANCHOR,
    NUM_BODIES,
    NUM_DOF,
    UNDESIRED_INDICES,
    NoiseConfig,
)
from termplan.tasks.motion_tracking.profiles import Profile, resolve_profile

B, J = NUM_BODIES, NUM_DOF

#: Trailing shape (after N) of every batch field.
FIELD_SHAPES: dict[str, tuple[int, ...]] = {
    "body_pos_w": (B, 3),
    "body_quat_w": (B, 4),
    "body_lin_vel_w": (B, 3),
    "body_ang_vel_w": (B, 3),
    "joint_pos": (J,),
    "joint_vel": (J,),
    "robot_body_pos_w": (B, 3),
    "robot_body_quat_w": (B, 4),
    "robot_body_lin_vel_w": (B, 3),
    "robot_body_ang_vel_w": (B, 3),
    "linvel": (3,),
    "gyro": (3,),
    "dof_pos": (J,),
    "dof_vel": (J,),
    "current_actions": (J,),
    "last_actions": (J,),
    "default_dof_pos_bias": (J,),
    "noise_linvel": (3,),
    "noise_gyro": (3,),
    "noise_joint_pos": (J,),
    "noise_dof_vel": (J,),
}


@dataclass
class MotionBatch:
    """Inputs of one hot-slice step for N envs (all float32, C-contiguous).

    Reference motion: ``body_pos_w``/``body_quat_w`` (wxyz)/``body_lin_vel_w``/
    ``body_ang_vel_w`` (N, 14, .), ``joint_pos``/``joint_vel`` (N, 29). Robot:
    ``robot_body_*_w`` likewise, base ``linvel``/``gyro`` (N, 3), ``dof_pos``/``dof_vel``
    (N, 29). ``current_actions``/``last_actions`` (N, 29). ``default_dof_pos_bias`` (N, 29) is
    added to the default joint angles (zeros when unused). ``noise_*`` are added to the actor
    observations when the path's noise level is > 0.
    """

    body_pos_w: np.ndarray
    body_quat_w: np.ndarray
    body_lin_vel_w: np.ndarray
    body_ang_vel_w: np.ndarray
    joint_pos: np.ndarray
    joint_vel: np.ndarray
    robot_body_pos_w: np.ndarray
    robot_body_quat_w: np.ndarray
    robot_body_lin_vel_w: np.ndarray
    robot_body_ang_vel_w: np.ndarray
    linvel: np.ndarray
    gyro: np.ndarray
    dof_pos: np.ndarray
    dof_vel: np.ndarray
    current_actions: np.ndarray
    last_actions: np.ndarray
    default_dof_pos_bias: np.ndarray
    noise_linvel: np.ndarray
    noise_gyro: np.ndarray
    noise_joint_pos: np.ndarray
    noise_dof_vel: np.ndarray

    @property
    def num_envs(self) -> int:
        """N, the leading dimension of every array."""
        return int(self.dof_pos.shape[0])


def validate(batch: object, num_envs: int) -> MotionBatch:
    """Check every field's type, shape ``(num_envs, ...)``, dtype float32 and contiguity.

    Raises
    ------
    ValueError
        Naming the first bad input, what it is and what was expected.
    """
    if not isinstance(batch, MotionBatch):
        raise ValueError(f"batch: expected a MotionBatch, got {type(batch).__name__}")
    check_fields(batch, _layouts(num_envs))
    return batch


@functools.lru_cache(maxsize=64)
def _layouts(num_envs: int) -> tuple[Layout, ...]:
    specs = {f.name: (FIELD_SHAPES[f.name], np.float32) for f in fields(MotionBatch)}
    return row_layouts(specs, num_envs)


def _f32(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float32)


def _unit(q: np.ndarray) -> np.ndarray:
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _uniform(
    rng: np.random.Generator, low: float, high: float, shape: tuple[int, ...]
) -> np.ndarray:
    """``rng.uniform(low, high, shape)`` drawn in place: the same draws, values and stream
    position, without the temporaries (first-touched memory is most of a large batch's cost)."""
    out = rng.random(shape)
    out *= high - low
    out += low
    return out


def _targets(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    return {
        "pos": _uniform(rng, -1.0, 1.0, (n, B, 3)),
        "quat": _unit(rng.standard_normal((n, B, 4))),
        "lin": _uniform(rng, -2.0, 2.0, (n, B, 3)),
        "ang": _uniform(rng, -3.0, 3.0, (n, B, 3)),
        "jpos": _uniform(rng, -1.0, 1.0, (n, J)),
        "jvel": _uniform(rng, -2.0, 2.0, (n, J)),
    }


def _around(
    rng: np.random.Generator, t: dict[str, np.ndarray], sigmas: tuple[float, ...]
) -> list[np.ndarray]:
    """Target + Gaussian noise per field (quaternions renormalised), as float32.

    ``t + rng.normal(0, sigma)`` computed in one reused buffer per shape: the same draws and
    values (``sigma * z + t`` in float64, then rounded once to float32).
    """
    out = []
    buffers: dict[tuple[int, ...], np.ndarray] = {}
    for key, sigma in zip(("pos", "quat", "lin", "ang", "jpos", "jvel"), sigmas, strict=True):
        value = buffers.get(t[key].shape)
        if value is None:
            value = buffers[t[key].shape] = np.empty(t[key].shape)
        rng.standard_normal(out=value)
        value *= sigma
        value += t[key]
        out.append(_f32(_unit(value) if key == "quat" else value))
    return out


def make_batch(num_envs: int, seed: int = 0, profile: str | Profile | None = None) -> MotionBatch:
    """The deterministic synthetic batch of the upstream benchmark (§6.1).

    Reference and robot are the same random targets plus independent noise (motion: pos 0.04,
    quat 0.02, vel 0.1, joint pos 0.03, joint vel 0.05; robot: pos 0.06, quat 0.03, vel 0.1,
    dof pos 0.05, dof vel 0.1). Then the anchor of the first ``max(1, int(0.02 N))`` rows is
    lifted by 0.6 m (they terminate), and, when the profile scores undesired contacts, the
    pelvis of the first half of those rows is put on the floor. Noise and bias are zeros.
    """
    num_envs = check_count("num_envs", num_envs)
    prof = resolve_profile(profile)
    rng = np.random.default_rng(seed)
    target = _targets(rng, num_envs)
    m_pos, m_quat, m_lin, m_ang, m_jpos, m_jvel = _around(
        rng, target, (0.04, 0.02, 0.1, 0.1, 0.03, 0.05)
    )
    r_pos, r_quat, r_lin, r_ang, dof_pos, dof_vel = _around(
        rng, target, (0.06, 0.03, 0.1, 0.1, 0.05, 0.1)
    )
    linvel = _f32(_uniform(rng, -1.0, 1.0, (num_envs, 3)))
    gyro = _f32(_uniform(rng, -1.0, 1.0, (num_envs, 3)))
    current = _uniform(rng, -1.0, 1.0, (num_envs, J))
    last = rng.standard_normal((num_envs, J))
    last *= 0.1
    last += current
    term_count = max(1, int(0.02 * num_envs))
    r_pos[:term_count, ANCHOR, 2] += np.float32(0.6)
    if prof.scales.get("undesired_contacts", 0.0) != 0.0:
        r_pos[: max(1, term_count // 2), UNDESIRED_INDICES[0], 2] = 0.0
    zeros_j = np.zeros((num_envs, J), dtype=np.float32)
    return MotionBatch(
        body_pos_w=m_pos,
        body_quat_w=m_quat,
        body_lin_vel_w=m_lin,
        body_ang_vel_w=m_ang,
        joint_pos=m_jpos,
        joint_vel=m_jvel,
        robot_body_pos_w=r_pos,
        robot_body_quat_w=r_quat,
        robot_body_lin_vel_w=r_lin,
        robot_body_ang_vel_w=r_ang,
        linvel=linvel,
        gyro=gyro,
        dof_pos=dof_pos,
        dof_vel=dof_vel,
        current_actions=_f32(current),
        last_actions=_f32(last),
        default_dof_pos_bias=zeros_j,
        noise_linvel=np.zeros((num_envs, 3), dtype=np.float32),
        noise_gyro=np.zeros((num_envs, 3), dtype=np.float32),
        noise_joint_pos=zeros_j.copy(),
        noise_dof_vel=zeros_j.copy(),
    )


def draw_noise(batch: MotionBatch, rng: np.random.Generator, noise: NoiseConfig) -> None:
    """Fill the batch's noise arrays in place with ``U(-1, 1) * level * scale`` (float32).

    This is the owner's job, outside the timed hot slice (upstream draws it in Python before
    the kernel runs). At level 0 the arrays are zeroed.
    """
    pairs = (
        (batch.noise_linvel, noise.linvel),
        (batch.noise_gyro, noise.gyro),
        (batch.noise_joint_pos, noise.joint_angle),
        (batch.noise_dof_vel, noise.joint_vel),
    )
    for array, scale in pairs:
        array[...] = rng.uniform(-1.0, 1.0, array.shape) * (noise.level * scale)
