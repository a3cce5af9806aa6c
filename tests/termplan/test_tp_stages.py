"""A one-loop kernel with env code that reads a loop total matches the NumPy runtime."""

from __future__ import annotations

import numpy as np
import pytest
import tp_toy

from termplan.lanes import lane_split
from termplan.plan import NumpyContext, PlanNumpyRuntime, ResolvedPlan, resolve_plan
from termplan.runtime import FusedRuntime
from termplan.spec import (
    ParamKind,
    ParamSpec,
    TermCode,
    TermConfig,
    TermDefinition,
    TermKind,
    VectorSource,
    fragment,
)

pytestmark = pytest.mark.numba("termplan")


def _speed(ctx: NumpyContext) -> np.ndarray:
    return np.abs(ctx.inputs["vel"][:, :1]) * ctx.params["multiplier"]


def _one_loop_plan() -> ResolvedPlan:
    """The toy plan plus ``pose_mean = pose_sum / 4`` (env code over a loop total) and an
    observation of an env-stage fragment, which keeps the plan from splitting into tiles."""
    reg = tp_toy.make_registry()
    reg.add_fragment(fragment("pose_mean", ("pose_sum",), env="pose_mean = pose_sum / 4.0"))
    reg.add_fragment(fragment("speed", inputs=("vel",), env="speed = abs(in_vel[i, 0])"))
    reg.add_source(VectorSource("speed", 1, "speed", needs=("speed",)))
    reg.register(
        TermDefinition(
            "toy.reward.pose_mean.v1",
            TermKind.REWARD,
            (tp_toy.Q,),
            lambda c: tp_toy._pose(c) / 4.0,
            emit=lambda p: TermCode(needs=("pose_mean",), value="pose_mean"),
        )
    )
    reg.register(
        TermDefinition(
            "toy.observation.speed.v1",
            TermKind.OBSERVATION,
            (tp_toy.VEL,),
            _speed,
            (ParamSpec("multiplier", ParamKind.FLOAT, 1.0),),
            sources=("speed",),
        )
    )
    configs = [
        *tp_toy.configs(),
        TermConfig("pose_mean", "toy.reward.pose_mean.v1", -0.3),
        TermConfig("obs_speed", "toy.observation.speed.v1", 1.0, {}, "obs"),
    ]
    return resolve_plan(reg, configs, ("obs",), 0.02)


def test_env_code_over_a_loop_total_is_right_in_a_one_loop_kernel() -> None:
    """It read ``pose_sum`` before the joint loop ran (rewards off by the pose term)."""
    plan = _one_loop_plan()
    assert lane_split(plan) is None
    x = tp_toy.make_inputs(64, seed=3)
    fused, ref = FusedRuntime(plan, 64, num_threads=1), PlanNumpyRuntime(plan, 64)
    fused.run([x[n] for n in fused.input_names], False)
    ref.run([x[n] for n in ref.input_names], False)
    np.testing.assert_allclose(fused.outputs.reward, ref.outputs.reward, 5e-5, 5e-5)
    np.testing.assert_allclose(fused.outputs.groups["obs"], ref.outputs.groups["obs"], 1e-6)
