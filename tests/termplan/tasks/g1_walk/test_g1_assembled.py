"""Assembled (term-plan) G1 path: parity with the NumPy and hand-written paths, plan shape."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_outputs_agree, snapshot
from hot_slices import SliceCache

from termplan.codegen import ScaleMode, generate_source
from termplan.errors import TermPlanError
from termplan.lanes import TILE as LANE_TILE
from termplan.tasks import g1_walk
from termplan.tasks.g1_walk import NoiseConfig, draw_noise, make_batch
from termplan.tasks.g1_walk.assembled import AssembledG1Walk
from termplan.tasks.g1_walk.handwritten_layout import TILE as HAND_TILE
from termplan.tasks.g1_walk.profiles import OWNER_NOISE, OWNER_VARIANTS, get_profile
from termplan.tasks.g1_walk.terms import build_plan

pytestmark = pytest.mark.numba("g1_walk")

NOISE = NoiseConfig(level=1.0, gyro=0.1, gravity=0.05, joint_angle=0.02, joint_vel=0.3)


def _with_nans(batch: g1_walk.G1Batch) -> g1_walk.G1Batch:
    n = batch.num_envs
    batch.linvel[0, 0] = np.nan  # reward terms and critic obs
    batch.gravity[n // 2, 2] = np.nan  # termination (fails closed)
    batch.dof_pos[n - 1, 5] = np.nan  # pose + joint obs
    return batch


@pytest.mark.parametrize("profile", g1_walk.PROFILES)
@pytest.mark.parametrize("mode", [m.value for m in ScaleMode])
@pytest.mark.parametrize("num_envs", [1, 7, 512])
def test_assembled_matches_reference_paths(
    profile: str, mode: str, num_envs: int, hot_slices: SliceCache
) -> None:
    """Both scale modes agree with NumPy and hand-written on log and non-log steps, NaNs too."""
    batch = _with_nans(make_batch(num_envs, seed=num_envs))
    hot = hot_slices.get("g1_walk", profile, num_envs, "assembled", scale_mode=mode)
    for step in (0, 1):
        got = snapshot(hot.compute(batch, step))
        for path in ("numpy", "handwritten"):
            ref = hot_slices.get("g1_walk", profile, num_envs, path).compute(batch, step)
            assert_outputs_agree(ref, got)
        assert bool(got.logs) == (step == 0)


@pytest.mark.parametrize("profile", g1_walk.PROFILES)
def test_plan_numpy_backend_matches(profile: str) -> None:
    """The plan's NumPy fallback agrees with the task's independent NumPy path."""
    batch = _with_nans(make_batch(64, seed=2))
    got = AssembledG1Walk(profile, 64, backend="numpy").compute(batch, 0)
    assert_outputs_agree(g1_walk.build(profile, 64, "numpy").compute(batch, 0), got)


def test_noise_parity() -> None:
    """With noise on, the actor reads ``(x + noise) * mult`` like the reference paths."""
    batch = make_batch(33, seed=4)
    draw_noise(batch, np.random.default_rng(0), NOISE)
    got = snapshot(AssembledG1Walk("sac_default", 33, noise=NOISE).compute(batch, 0))
    assert_outputs_agree(
        g1_walk.build("sac_default", 33, "numpy", noise=NOISE).compute(batch), got
    )


@pytest.mark.parametrize("variant", sorted(OWNER_VARIANTS))
def test_owner_variants_build_on_every_path(variant: str) -> None:
    """Every owner config (with its YAML noise) constructs and agrees on all three paths."""
    noise = OWNER_NOISE.get(variant)
    batch = make_batch(8, seed=1)
    if noise is not None:
        draw_noise(batch, np.random.default_rng(3), noise)
    outs = {
        path: snapshot(g1_walk.build(variant, 8, path, noise=noise).compute(batch, 0))
        for path in g1_walk.PATHS
    }
    assert set(outs) == {"numpy", "handwritten", "assembled"}
    assert_outputs_agree(outs["numpy"], outs["assembled"])


def test_dead_terms_are_absent_from_the_kernel() -> None:
    """sac_default's zero-scale terms (and the inputs only they read) are not in the source."""
    text = generate_source(build_plan(get_profile("sac_default"))).text
    for absent in (
        "r_base_height",
        "r_lin_vel_z",
        "upper_sum",
        "in_feet_air_time",
        "in_left_contact",
    ):
        assert absent not in text
    assert "rew += r_pose * -0.01" in text  # scale * ctrl_dt baked


def test_full_supported_runs_all_22_terms() -> None:
    """The two formerly hand-written-only terms are plan terms: full_supported has 22."""
    plan = build_plan(get_profile("full_supported"))
    assert len([t for t in plan.terms if t.active and t.kind.value == "reward"]) == 22


