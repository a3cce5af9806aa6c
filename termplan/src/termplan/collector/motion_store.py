"""A small reference-motion store: clips on disk (NPZ), concatenated frames in memory.

File format: one ``.npz`` per clip with the upstream ``MotionLoader`` keys ``fps`` (scalar),
``joint_pos``/``joint_vel`` (F, 29), ``body_pos_w``/``body_lin_vel_w``/``body_ang_vel_w``
(F, 14, 3) and ``body_quat_w`` (F, 14, 4, unit wxyz), already restricted to the 14 tracked
bodies. :class:`MotionStore` concatenates clips along frames and gathers one frame per env
into preallocated buffers with ``np.take(..., out=...)``, as the env does every step.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from termplan.tasks.motion_tracking.config import ANCHOR, NUM_BODIES, NUM_DOF

#: Per-frame array keys and their trailing shapes.
FRAME_KEYS: dict[str, tuple[int, ...]] = {
    "joint_pos": (NUM_DOF,),
    "joint_vel": (NUM_DOF,),
    "body_pos_w": (NUM_BODIES, 3),
    "body_quat_w": (NUM_BODIES, 4),
    "body_lin_vel_w": (NUM_BODIES, 3),
    "body_ang_vel_w": (NUM_BODIES, 3),
}
#: Largest accepted deviation of a quaternion norm from 1.
QUAT_NORM_TOL = 1e-3


@dataclass(frozen=True)
class MotionClip:
    """F frames of reference motion (float32 arrays) played at ``fps``."""

    fps: float
    joint_pos: np.ndarray
    joint_vel: np.ndarray
    body_pos_w: np.ndarray
    body_quat_w: np.ndarray
    body_lin_vel_w: np.ndarray
    body_ang_vel_w: np.ndarray

    @property
    def num_frames(self) -> int:
        """F."""
        return int(self.joint_pos.shape[0])


def check_clip(arrays: dict[str, np.ndarray], fps: float) -> MotionClip:
    """Validate raw arrays and build a float32 :class:`MotionClip`.

    Raises
    ------
    ValueError
        Naming the key: missing, wrong shape, non-finite, inconsistent frame count, a
        non-positive ``fps``, or a quaternion whose norm is not 1 within ``QUAT_NORM_TOL``.
    """
    if not (np.isfinite(fps) and fps > 0):
        raise ValueError(f"motion key 'fps': expected a positive finite scalar, got {fps}")
    frames: int | None = None
    clean: dict[str, np.ndarray] = {}
    for key, tail in FRAME_KEYS.items():
        if key not in arrays:
            raise ValueError(f"motion key {key!r}: missing (expected shape (F, *{tail}))")
        value = np.asarray(arrays[key])
        if value.ndim != 1 + len(tail) or value.shape[1:] != tail or value.shape[0] < 1:
            raise ValueError(f"motion key {key!r}: expected shape (F, *{tail}), got {value.shape}")
        if frames is not None and value.shape[0] != frames:
            raise ValueError(f"motion key {key!r}: has {value.shape[0]} frames, expected {frames}")
        frames = value.shape[0]
        if not np.all(np.isfinite(value)):
            raise ValueError(f"motion key {key!r}: contains NaN or inf")
        clean[key] = np.ascontiguousarray(value, dtype=np.float32)
    norms = np.linalg.norm(clean["body_quat_w"].astype(np.float64), axis=-1)
    worst = float(np.max(np.abs(norms - 1.0)))
    if worst > QUAT_NORM_TOL:
        raise ValueError(
            f"motion key 'body_quat_w': quaternion norms deviate from 1 by {worst:.3g}"
        )
    return MotionClip(fps=float(fps), **clean)


def save_npz(path: str | os.PathLike[str], clip: MotionClip) -> None:
    """Write ``clip`` atomically: a temp file in the same directory, then ``os.replace``."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(
                handle,
                fps=np.float64(clip.fps),
                **{key: getattr(clip, key) for key in FRAME_KEYS},
            )
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_npz(path: str | os.PathLike[str]) -> MotionClip:
    """Read and validate a clip (see :func:`check_clip` for the errors)."""
    with np.load(path, allow_pickle=False) as data:
        if "fps" not in data.files:
            raise ValueError("motion key 'fps': missing (expected a scalar)")
        fps_arr = data["fps"]
        if fps_arr.size != 1:
            raise ValueError(f"motion key 'fps': expected a scalar, got shape {fps_arr.shape}")
        arrays = {key: data[key] for key in FRAME_KEYS if key in data.files}
    return check_clip(arrays, float(fps_arr.reshape(())))


