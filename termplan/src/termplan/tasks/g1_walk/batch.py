"""The inputs of one G1 walk step (:class:`G1Batch`), their synthetic generator and checks.

:func:`make_batch` draws the upstream benchmark's deterministic distributions (seeded
``numpy.random.default_rng``, float32). :func:`draw_noise` is the owner's noise draw: both
paths read the same noise arrays, so their outputs stay comparable with noise on.
:func:`validate` is what every path runs before touching memory.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields

import numpy as np

from termplan.arrays import Layout, check_count, check_fields, row_layouts
from termplan.tasks.g1_walk.config import NUM_DOF, NoiseConfig

F32 = np.float32


@dataclass
class G1Batch:
    """Every input of one hot-slice step, one row per env (float32 unless noted).

    Contacts are aggregated per foot (any of its 4 sensors > 0.5), bool. The ``noise_*``
    arrays hold the additive actor-observation noise (zeros at noise level 0).
    """

    linvel: np.ndarray  # (N, 3) local linear velocity
    gyro: np.ndarray  # (N, 3)
    gravity: np.ndarray  # (N, 3) "upvector": upright is (0, 0, +1)
    dof_pos: np.ndarray  # (N, 29)
    dof_vel: np.ndarray  # (N, 29)
    current_actions: np.ndarray  # (N, 29)
    last_actions: np.ndarray  # (N, 29)
    commands: np.ndarray  # (N, 3) [vx, vy, wz]
    gait_phase: np.ndarray  # (N, 2) radians, >= 0
    base_height: np.ndarray  # (N,)
    left_foot_pos: np.ndarray  # (N, 3)
    right_foot_pos: np.ndarray  # (N, 3)
    left_foot_quat: np.ndarray  # (N, 4) wxyz
    right_foot_quat: np.ndarray  # (N, 4) wxyz
    left_contact: np.ndarray  # (N,) bool
    right_contact: np.ndarray  # (N,) bool
    feet_air_time: np.ndarray  # (N, 2)
    noise_gyro: np.ndarray  # (N, 3)
    noise_gravity: np.ndarray  # (N, 3)
    noise_dof_pos: np.ndarray  # (N, 29)
    noise_dof_vel: np.ndarray  # (N, 29)

    @property
    def num_envs(self) -> int:
        """Rows in the batch (from ``base_height``)."""
        return int(self.base_height.shape[0])


#: Per-row shape and dtype of every field, in declaration order.
FIELD_SPECS: dict[str, tuple[tuple[int, ...], type]] = {
    "linvel": ((3,), np.float32),
    "gyro": ((3,), np.float32),
    "gravity": ((3,), np.float32),
    "dof_pos": ((NUM_DOF,), np.float32),
    "dof_vel": ((NUM_DOF,), np.float32),
    "current_actions": ((NUM_DOF,), np.float32),
    "last_actions": ((NUM_DOF,), np.float32),
    "commands": ((3,), np.float32),
    "gait_phase": ((2,), np.float32),
    "base_height": ((), np.float32),
    "left_foot_pos": ((3,), np.float32),
    "right_foot_pos": ((3,), np.float32),
    "left_foot_quat": ((4,), np.float32),
    "right_foot_quat": ((4,), np.float32),
    "left_contact": ((), np.bool_),
    "right_contact": ((), np.bool_),
    "feet_air_time": ((2,), np.float32),
    "noise_gyro": ((3,), np.float32),
    "noise_gravity": ((3,), np.float32),
    "noise_dof_pos": ((NUM_DOF,), np.float32),
    "noise_dof_vel": ((NUM_DOF,), np.float32),
}
assert tuple(FIELD_SPECS) == tuple(f.name for f in fields(G1Batch))


@functools.lru_cache(maxsize=64)
def _layouts(num_envs: int) -> tuple[Layout, ...]:
    return row_layouts(FIELD_SPECS, num_envs)


def validate(batch: G1Batch, num_envs: int) -> G1Batch:
    """Check every field's shape, dtype and C-contiguity; a ValueError names the bad input."""
    if not isinstance(batch, G1Batch):
        raise ValueError(f"batch: expected a G1Batch, got {type(batch).__name__}")
    check_fields(batch, _layouts(num_envs))
    return batch


def _normal(
    rng: np.random.Generator, mean: tuple[float, ...], std: tuple[float, ...], n: int
) -> np.ndarray:
    return rng.normal(mean, std, size=(n, len(mean))).astype(F32)


