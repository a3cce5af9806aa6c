"""Runtime input checks a reviewer found bypassed: in-place layout changes behind the bind
shortcut and ``num_threads`` on the NumPy backend (calibration tables: test_tp_threads)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest
import tp_toy

from termplan.codegen import ScaleMode
from termplan.errors import TermPlanError
from termplan.plan import PlanNumpyRuntime, resolve_plan
from termplan.runtime import FusedRuntime, make_runtime
from termplan.tasks.g1_walk.profiles import Profile
from termplan.tasks.motion_tracking.profiles import resolve_profile
from termplan.threads import max_threads

pytestmark = pytest.mark.numba("termplan")

N = 8


def _set_dtype_int32(a: np.ndarray) -> None:
    a.dtype = np.dtype(np.int32)  # type: ignore[misc]  # same object, float bits read as ints


def _set_shape_column(a: np.ndarray) -> None:
    a.shape = (a.shape[0], 1)


def _set_strides_transposed(a: np.ndarray) -> None:
    """Non-contiguous strides within the buffer (setting them is deprecated in NumPy 2.4)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            a.strides = (a.itemsize, a.itemsize * a.shape[0])
        except AttributeError:
            pytest.skip("this NumPy no longer sets strides in place")


@pytest.mark.parametrize(
    ("name", "mutate", "message"),
    [
        ("q", _set_dtype_int32, r"input 'q'.*dtype float32, got shape \(8, 4\) dtype int32"),
        ("height", _set_shape_column, r"input 'height'.*shape \(8,\) .*got shape \(8, 1\)"),
        ("q", _set_strides_transposed, r"input 'q'.*C-contiguous.*strides \(4, 32\)"),
    ],
)
def test_bind_rechecks_arrays_changed_in_place(
    name: str, mutate: Callable[[np.ndarray], None], message: str
) -> None:
    """The same array objects skip validation only while their layout is the validated one:
    a dtype, shape or strides changed in place is refused (every time), naming the input."""
    rt = FusedRuntime(tp_toy.make_plan(), N, num_threads=1)
    ref = PlanNumpyRuntime(rt.plan, N)
    x = tp_toy.make_inputs(N)
    views = [x[k] for k in rt.input_names]
    rt.run(views, False)
    original = (x[name].dtype, x[name].shape, x[name].strides)
    mutate(x[name])
    for _ in range(2):  # a refused bind leaves nothing that lets the next call through
        with pytest.raises(ValueError, match=message):
            rt.run(views, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        x[name].dtype, x[name].shape, x[name].strides = original  # type: ignore[misc]
    got = rt.run(views, True)
    want = ref.run([x[k] for k in ref.input_names], True)
    np.testing.assert_allclose(rt.outputs.reward, ref.outputs.reward, 1e-6, 1e-7)
    np.testing.assert_allclose(list(got.values()), list(want.values()), 1e-6, 1e-9)


BAD_THREADS = [0, -3, "2", 2.5, True, 10**6, max_threads() + 1]


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("bad", BAD_THREADS, ids=repr)
def test_make_runtime_refuses_bad_num_threads_on_every_backend(backend: str, bad: object) -> None:
    """Both backends refuse the same ``num_threads`` values with the same message."""
    with pytest.raises(ValueError, match=r"num_threads: expected None or an int in 1\.\."):
        make_runtime(tp_toy.make_plan(), 4, backend, num_threads=bad)  # type: ignore[arg-type]


def test_make_runtime_numpy_backend_accepts_valid_num_threads() -> None:
    """``None`` and 1..max_threads() still build the NumPy runtime."""
    for threads in (None, 1, np.int64(max_threads())):
        runtime = make_runtime(tp_toy.make_plan(), 4, "numpy", num_threads=threads)  # type: ignore[arg-type]
        assert isinstance(runtime, PlanNumpyRuntime)


def test_caller_checks_binds_the_same_objects_by_identity() -> None:
    """With ``caller_checks`` the caller has validated every layout itself (the task path):
    re-binding the same objects skips the layout comparison; other objects are validated."""
    plan = tp_toy.make_plan()
    rt = FusedRuntime(plan, 8, num_threads=1, caller_checks=True)
    x = tp_toy.make_inputs(8)
    views = [x[n] for n in rt.input_names]
    rt.run(views, False)
    bound = rt._args
    rt.run(views, False)
    assert rt._args is bound  # not re-bound
    other = [v.copy() for v in views]
    other[0] = other[0].astype(np.float64)
    with pytest.raises(ValueError, match="dtype"):
        rt.run(other, False)


@pytest.mark.parametrize("bad", [5e-324, -1e-322, True, "2"])
def test_scales_that_cannot_be_weights_are_refused_everywhere(bad: object) -> None:
    """A scale whose weight (scale x ctrl_dt) underflows to 0 switched the term off in the
    runtime-scales kernel (0 even from NaN) but gave NaN in the baked kernel and NumPy; a
    bool or a string is not a weight. Refused at resolution and by every set_scale."""
    configs = [replace(c, scale=bad) if c.name == "track" else c for c in tp_toy.configs()]
    with pytest.raises(TermPlanError, match="'track'"):
        resolve_plan(tp_toy.make_registry(), configs, ("obs",), 0.02)
    plan = tp_toy.make_plan()
    for runtime in (FusedRuntime(plan, 4, ScaleMode.RUNTIME, 1), PlanNumpyRuntime(plan, 4)):
        with pytest.raises(TermPlanError, match="'track'"):
            runtime.set_scale("track", bad)  # type: ignore[arg-type]
        runtime.set_scale("track", 1e-300)  # tiny but a weight: accepted


def test_task_profiles_refuse_scales_that_underflow() -> None:
    with pytest.raises(TermPlanError, match="underflows"):
        Profile("tiny", {"tracking_lin_vel": 5e-324})
    motion = resolve_profile("sac_default")
    tiny = replace(motion, scales={**motion.scales, "motion_body_pos": 5e-324})
    with pytest.raises(TermPlanError, match="underflows"):
        tiny.scale_vector()
