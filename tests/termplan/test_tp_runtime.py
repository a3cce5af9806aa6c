"""Fused runtime: parity with the NumPy runtime, logging variants, scales, threads, timing."""

from __future__ import annotations

import numpy as np
import pytest
import tp_toy

from termplan.codegen import ScaleMode
from termplan.errors import TermPlanError
from termplan.plan import PlanNumpyRuntime
from termplan.runtime import FusedRuntime, make_runtime

pytestmark = pytest.mark.numba("termplan")


def _views(rt: FusedRuntime | PlanNumpyRuntime, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    return [inputs[name] for name in rt.input_names]


@pytest.mark.parametrize("mode", list(ScaleMode))
@pytest.mark.parametrize(("num_envs", "threads"), [(1, 1), (7, 1), (512, 2)])
def test_fused_matches_numpy_runtime(mode: ScaleMode, num_envs: int, threads: int) -> None:
    """Reward, termination, obs and logs agree with the NumPy runtime, NaN included."""
    plan = tp_toy.make_plan()
    x = tp_toy.make_inputs(num_envs, seed=num_envs)
    x["vel"][0, 0] = np.nan
    x["height"][-1] = np.nan
    fused = FusedRuntime(plan, num_envs, mode, num_threads=threads)
    ref = PlanNumpyRuntime(plan, num_envs)
    for log in (True, False):
        got = fused.run(_views(fused, x), log)
        want = ref.run(_views(ref, x), log)
        np.testing.assert_allclose(fused.outputs.reward, ref.outputs.reward, 1e-6, 1e-7)
        np.testing.assert_array_equal(fused.outputs.terminated, ref.outputs.terminated)
        np.testing.assert_allclose(fused.outputs.groups["obs"], ref.outputs.groups["obs"], 1e-6)
        assert list(got) == list(want)
        np.testing.assert_allclose(list(got.values()), list(want.values()), 1e-6, 1e-9)
    assert bool(fused.outputs.terminated[-1])  # NaN height terminates (no nnan flag)


def test_runtime_scales_follow_set_scale() -> None:
    """Runtime mode changes weights between calls without rebuilding; baked mode refuses."""
    plan = tp_toy.make_plan()
    x = tp_toy.make_inputs(16)
    rt = FusedRuntime(plan, 16, ScaleMode.RUNTIME, num_threads=1)
    ref = PlanNumpyRuntime(plan, 16)
    rt.set_scale("pose", -3.0)
    ref.set_scale("pose", -3.0)
    logs = rt.run(_views(rt, x), True)
    want = ref.run(_views(ref, x), True)
    np.testing.assert_allclose(rt.outputs.reward, ref.outputs.reward, 1e-6, 1e-7)
    np.testing.assert_allclose(logs["reward/pose"], want["reward/pose"], 1e-6)
    baked = FusedRuntime(plan, 16, num_threads=1)
    with pytest.raises(TermPlanError, match="baked"):
        baked.set_scale("pose", 1.0)
    with pytest.raises(TermPlanError, match="not an active reward"):
        rt.set_scale("rate_nope", 1.0)


def test_binding_validates_once_per_array() -> None:
    """Bad arrays are ValueErrors naming the input; outputs keep their identity."""
    rt = FusedRuntime(tp_toy.make_plan(), 8, num_threads=1)
    x = tp_toy.make_inputs(8)
    bad = {**x, "q": x["q"].astype(np.float64)}
    with pytest.raises(ValueError, match="input 'q'"):
        rt.run(_views(rt, bad), False)
    with pytest.raises(ValueError, match="C-contiguous"):
        rt.run(_views(rt, {**x, "vel": np.asfortranarray(x["vel"])}), False)
    reward = rt.outputs.reward
    rt.run(_views(rt, x), False)
    rt.run(_views(rt, x), False)
    assert rt.outputs.reward is reward


def test_first_touch_zeroes_outputs_and_one_parfor() -> None:
    """Outputs start zeroed by the generated fill; the parallel kernel is a single parfor."""
    rt = FusedRuntime(tp_toy.make_plan(), 64, num_threads=2)
    assert not rt.outputs.reward.any()
    assert not rt.outputs.groups["obs"].any()
    assert rt.parfor_count("step_parallel") == 1
    assert rt.parfor_count("step_parallel_log") == 1


def test_timing_and_compile_report() -> None:
    """Timing mode accumulates segments; warm() records compile time and cache stats."""
    rt = FusedRuntime(tp_toy.make_plan(), 8, num_threads=1, timing=True)
    report = rt.warm()
    assert set(report.compile_ms) == {"step_serial", "step_serial_log"}
    assert all(report.cache_hits[k] + report.cache_misses[k] == 1 for k in report.compile_ms)
    x = tp_toy.make_inputs(8)
    rt.run(_views(rt, x), True)
    rt.run(_views(rt, x), False)
    assert rt.times.calls == 2
    assert rt.times.execute > 0.0


def test_make_runtime_validates() -> None:
    """Unknown backends and scale modes are ValueErrors listing the valid ones."""
    plan = tp_toy.make_plan()
    assert isinstance(make_runtime(plan, 4, "numpy"), PlanNumpyRuntime)
    with pytest.raises(ValueError, match="backend 'cuda'"):
        make_runtime(plan, 4, "cuda")
    with pytest.raises(ValueError, match="scale_mode 'sometimes'"):
        make_runtime(plan, 4, "numba", "sometimes")
    with pytest.raises(ValueError, match="num_threads"):
        FusedRuntime(plan, 4, num_threads=0)


def test_a_plan_without_inputs_runs() -> None:
    """Every term at scale 0, so the plan reads no input: the first bind must still build
    the kernel arguments (it returned early, leaving the kernel without any)."""
    from termplan.plan import TermConfig, resolve_plan

    configs = [TermConfig(c.name, c.key, 0.0, c.parameters, c.group) for c in tp_toy.configs()]
    plan = resolve_plan(tp_toy.make_registry(), configs, ("obs",), 0.02)
    rt = FusedRuntime(plan, 4, num_threads=1)
    assert rt.input_names == ()
    assert rt.run([], True) == {}
    assert not rt.outputs.reward.any()
