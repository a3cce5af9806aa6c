"""Row/lane split: which plans split, what the lane loop carries, how lines are rewritten."""

from __future__ import annotations

from dataclasses import replace

import tp_toy

from termplan.lanes import lane_line, lane_split
from termplan.spec import fragment
from termplan.tasks.g1_walk.config import check_default_angles
from termplan.tasks.g1_walk.profiles import resolve_profile
from termplan.tasks.g1_walk.terms import build_plan as g1_plan
from termplan.tasks.motion_tracking.profiles import resolve_profile as motion_profile
from termplan.tasks.motion_tracking.terms import build_plan as motion_plan


def test_toy_plan_splits_and_carries_its_loop_sums() -> None:
    split = lane_split(tp_toy.make_plan())
    assert split is not None
    assert split.row_fragments == {"dq", "pose_sum", "rate_sum"}
    assert split.carried == ("pose_sum", "rate_sum")
    assert split.scratch_rows() == 2


def test_g1_plans_split() -> None:
    for name in ("sac_default", "ppo_default", "full_supported"):
        plan = g1_plan(resolve_profile(name, None), False, check_default_angles(None))
        split = lane_split(plan)
        assert split is not None, name
        assert "pose_sum" in split.carried


def test_motion_plan_stays_one_loop() -> None:
    """Its body loop reads the env-stage preamble, so it cannot move to a row loop."""
    assert lane_split(motion_plan(motion_profile("sac_default"))) is None


def test_a_loop_reading_an_env_value_does_not_split() -> None:
    plan = tp_toy.make_plan()
    bias = fragment("bias", inputs=("vel",), env="bias = float(in_vel[i, 1])")
    shifted = fragment("shifted", needs=("bias",), loop_joint="shifted = in_q[i, j] - bias")
    assert lane_split(replace(plan, fragments=(*plan.fragments, bias, shifted))) is None


def test_a_post_loop_line_does_not_split() -> None:
    plan = tp_toy.make_plan()
    late = fragment("late", needs=("pose_sum",), post="late = pose_sum * 2.0")
    assert lane_split(replace(plan, fragments=(*plan.fragments, late))) is None


def test_lane_line_rewrites_reads_writes_and_exp() -> None:
    plan = tp_toy.make_plan()
    line = "r = math.exp(-in_vel[i, 2]) + float(in_height[i]); out_reward[i] = r"
    assert lane_line(plan, line) == (
        "r = lane_exp(-f_vel[lane_index(i, 3, 2)]) + float(in_height[np.uint64(i)]); "
        "out_reward[np.uint64(i)] = r"
    )


def test_no_split_when_lane_code_reads_a_row_value_nobody_carries() -> None:
    """A reward reading ``dq`` (a per-joint row value, not an accumulator) would see the
    tile's last env for every env after a split: the plan stays one loop."""
    import numpy as np

    from termplan.plan import TermConfig, resolve_plan
    from termplan.spec import TermCode, TermDefinition, TermKind

    reg = tp_toy.make_registry()
    reg.register(
        TermDefinition(
            "toy.reward.lastdq.v1",
            TermKind.REWARD,
            (tp_toy.Q,),
            lambda ctx: np.zeros(len(ctx.inputs["q"])),
            emit=lambda p: TermCode(needs=("dq",), value="dq"),
        )
    )
    configs = [*tp_toy.configs(), TermConfig("lastdq", "toy.reward.lastdq.v1", 1.0)]
    assert lane_split(tp_toy.make_plan()) is not None
    assert lane_split(resolve_plan(reg, configs, ("obs",), 0.02)) is None
