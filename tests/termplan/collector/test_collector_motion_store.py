"""Reference-motion store: NPZ round trip, validation errors, in-place gather, procedural clip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from termplan.collector.motion_store import (
    FRAME_KEYS,
    MotionStore,
    load_npz,
    make_procedural_clip,
    save_npz,
)


def _raw(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def test_round_trip(tmp_path: Path) -> None:
    clip = make_procedural_clip(40, seed=1)
    save_npz(tmp_path / "clip.npz", clip)
    back = load_npz(tmp_path / "clip.npz")
    assert back.fps == clip.fps
    for key in FRAME_KEYS:
        np.testing.assert_array_equal(getattr(back, key), getattr(clip, key))
    assert sorted(_raw(tmp_path / "clip.npz")) == sorted(["fps", *FRAME_KEYS])
    assert [p.name for p in tmp_path.iterdir()] == ["clip.npz"]  # no temp file left


@pytest.mark.parametrize("key", ["fps", *FRAME_KEYS])
def test_missing_key_names_it(tmp_path: Path, key: str) -> None:
    save_npz(tmp_path / "c.npz", make_procedural_clip(10))
    raw = _raw(tmp_path / "c.npz")
    del raw[key]
    np.savez(tmp_path / "bad.npz", **raw)
    with pytest.raises(ValueError, match=f"'{key}': missing"):
        load_npz(tmp_path / "bad.npz")


@pytest.mark.parametrize("key", sorted(FRAME_KEYS))
def test_wrong_shape_names_key(tmp_path: Path, key: str) -> None:
    save_npz(tmp_path / "c.npz", make_procedural_clip(10))
    raw = _raw(tmp_path / "c.npz")
    raw[key] = raw[key][..., :-1]
    np.savez(tmp_path / "bad.npz", **raw)
    with pytest.raises(ValueError, match=f"'{key}': expected shape"):
        load_npz(tmp_path / "bad.npz")


def test_frame_count_mismatch_names_key(tmp_path: Path) -> None:
    save_npz(tmp_path / "c.npz", make_procedural_clip(10))
    raw = _raw(tmp_path / "c.npz")
    raw["body_ang_vel_w"] = raw["body_ang_vel_w"][:-1]
    np.savez(tmp_path / "bad.npz", **raw)
    with pytest.raises(ValueError, match="'body_ang_vel_w': has 9 frames"):
        load_npz(tmp_path / "bad.npz")


def test_non_unit_quaternion_names_key(tmp_path: Path) -> None:
    save_npz(tmp_path / "c.npz", make_procedural_clip(10))
    raw = _raw(tmp_path / "c.npz")
    raw["body_quat_w"][3, 5] *= 1.5
    np.savez(tmp_path / "bad.npz", **raw)
    with pytest.raises(ValueError, match="'body_quat_w': quaternion norms"):
        load_npz(tmp_path / "bad.npz")


def test_gather_writes_in_place() -> None:
    clips = [make_procedural_clip(30, seed=0), make_procedural_clip(20, seed=1)]
    store = MotionStore(clips)
    np.testing.assert_array_equal(store.clip_offsets, [0, 30])
    np.testing.assert_array_equal(store.clip_lengths, [30, 20])
    out = store.allocate(5)
    before = {k: id(v) for k, v in out.items()}
    idx = np.array([0, 29, 30, 49, 7])
    store.gather(idx, out)
    assert {k: id(v) for k, v in out.items()} == before
    np.testing.assert_array_equal(out["body_pos_w"][2], clips[1].body_pos_w[0])
    np.testing.assert_array_equal(out["joint_vel"][3], clips[1].joint_vel[19])
    np.testing.assert_array_equal(out["body_quat_w"][4], clips[0].body_quat_w[7])


def test_gather_rejects_bad_input() -> None:
    store = MotionStore([make_procedural_clip(10)])
    out = store.allocate(2)
    with pytest.raises(ValueError, match="frame_idx"):
        store.gather(np.array([0, 10]), out)
    out["joint_pos"] = np.zeros((2, 29), np.float64)
    with pytest.raises(ValueError, match="out\\['joint_pos'\\]"):
        store.gather(np.array([0, 1]), out)


def test_procedural_clip_is_consistent() -> None:
    clip = make_procedural_clip(200, seed=2, fps=100.0)
    dt = 1.0 / clip.fps
    norms = np.linalg.norm(clip.body_quat_w, axis=-1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-6)
    vel = np.gradient(clip.body_pos_w.astype(np.float64), dt, axis=0)
    np.testing.assert_allclose(vel[1:-1], clip.body_lin_vel_w[1:-1], atol=2e-3)
    jvel = np.gradient(clip.joint_pos.astype(np.float64), dt, axis=0)
    np.testing.assert_allclose(jvel[1:-1], clip.joint_vel[1:-1], atol=2e-2)
