"""Edge inputs: exact gravity +-1, zero command, everything terminating, NaN in the state.

The documented rules (the ``g1_walk`` package docstring): NaN gravity z or base height
terminates the row; other NaN propagates into that row's reward/obs where a formula reads it;
a term with scale 0 never contributes, even when its value would be NaN. Both paths must agree
on all of it.
"""

from __future__ import annotations

import numpy as np
import pytest

from termplan.tasks.g1_walk import make_batch

pytestmark = pytest.mark.numba("g1_walk")

NAN = np.float32(np.nan)


def test_gravity_exactly_plus_and_minus_one(run_paths, agree) -> None:
    batch = make_batch(4, seed=1)
    batch.gravity[:, 2] = [1.0, -1.0, np.nextafter(np.float32(1), np.float32(2)), -1.5]
    outs = run_paths("sac_default", batch)
    agree(outs["numpy"], outs["handwritten"])
    # upright (and slightly above 1, clipped) stays; upside down and below -1 terminate
    np.testing.assert_array_equal(outs["numpy"].terminated, [False, True, False, True])


def test_zero_forward_command(run_paths, agree) -> None:
    batch = make_batch(8, seed=2)
    batch.commands[:, 0] = 0.0
    outs = run_paths("full_supported", batch, step=0)
    agree(outs["numpy"], outs["handwritten"])
    assert np.isfinite(outs["numpy"].reward).all()
    assert outs["numpy"].logs["reward/feet_double_stance"] == 0.0
    assert outs["numpy"].logs["reward/under_speed"] == 0.0


def test_all_envs_terminate(run_paths, agree) -> None:
    batch = make_batch(32, seed=3)
    batch.base_height[:16] = 0.1  # below min_base_height
    batch.gravity[16:] = [0.9, 0.0, 0.1]  # about 84 degrees of tilt
    outs = run_paths("ppo_default", batch)
    agree(outs["numpy"], outs["handwritten"])
    assert outs["numpy"].terminated.all()


@pytest.mark.parametrize("field", ["gravity", "base_height"])
def test_nan_in_termination_inputs_terminates(field, run_paths, agree) -> None:
    batch = make_batch(6, seed=4)
    if field == "gravity":
        batch.gravity[2, 2] = NAN
    else:
        batch.base_height[2] = NAN
    outs = run_paths("sac_default", batch)
    agree(outs["numpy"], outs["handwritten"])
    np.testing.assert_array_equal(outs["handwritten"].terminated, [0, 0, 1, 0, 0, 0])


def test_nan_in_inactive_term_input_does_not_reach_reward(run_paths, agree) -> None:
    # sac_default has no base_height term: the row terminates but its reward stays finite.
    batch = make_batch(5, seed=5)
    batch.base_height[1] = NAN
    outs = run_paths("sac_default", batch)
    agree(outs["numpy"], outs["handwritten"])
    assert np.isfinite(outs["handwritten"].reward).all()
    assert all(np.isfinite(v) for v in outs["handwritten"].logs.values())


def test_nan_in_active_term_input_propagates(run_paths, agree) -> None:
    batch = make_batch(5, seed=6)
    batch.linvel[3, 0] = NAN
    batch.dof_pos[1, 7] = NAN
    outs = run_paths("sac_default", batch)
    agree(outs["numpy"], outs["handwritten"])
    for out in outs.values():
        assert np.isnan(out.reward[[1, 3]]).all()
        assert np.isfinite(out.reward[[0, 2, 4]]).all()
        assert np.isnan(out.critic[3, 98])  # linvel x
        assert np.isnan(out.obs[1, 6 + 7]) and np.isnan(out.critic[1, 6 + 7])
        assert np.isnan(out.logs["reward/tracking_lin_vel"])
        assert np.isfinite(out.logs["reward/alive"])
        assert not out.terminated.any()


def test_nan_in_foot_state_agrees(run_paths, agree) -> None:
    batch = make_batch(4, seed=7)
    batch.left_foot_pos[0, 0] = NAN  # close-feet distance: comparison false -> penalty 0
    batch.right_foot_pos[1, 2] = NAN  # swing-height tracking -> NaN
    batch.gait_phase[2, 0] = NAN
    outs = run_paths("full_supported", batch)
    agree(outs["numpy"], outs["handwritten"])
    assert np.isfinite(outs["numpy"].reward[0]) and np.isfinite(outs["numpy"].reward[3])
    assert np.isnan(outs["numpy"].reward[1]) and np.isnan(outs["numpy"].reward[2])


def test_gravity_exactly_at_the_tilt_limit_agrees_in_every_path() -> None:
    """60 degrees and g_z = 0.5: NumPy's arccos(0.5) is an ulp below libm's acos, so the
    NumPy paths kept the row and the kernels terminated it. Every path now compares g_z
    with one float64 cos(max_tilt_rad), and the rows around the limit agree too."""
    from dataclasses import replace

    from termplan.tasks import g1_walk
    from termplan.tasks.g1_walk.profiles import Profile, resolve_profile

    sac = resolve_profile("sac_default")
    profile = Profile(sac.name, sac.scales, replace(sac.reward, max_tilt_deg=60.0))
    batch = make_batch(5, seed=4)
    half = np.float32(0.5)
    batch.gravity[:, 2] = [half, np.nextafter(half, np.float32(1)), 0.49999997, 0.5, 1.0]
    got = {}
    for path, options in [
        ("numpy", {}),
        ("handwritten", {}),
        ("assembled", {}),
        ("assembled", {"backend": "numpy"}),
    ]:
        hot = g1_walk.build(profile, 5, path, **options)
        got[(path, *options.values())] = hot.compute(batch, 0).terminated.copy()
    first = next(iter(got.values()))
    for key, terminated in got.items():
        np.testing.assert_array_equal(terminated, first, err_msg=str(key))
