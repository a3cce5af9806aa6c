"""Fused runtime: parity with the NumPy runtime, logging variants, scales, threads, timing."""

from __future__ import annotations

import numpy as np
import pytest
import tp_toy

from termplan.codegen import ScaleMode
from termplan.errors import TermPlanError
from termplan.plan import PlanNumpyRuntime
from termplan.runtime import (
    Calibration,
    FusedRuntime,
    calibrate,
    calibrate_plan,
    choose_threads,
    make_runtime,
    model_calibration,
)

pytestmark = pytest.mark.numba("termplan")


def _synthetic(threads: int, launch_us: float, env_ns: float, sizes: list[int]) -> Calibration:
    """A machine whose regions cost ``launch`` per extra thread and scale perfectly."""
    table = {
        n: {t: (0.0 if t == 1 else launch_us * 1e-6 * t) + n * env_ns * 1e-9 / t
            for t in range(1, threads + 1)}
        for n in sizes
    }  # fmt: skip
    return Calibration.from_mapping(table, "synthetic")


def test_choose_threads_on_a_160_thread_table() -> None:
    """Small N runs serially, large N uses many threads; the choice grows with N."""
    cal = _synthetic(160, 2.0, 60.0, [64, 1024, 16384, 262144, 1 << 20])
    picks = [choose_threads(n, cal) for n in (1, 64, 1024, 16384, 262144, 1 << 20, 1 << 22)]
    # optimum of launch * T + n * c / T is T = sqrt(n * c / launch): 6, 22, 89 threads
    assert picks == [1, 1, 6, 22, 89, 160, 160]
    assert choose_threads(1 << 22, cal, limit=48) == 48


def test_choose_threads_follows_measurements_not_a_constant() -> None:
    """A table where 2 threads lose at every size never picks 2; ties pick fewer threads."""
    table = {1024: {1: 1e-4, 2: 2e-4, 4: 1e-4}, 65536: {1: 5e-3, 2: 6e-3, 4: 5e-3}}
    cal = Calibration.from_mapping(table, "synthetic")
    assert choose_threads(4096, cal) == 1
    table[65536][4] = 1e-3
    assert choose_threads(1 << 20, Calibration.from_mapping(table, "synthetic")) == 4


def test_choose_threads_validates() -> None:
    """Bad tables and sizes are ValueErrors."""
    cal = Calibration.from_mapping({64: {1: 1e-6}}, "synthetic")
    assert choose_threads(10, cal) == 1
    with pytest.raises(ValueError, match="n: expected"):
        choose_threads(0, cal)
    with pytest.raises(ValueError, match="no thread count"):
        choose_threads(10, Calibration.from_mapping({64: {4: 1e-6}}, "s"), limit=2)
    with pytest.raises(ValueError, match="bad entry"):
        Calibration.from_mapping({64: {1: float("nan")}}, "s")
    with pytest.raises(ValueError, match="at least one size"):
        Calibration((), "s")


def test_calibrate_and_model() -> None:
    """``calibrate`` tabulates a run function; the model prefers serial for tiny N."""
    cal = calibrate(lambda n, t: n / t * 1e-9 + (t - 1) * 1e-6, [100, 100000], [1, 2, 4])
    assert choose_threads(100, cal) == 1
    assert choose_threads(100000, cal) == 4
    model = model_calibration(2)
    assert choose_threads(8, model) == 1
    assert choose_threads(65536, model) == 2


def test_calibrate_plan_measures_the_kernel() -> None:
    """The calibration routine times the plan's kernel for every size x thread count."""
    plan = tp_toy.make_plan()

    def views(n: int) -> list[np.ndarray]:
        inputs = tp_toy.make_inputs(n)
        return [inputs[s.name] for s in plan.inputs]

    cal = calibrate_plan(plan, views, [8, 256], [1, 2], repeats=3)
    assert [n for n, _ in cal.table] == [8, 256]
    assert all([t for t, _ in row] == [1, 2] for _, row in cal.table)
    assert all(s > 0 for _, row in cal.table for _, s in row)
    assert choose_threads(8, cal) in (1, 2)


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
