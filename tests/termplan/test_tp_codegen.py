"""Code generation: golden text, dead terms absent, literals baked, runtime-scales mode."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tp_toy
from golden_check import check_golden

from termplan.codegen import ScaleMode, generate_source, literal
from termplan.compile import source_key
from termplan.errors import TermPlanError
from termplan.plan import ResolvedPlan, resolve_plan
from termplan.registry import TermRegistry
from termplan.spec import (
    Axis,
    Fragment,
    TermCode,
    TermConfig,
    TermDefinition,
    TermKind,
    fragment,
)

GOLDEN = Path(__file__).parent / "golden"


_DIGEST = re.compile(r"(# termplan.intrinsics source digest: )[0-9a-f]+")


def _check_golden(name: str, text: str) -> None:
    """Byte-equal, except the helpers' digest (its own test checks it; it changes with
    every edit of ``termplan.intrinsics``)."""
    check_golden(GOLDEN / name, _DIGEST.sub(r"\1<digest>", text))


@pytest.mark.parametrize("mode", list(ScaleMode))
def test_golden_source(mode: ScaleMode) -> None:
    """The toy plan's kernels are byte-for-byte the reviewed golden text."""
    _check_golden(f"toy_{mode.value}.py.txt", generate_source(tp_toy.make_plan(), mode).text)


@pytest.mark.parametrize("mode", list(ScaleMode))
@pytest.mark.parametrize("task", ["g1_walk", "motion_tracking"])
def test_golden_task_source(task: str, mode: ScaleMode) -> None:
    """Each task's sac_default kernels (noise off) are byte-for-byte the reviewed golden
    text: a refactoring of a task's terms must not change what it generates."""
    _check_golden(f"{task}_sac_default_{mode.value}.py.txt", _task_source(task, mode))


def _task_source(task: str, mode: ScaleMode) -> str:
    """The generated kernel module of ``task``'s sac_default profile, noise off."""
    if task == "g1_walk":
        from termplan.tasks.g1_walk.profiles import resolve_profile as g1_profile
        from termplan.tasks.g1_walk.terms import build_plan as g1_plan

        plan = g1_plan(g1_profile("sac_default"), False)
    else:
        from termplan.tasks.motion_tracking.profiles import resolve_profile as motion_profile
        from termplan.tasks.motion_tracking.terms import build_plan as motion_plan

        plan = motion_plan(motion_profile("sac_default"), False)
    return generate_source(plan, mode).text


def test_generation_is_pure() -> None:
    """Equal plans give equal text (the text is the cache key)."""
    assert generate_source(tp_toy.make_plan()).text == generate_source(tp_toy.make_plan()).text


def test_zero_scale_term_is_absent() -> None:
    """A zero-scale term leaves no code, no accumulator and no input argument."""
    text = generate_source(tp_toy.make_plan(rate_scale=0.0)).text
    for absent in ("rate_sum", "r_rate", "in_last", "log_2"):
        assert absent not in text
    assert "rate_sum" in generate_source(tp_toy.make_plan()).text


def test_literals_are_baked() -> None:
    """Weights are scale*dt literals and parameters appear as literals."""
    text = generate_source(tp_toy.make_plan(sigma=0.3)).text
    assert "rew += r_track * 0.04" in text
    assert "/ 0.3)" in text
    assert "scales[" not in text
    assert "o_obs[lane_index(i, 11, 3 + j)] = dq" in text


def test_runtime_mode_reads_scales_without_branches() -> None:
    """Runtime mode bakes the active set but reads weights from ``scales``, no ``if``."""
    text = generate_source(tp_toy.make_plan(rate_scale=0.0), ScaleMode.RUNTIME).text
    assert "rew += weigh(r_track, scales[0])" in text
    assert "rew += weigh(r_pose, scales[1])" in text
    assert "import fast_exp, lane_index, weigh" in text or "weigh" in text.split("@njit")[0]
    assert "scales[2]" not in text
    assert "if scales" not in text


def test_literal_parameter_changes_cache_key() -> None:
    """Changing one baked parameter changes the text and so the cache key."""
    a = generate_source(tp_toy.make_plan(sigma=0.25)).text
    b = generate_source(tp_toy.make_plan(sigma=0.26)).text
    assert source_key(a) != source_key(b)
    assert source_key(a) == source_key(generate_source(tp_toy.make_plan(sigma=0.25)).text)


def test_shared_fragment_emitted_once() -> None:
    """``dq`` feeds the pose reward and the obs but is computed once per joint (CSE)."""
    text = generate_source(tp_toy.make_plan()).text
    body = text.split("def step_serial(")[1].split("@njit")[0]
    assert body.count("dq = f_q[lane_index(i, 4, j)] - C_Q0[j]") == 1
    assert body.count("for j in range(4):") == 1


def test_literal_rejects_non_finite() -> None:
    """Non-finite values cannot be baked."""
    assert literal(0.1) == "0.1"
    with pytest.raises(TermPlanError):
        literal(float("nan"))


def _stage_plan(early: Fragment) -> ResolvedPlan:
    """A one-axis plan whose reward reads fragment ``early`` (which reads ``total``)."""
    reg = TermRegistry("stages", axes=(Axis("k", 3, "k"),))
    reg.add_fragment(fragment("total", env="total = 0.0", loop_k="total += 1.0"))
    reg.add_fragment(early)
    reg.register(
        TermDefinition(
            "stages.reward.x.v1",
            TermKind.REWARD,
            (),
            lambda ctx: None,  # type: ignore[arg-type,return-value]
            emit=lambda p: TermCode(needs=("early",), value="early"),
        )
    )
    return resolve_plan(reg, [TermConfig("x", "stages.reward.x.v1")])


def test_env_code_reading_a_loop_total_runs_after_the_loop() -> None:
    """``early = total / 3`` in the env stage read the total before the loop ran (one-loop
    kernels; the tiled layout put it in the lane loop): it now runs after the loops."""
    text = generate_source(
        _stage_plan(fragment("early", ("total",), env="early = total / 3"))
    ).text
    body = text[text.index("def step_serial(") :]
    assert body.index("total += 1.0") < body.index("early = total / 3")


def test_reading_an_unfinished_value_that_cannot_move_is_refused() -> None:
    """An accumulator whose env initialisation reads a loop total cannot move after the loop."""
    frag = fragment("early", ("total",), env="early = total", loop_k="early += 1.0")
    with pytest.raises(TermPlanError, match="'early': its env lines read a value"):
        generate_source(_stage_plan(frag))