def test_runtime_scales_curriculum() -> None:
    """Runtime mode follows set_scale every step; baked mode refuses to change weights."""
    batch = make_batch(16, seed=5)
    hot = AssembledG1Walk("sac_default", 16, scale_mode="runtime")
    hot.set_scale("pose", -2.0)
    scales = {**get_profile("sac_default").scales, "pose": -2.0}
    ref = g1_walk.build("sac_default", 16, "numpy", scales=scales).compute(batch, 0)
    assert_outputs_agree(ref, snapshot(hot.compute(batch, 0)))
    with pytest.raises(TermPlanError, match="baked"):
        AssembledG1Walk("sac_default", 16).set_scale("pose", -2.0)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_runtime_scale_set_to_zero_is_an_absent_term(backend: str) -> None:
    """Weight 0 at run time: the term contributes exactly 0 even from a NaN input, and has no
    log, as when it was never in the plan (the NumPy path skips it)."""
    batch = make_batch(8, seed=3)
    batch.dof_pos[0, 3] = np.nan
    hot = AssembledG1Walk("sac_default", 8, scale_mode="runtime", backend=backend)
    hot.set_scale("pose", 0.0)
    scales = {**get_profile("sac_default").scales, "pose": 0.0}
    ref = g1_walk.build("sac_default", 8, "numpy", scales=scales).compute(batch, 0)
    got = snapshot(hot.compute(batch, 0))
    assert np.isfinite(got.reward[0]) and "reward/pose" not in got.logs
    assert_outputs_agree(ref, got)


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("feet_air_time", lambda a: a[:, :1].copy()),
        ("left_contact", lambda a: a.tolist()),
        ("noise_gyro", lambda a: a.astype(np.float64)),
    ],
)
def test_fields_no_active_term_reads_are_still_checked(field: str, change) -> None:  # type: ignore[no-untyped-def]
    """sac_default reads neither air time, contacts nor noise, yet a bad one is refused as
    the other paths refuse it: bad input fails the same way whichever path runs."""
    batch = make_batch(6)
    setattr(batch, field, change(getattr(batch, field)))
    for path in ("numpy", "handwritten", "assembled"):
        with pytest.raises(ValueError, match=f"input '{field}'"):
            g1_walk.build("sac_default", 6, path).compute(batch, 0)


def test_bad_inputs() -> None:
    """A wrong batch type or array is a ValueError naming it; outputs are reused."""
    hot = AssembledG1Walk("ppo_default", 4, num_threads=1)
    with pytest.raises(ValueError, match="G1Batch"):
        hot.compute({"linvel": None}, 0)  # type: ignore[arg-type]
    batch = make_batch(4)
    batch.linvel = batch.linvel.astype(np.float64)
    with pytest.raises(ValueError, match="input 'linvel'"):
        hot.compute(batch, 0)
    good = make_batch(4)
    assert hot.compute(good, 0).obs is hot.compute(good, 1).obs


def test_an_array_changed_in_place_between_calls_is_refused() -> None:
    """The task path validates every batch field before each run (so its runtime re-binds
    the same objects by identity): a dtype or shape changed in place is refused there."""
    hot = AssembledG1Walk("sac_default", 8, num_threads=1)
    assert hot.runtime.caller_checks  # type: ignore[union-attr]
    batch = make_batch(8)
    hot.compute(batch, 0)
    batch.dof_pos.dtype = np.int32  # same object, same bytes, read as integers
    with pytest.raises(ValueError, match="input 'dof_pos'"):
        hot.compute(batch, 0)
    batch.dof_pos.dtype = np.float32
    batch.linvel.shape = (24,)
    with pytest.raises(ValueError, match="input 'linvel'"):
        hot.compute(batch, 0)


def test_one_parfor() -> None:
    """The parallel kernel is a single parfor (all work of an env in one loop)."""
    hot = AssembledG1Walk("full_supported", 64, num_threads=2)
    assert hot.runtime.parfor_count("step_parallel") == 1


@pytest.mark.parametrize("num_threads", [1, 2])
def test_tile_boundaries(num_threads: int) -> None:
    """More envs than one tile, the last tile partial: every path agrees on every row (the
    hand-written kernel and the generated one both work tile by tile), logs included."""
    n = max(HAND_TILE, LANE_TILE) + 37
    batch = _with_nans(make_batch(n, seed=9))
    hot = AssembledG1Walk("full_supported", n, num_threads=num_threads)
    hand = g1_walk.build("full_supported", n, "handwritten", num_threads=num_threads)
    ref = g1_walk.build("full_supported", n, "numpy")
    for step in (0, 1):
        want = snapshot(ref.compute(batch, step))
        assert_outputs_agree(want, snapshot(hot.compute(batch, step)))
        assert_outputs_agree(want, snapshot(hand.compute(batch, step)))
