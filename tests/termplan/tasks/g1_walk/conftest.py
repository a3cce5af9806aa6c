"""Shared helpers of the G1 walk tests: run paths on one batch and compare their outputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hot_slices import SliceCache

from termplan.tasks.base import StepOutputs

#: Parity tolerances (upstream G1 benchmark ``check_parity``).
REWARD_TOL = 5e-5
OBS_TOL = 1e-6
LOG_TOL = 5e-5


def snapshot(out: StepOutputs) -> StepOutputs:
    """A copy of one call's outputs (paths reuse their buffers)."""
    return StepOutputs(
        reward=out.reward.copy(),
        terminated=out.terminated.copy(),
        obs=out.obs.copy(),
        critic=out.critic.copy(),
        logs=dict(out.logs),
    )


def assert_outputs_agree(ref: StepOutputs, got: StepOutputs) -> None:
    """Reward/logs within 5e-5, obs within 1e-6, termination and log keys exactly (NaN = NaN)."""
    np.testing.assert_allclose(got.reward, ref.reward, rtol=REWARD_TOL, atol=REWARD_TOL)
    np.testing.assert_array_equal(got.terminated, ref.terminated)
    np.testing.assert_allclose(got.obs, ref.obs, rtol=OBS_TOL, atol=OBS_TOL)
    np.testing.assert_allclose(got.critic, ref.critic, rtol=OBS_TOL, atol=OBS_TOL)
    assert list(got.logs) == list(ref.logs)
    for key, value in ref.logs.items():
        np.testing.assert_allclose(got.logs[key], value, rtol=LOG_TOL, atol=LOG_TOL, err_msg=key)


@pytest.fixture
def agree() -> Callable[[StepOutputs, StepOutputs], None]:
    """The parity assertion (:func:`assert_outputs_agree`)."""
    return assert_outputs_agree


@pytest.fixture
def run_paths(hot_slices: SliceCache) -> Callable[..., dict[str, StepOutputs]]:
    """``run_paths(profile, batch, step=0, **build_options)`` -> outputs per path (copied);
    the slices come from the session's :class:`~hot_slices.SliceCache`."""

    def run(profile: Any, batch: Any, step: int = 0, **options: Any) -> dict[str, StepOutputs]:
        outs = {}
        for path in ("numpy", "handwritten"):
            hot = hot_slices.get("g1_walk", profile, batch.num_envs, path, **options)
            outs[path] = snapshot(hot.compute(batch, step))
        return outs

    return run