def _foot(rng: np.random.Generator, x: float, y_mean: float, n: int) -> np.ndarray:
    pos = np.empty((n, 3), dtype=F32)
    pos[:, 0] = x
    pos[:, 1] = rng.normal(y_mean, 0.01, size=n)
    pos[:, 2] = rng.uniform(0.0, 0.1, size=n)
    return pos


def _quat(w: float, x: float, y: float, z: float, n: int) -> np.ndarray:
    return np.tile(np.array([w, x, y, z], dtype=F32), (n, 1))


def make_batch(num_envs: int, seed: int = 0, profile: str | None = None) -> G1Batch:
    """The upstream benchmark's synthetic batch (seeded; the same for every profile).

    ``profile`` is accepted for the registry API; the distributions do not depend on it.
    """
    n = check_count("num_envs", num_envs)
    rng = np.random.default_rng(seed)
    gravity = _normal(rng, (0.0, 0.0, 0.98), (0.02, 0.02, 0.01), n)
    np.clip(gravity[:, 2], -1.0, 1.0, out=gravity[:, 2])
    state = {
        "linvel": _normal(rng, (0.8, 0.0, 0.0), (0.25, 0.08, 0.08), n),
        "gyro": _normal(rng, (0.0, 0.0, 0.1), (0.08, 0.08, 0.15), n),
        "gravity": gravity,
        "dof_pos": rng.normal(0.0, 0.03, size=(n, NUM_DOF)).astype(F32),
        "dof_vel": rng.normal(0.0, 0.2, size=(n, NUM_DOF)).astype(F32),
    }
    actions = rng.normal(0.0, 0.2, size=(n, NUM_DOF)).astype(F32)
    last = (actions + rng.normal(0.0, 0.05, size=(n, NUM_DOF))).astype(F32)
    commands = _normal(rng, (0.8, 0.0, 0.1), (0.2, 0.05, 0.1), n)
    np.maximum(commands[:, 0], 0.05, out=commands[:, 0])
    gait_phase = rng.uniform(0.0, 2.0 * np.pi, size=(n, 2)).astype(F32)
    air_time = rng.uniform(0.0, 0.8, size=(n, 2)).astype(F32)
    base_height = (0.754 + rng.normal(0.0, 0.015, size=n)).astype(F32)
    left, right = _foot(rng, -0.1, -0.06, n), _foot(rng, 0.1, 0.06, n)
    sensors = rng.random((8, n)) > 0.45
    return G1Batch(
        **state,
        current_actions=actions,
        last_actions=last,
        commands=commands,
        gait_phase=gait_phase,
        base_height=base_height,
        left_foot_pos=left,
        right_foot_pos=right,
        left_foot_quat=_quat(1.0, 0.01, 0.02, 0.0, n),
        right_foot_quat=_quat(1.0, 0.02, 0.01, 0.0, n),
        left_contact=np.ascontiguousarray(sensors[:4].any(axis=0)),
        right_contact=np.ascontiguousarray(sensors[4:].any(axis=0)),
        feet_air_time=air_time,
        noise_gyro=np.zeros((n, 3), dtype=F32),
        noise_gravity=np.zeros((n, 3), dtype=F32),
        noise_dof_pos=np.zeros((n, NUM_DOF), dtype=F32),
        noise_dof_vel=np.zeros((n, NUM_DOF), dtype=F32),
    )


#: Noise array -> the NoiseConfig scale it uses.
NOISE_FIELDS: dict[str, str] = {
    "noise_gyro": "gyro",
    "noise_gravity": "gravity",
    "noise_dof_pos": "joint_angle",
    "noise_dof_vel": "joint_vel",
}


def draw_noise(batch: G1Batch, rng: np.random.Generator, noise: NoiseConfig) -> None:
    """Fill the batch's noise arrays in place with ``U(-1, 1) * level * scale`` (float32).

    At level 0 the arrays are zeroed and nothing is drawn. With level > 0 every array is
    drawn even when its scale is 0 (as upstream), so the RNG stream does not depend on scales.
    """
    for name, scale_name in NOISE_FIELDS.items():
        out = getattr(batch, name)
        if noise.level == 0:
            out.fill(0.0)
            continue
        draw = rng.uniform(-1.0, 1.0, size=out.shape).astype(F32)
        np.multiply(draw, F32(noise.level * getattr(noise, scale_name)), out=out)