class MotionStore:
    """Clips concatenated along frames, with per-clip offsets and lengths (int32)."""

    def __init__(self, clips: list[MotionClip]) -> None:
        if not clips:
            raise ValueError("clips: expected at least one MotionClip, got none")
        self.clip_lengths = np.array([c.num_frames for c in clips], dtype=np.int32)
        self.clip_offsets = np.concatenate([[0], np.cumsum(self.clip_lengths)[:-1]]).astype(
            np.int32
        )
        self.fps = np.array([c.fps for c in clips])
        self.frames = {key: np.concatenate([getattr(c, key) for c in clips]) for key in FRAME_KEYS}

    @property
    def num_frames(self) -> int:
        """Total frames over all clips."""
        return int(self.clip_lengths.sum())

    def allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        """Zeroed float32 buffers of shape (num_envs, *tail) for :meth:`gather`."""
        return {k: np.zeros((num_envs, *t), dtype=np.float32) for k, t in FRAME_KEYS.items()}

    def gather(self, frame_idx: np.ndarray, out: dict[str, np.ndarray]) -> None:
        """Copy global frame ``frame_idx[i]`` into row i of every buffer in ``out``, in place.

        Raises
        ------
        ValueError
            If ``frame_idx`` is not a 1-D integer array within ``[0, num_frames)``, or a buffer
            is missing or has the wrong shape or dtype.
        """
        idx = np.asarray(frame_idx)
        if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError(
                f"frame_idx: expected a 1-D integer array, got {idx.dtype} {idx.shape}"
            )
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_frames):
            raise ValueError(f"frame_idx: expected values in [0, {self.num_frames})")
        for key, tail in FRAME_KEYS.items():
            buf = out.get(key)
            want = (idx.shape[0], *tail)
            if not isinstance(buf, np.ndarray) or buf.shape != want or buf.dtype != np.float32:
                got = "missing" if buf is None else f"{getattr(buf, 'shape', '?')}"
                raise ValueError(f"out[{key!r}]: expected float32 {want}, got {got}")
            np.take(self.frames[key], idx, axis=0, out=buf, mode="clip")  # idx checked above


def _yaw_quat(angle: np.ndarray) -> np.ndarray:
    half = 0.5 * angle
    return np.stack([np.cos(half), np.zeros_like(half), np.zeros_like(half), np.sin(half)], -1)


def make_procedural_clip(frames: int, seed: int = 0, fps: float = 50.0) -> MotionClip:
    """A smooth synthetic clip with exactly consistent kinematics.

    Joints follow sums of sinusoids (``joint_vel`` is their exact derivative). Bodies sit at
    fixed offsets around a base that walks forward while turning slowly; every body shares
    the base's yaw ``psi(t)`` (a rigid turning body), so quaternions are unit yaw rotations,
    angular velocity is ``(0, 0, psi')`` and linear velocity is the exact time derivative of
    the positions.
    """
    if frames < 2:
        raise ValueError(f"frames: expected >= 2, got {frames}")
    rng = np.random.default_rng(seed)
    t = np.arange(frames) / fps
    amp = rng.uniform(0.1, 0.4, (1, NUM_DOF))
    freq = rng.uniform(0.5, 1.5, (1, NUM_DOF)) * 2 * np.pi
    phase = rng.uniform(0, 2 * np.pi, (1, NUM_DOF))
    joint_pos = amp * np.sin(freq * t[:, None] + phase)
    joint_vel = amp * freq * np.cos(freq * t[:, None] + phase)
    speed, turn = 0.5, 0.2
    psi, dpsi = turn * t, np.full(frames, turn)
    base = np.stack([speed * t, np.zeros(frames), np.full(frames, 0.8)], -1)
    offsets = rng.uniform(-0.3, 0.3, (NUM_BODIES, 3))
    offsets[ANCHOR] = (0.0, 0.0, 0.3)
    c, s = np.cos(psi)[:, None], np.sin(psi)[:, None]
    rx = c * offsets[None, :, 0] - s * offsets[None, :, 1]
    ry = s * offsets[None, :, 0] + c * offsets[None, :, 1]
    body_pos = np.stack([rx, ry, np.broadcast_to(offsets[:, 2], rx.shape)], -1) + base[:, None]
    body_lin = np.stack([-dpsi[:, None] * ry + speed, dpsi[:, None] * rx, 0 * rx], -1)
    body_quat = np.broadcast_to(_yaw_quat(psi)[:, None], (frames, NUM_BODIES, 4))
    body_ang = np.zeros((frames, NUM_BODIES, 3))
    body_ang[..., 2] = dpsi[:, None]
    arrays = {
        "joint_pos": joint_pos,
        "joint_vel": joint_vel,
        "body_pos_w": body_pos,
        "body_quat_w": body_quat,
        "body_lin_vel_w": body_lin,
        "body_ang_vel_w": body_ang,
    }
    return check_clip(arrays, fps)
