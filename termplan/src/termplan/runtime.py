"""Fused-kernel runtime: bind inputs, pick serial/parallel, execute, read per-term logs.

* The thread count per N is :func:`termplan.threads.choose_threads` over a calibration
  (:mod:`termplan.threads`); T == 1 runs the serial kernel (no parallel-region launch at all).
* Outputs are allocated once (``np.empty``) and first-touched by the generated ``prange``
  fill, so pages land where the kernel's static partition will write them.
* Logging steps call the ``*_log`` variant (Numba scalar reductions); other steps call the
  variant without any log arithmetic.
* Optional segment timing (bind / execute / log) is a different method bound at
  construction, so the untimed path has no timer calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np

from termplan.arrays import check_count
from termplan.codegen import KernelSource, ScaleMode, generate_source
from termplan.compile import CacheStatus, load_source
from termplan.errors import TermPlanError
from termplan.kernel_options import PARALLEL_OPTIONS
from termplan.lanes import TILE
from termplan.plan import PlanNumpyRuntime, PlanOutputs, ResolvedPlan, check_inputs, reward_index
from termplan.spec import TermKind
from termplan.threads import (
    Calibration,
    calibrate,
    check_num_threads,
    choose_threads,
    masked,
    max_threads,
    model_calibration,
    time_call,
)

# ------------------------------------------------------------------------------ runtime


@dataclass
class CompileReport:
    """Where the kernels came from and what loading/compiling them cost."""

    module_status: CacheStatus
    module_path: Path
    compile_ms: dict[str, float] = field(default_factory=dict)
    cache_hits: dict[str, int] = field(default_factory=dict)
    cache_misses: dict[str, int] = field(default_factory=dict)


@dataclass
class SegmentTimes:
    """Accumulated seconds per segment (only filled when timing is on)."""

    bind: float = 0.0
    execute: float = 0.0
    log: float = 0.0
    calls: int = 0


class FusedRuntime:
    """Runs the generated kernels of one plan for ``num_envs`` envs.

    Parameters
    ----------
    plan:
        The resolved plan.
    num_envs:
        Rows of every input and output.
    scale_mode:
        ``BAKED`` (weights are literals) or ``RUNTIME`` (weights read from ``scales``).
    num_threads:
        Fixed T (1 = serial kernel); ``None`` chooses from ``calibration``.
    calibration:
        Table for :func:`choose_threads`; ``None`` uses :func:`model_calibration`.
    timing:
        Accumulate bind / execute / log seconds in :attr:`times`.
    """

    def __init__(
        self,
        plan: ResolvedPlan,
        num_envs: int,
        scale_mode: ScaleMode = ScaleMode.BAKED,
        num_threads: int | None = None,
        calibration: Calibration | None = None,
        timing: bool = False,
        cache_directory: Path | None = None,
        caller_checks: bool = False,
    ) -> None:
        num_envs = check_count("num_envs", num_envs)
        #: The caller validates the layout of every input before each run (the task path's
        #: batch check), so re-binding the same objects needs no layout comparison here.
        self.caller_checks = caller_checks
        self.plan = plan
        self.num_envs = num_envs
        self.source: KernelSource = generate_source(plan, scale_mode)
        loaded = load_source(self.source.text, cache_directory)
        self.module = loaded.module
        self.report = CompileReport(loaded.status, loaded.path)
        self.threads = self._pick_threads(num_threads, calibration)
        kind = "serial" if self.threads == 1 else "parallel"
        self._kernel = getattr(self.module, f"step_{kind}")
        self._kernel_log = getattr(self.module, f"step_{kind}_log")
        self.rewards = plan.active(TermKind.REWARD)
        self.log_scales = np.array([t.scale for t in self.rewards], np.float64)
        self.scales = self._initial_scales(scale_mode)
        self.outputs = PlanOutputs.allocate(plan, num_envs)
        self._scratch = np.zeros((max_threads(), self.source.scratch_rows, TILE), np.float64)
        self._first_touch()
        self._bound: tuple[Any, ...] = ()
        self._layouts: tuple[_Layout, ...] = ()
        self._args: tuple[Any, ...] = ()
        self.times = SegmentTimes()
        #: ``run(views, log) -> logs``: bind then execute (timed per segment if asked).
        self.run: Callable[[Sequence[np.ndarray], bool], dict[str, float]] = (
            self._run_timed if timing else self._run
        )

    def _pick_threads(self, num_threads: int | None, calibration: Calibration | None) -> int:
        limit = max_threads()
        threads = check_num_threads(num_threads)
        if threads is not None:
            return threads
        table = calibration if calibration is not None else model_calibration(limit)
        return choose_threads(self.num_envs, table, limit)

    def _initial_scales(self, scale_mode: ScaleMode) -> np.ndarray:
        if scale_mode is ScaleMode.BAKED:
            return np.zeros(1, np.float64)  # unread; keeps one signature for both modes
        return self.log_scales * self.plan.reward_multiplier

    def _first_touch(self) -> None:
        out = self.outputs
        groups = [out.groups[g] for g in self.source.groups]
        with masked(max(self.threads, 1)):
            self.module.first_touch(self.num_envs, out.reward, out.terminated, *groups)

    # ---------------------------------------------------------------------- scales

    def set_scale(self, name: str, scale: float) -> None:
        """Change an active reward's weight (runtime-scales mode only)."""
        if self.source.scale_mode is not ScaleMode.RUNTIME:
            raise TermPlanError(
                f"term {name!r}: scales are baked into this kernel; build with "
                "scale_mode=ScaleMode.RUNTIME to change weights between steps"
            )
        k = reward_index(self.rewards, name, scale, self.plan.reward_multiplier)
        self.log_scales[k] = float(scale)
        self.scales[k] = float(scale) * self.plan.reward_multiplier

    # ---------------------------------------------------------------------- binding

    @property
    def input_names(self) -> tuple[str, ...]:
        """Inputs the kernels read, in argument order (only those active terms need)."""
        return self.source.inputs

    def bind(self, views: Sequence[np.ndarray]) -> None:
        """Bind input arrays (in :attr:`input_names` order); validated when one changed.

        Passing the same array objects again skips validation only if each still has the
        shape, dtype and strides it was validated with: those can be changed in place
        (``a.dtype = np.int32``), and the kernel would then read raw memory as another type
        or beyond the buffer. The data pointer needs no check: NumPy does not let it be
        reassigned, and the kernel unboxes the array object (its current pointer) every call.
        """
        if self._args and _unchanged(views, self._bound, self._layouts, self.caller_checks):
            return  # a plan without inputs binds once, like any other
        if len(views) != len(self.source.inputs):
            raise ValueError(
                f"inputs: expected {len(self.source.inputs)} arrays, got {len(views)}"
            )
        named = dict(zip(self.source.inputs, views, strict=True))
        checked = check_inputs(self.plan, self.num_envs, named)
        out = self.outputs
        groups = tuple(out.groups[g] for g in self.source.groups)
        self._args = (
            self.num_envs,
            *(checked[name] for name in self.source.inputs),
            self.scales,
            out.reward,
            out.terminated,
            *groups,
            out.logs,
            self._scratch,
        )
        self._bound = tuple(views)
        self._layouts = _layouts(views)

    # ---------------------------------------------------------------------- execute

    def execute(self, log: bool) -> dict[str, float]:
        """One kernel call on the bound inputs; logs (``reward/<name>``) when ``log``."""
        if not self._args:
            raise ValueError("inputs: call bind() before execute()")
        with masked(self.threads if self.threads > 1 else None):
            (self._kernel_log if log else self._kernel)(*self._args)
        return self._logs() if log else {}

    def _logs(self) -> dict[str, float]:
        means = self.outputs.logs * self.log_scales / self.num_envs
        return {
            f"reward/{t.name}": float(v)
            for t, v, s in zip(self.rewards, means, self.log_scales, strict=True)
            if s != 0.0  # a reward set to 0 at runtime is logged like an absent one: not at all
        }

    def _run(self, views: Sequence[np.ndarray], log: bool) -> dict[str, float]:
        self.bind(views)
        return self.execute(log)

    def _run_timed(self, views: Sequence[np.ndarray], log: bool) -> dict[str, float]:
        t0 = time.perf_counter()
        self.bind(views)
        t1 = time.perf_counter()
        with masked(self.threads if self.threads > 1 else None):
            (self._kernel_log if log else self._kernel)(*self._args)
        t2 = time.perf_counter()
        logs = self._logs() if log else {}
        t3 = time.perf_counter()
        self.times.bind += t1 - t0
        self.times.execute += t2 - t1
        self.times.log += t3 - t2
        self.times.calls += 1
        return logs

    # ---------------------------------------------------------------------- compile

    def warm(self, variants: Iterable[str] | None = None) -> CompileReport:
        """Compile (or load from Numba's cache) ``variants`` now and record the cost.

        Calls each with ``n = 0`` on one-row dummy inputs of the bound types, so nothing is
        written and the first real step pays no JIT.
        """
        names = (
            list(variants)
            if variants is not None
            else [
                self._kernel.__name__,
                self._kernel_log.__name__,
            ]
        )
        args = self._dummy_args()
        for name in names:
            dispatcher = getattr(self.module, name)
            start = time.perf_counter()
            dispatcher(*args)
            self.report.compile_ms[name] = (time.perf_counter() - start) * 1e3
            self.report.cache_hits[name] = sum(dispatcher.stats.cache_hits.values())
            self.report.cache_misses[name] = sum(dispatcher.stats.cache_misses.values())
        return self.report

    def parfor_count(self, variant: str = "step_parallel") -> int:
        """Number of parallel loops Numba builds for ``variant`` (expected: exactly 1).

        Compiles a private, uncached copy (a kernel loaded from the disk cache carries no
        parfor diagnostics), so this is a diagnostic for tests, not for the hot path.
        """
        options = {**PARALLEL_OPTIONS, "cache": False}
        fresh = numba.njit(**options)(getattr(self.module, variant).py_func)
        fresh(*self._dummy_args())
        metadata = fresh.get_metadata(fresh.signatures[0])
        return len(metadata["parfor_diagnostics"].initial_parfors)

    def _dummy_args(self) -> tuple[Any, ...]:
        dummies = [np.zeros((1, *s.shape), s.dtype) for s in self.plan.inputs]
        out = self.outputs
        groups = [out.groups[g] for g in self.source.groups]
        return (
            0, *dummies, self.scales, out.reward, out.terminated, *groups, out.logs,
            self._scratch,
        )  # fmt: skip


#: What the shortcut of :meth:`FusedRuntime.bind` compares: (shape, dtype, strides).
_Layout = tuple[tuple[int, ...], np.dtype[Any], tuple[int, ...]]


def _layouts(views: Sequence[np.ndarray]) -> tuple[_Layout, ...]:
    """The (shape, dtype, strides) of every view, as validated by a full bind."""
    return tuple((v.shape, v.dtype, v.strides) for v in views)


def _unchanged(
    views: Sequence[np.ndarray],
    bound: Sequence[Any],
    layouts: Sequence[_Layout],
    caller_checks: bool = False,
) -> bool:
    """``views`` are the ``bound`` objects, each still with its validated layout.

    Runs every step, so identity and tuple comparisons only; a dtype is compared by identity
    (an equal but distinct dtype object only costs one full validation, which rebinds it).
    With ``caller_checks`` the caller has just validated every layout itself: identity only.
    """
    if len(views) != len(bound):
        return False
    if caller_checks:
        return all(view is old for view, old in zip(views, bound, strict=True))
    for view, old, (shape, dtype, strides) in zip(views, bound, layouts, strict=True):
        if (
            view is not old
            or view.dtype is not dtype
            or view.shape != shape
            or view.strides != strides
        ):
            return False
    return True


# ------------------------------------------------------------------------ backends

#: Backends of the assembled path: the fused kernel, or the plan's NumPy implementations.
BACKENDS: tuple[str, ...] = ("numba", "numpy")


def make_runtime(
    plan: ResolvedPlan,
    num_envs: int,
    backend: str = "numba",
    scale_mode: str | ScaleMode = ScaleMode.BAKED,
    num_threads: int | None = None,
    calibration: Calibration | None = None,
    timing: bool = False,
    caller_checks: bool = False,
) -> FusedRuntime | PlanNumpyRuntime:
    """The runtime of ``plan``: ``backend="numba"`` (fused kernels) or ``"numpy"`` (fallback).

    ``num_threads`` is validated for both backends (the NumPy one does not use it), so a bad
    value fails the same way whichever backend is selected. ``caller_checks``: see
    :attr:`FusedRuntime.caller_checks`.

    Raises
    ------
    ValueError
        For an unknown backend or scale mode (the message lists the valid ones), or a
        ``num_threads`` other than ``None`` or an int in ``1..max_threads()``.
    """
    try:
        mode = ScaleMode(scale_mode)
    except ValueError:
        valid = ", ".join(m.value for m in ScaleMode)
        raise ValueError(f"scale_mode {scale_mode!r}: expected one of {valid}") from None
    check_num_threads(num_threads)
    if backend == "numpy":
        return PlanNumpyRuntime(plan, num_envs)
    if backend != "numba":
        raise ValueError(f"backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    runtime = FusedRuntime(
        plan, num_envs, mode, num_threads, calibration, timing, caller_checks=caller_checks
    )
    runtime.warm()
    return runtime


def calibrate_plan(
    plan: ResolvedPlan,
    make_views: Callable[[int], Sequence[np.ndarray]],
    sizes: Sequence[int],
    thread_counts: Sequence[int],
    repeats: int = 15,
) -> Calibration:
    """Measure ``plan``'s own kernel (non-logging variant; T=1 is the serial kernel).

    ``make_views(n)`` returns the input arrays for ``n`` envs in ``plan.inputs`` order. The
    result feeds :func:`choose_threads` (``calibration=`` of the assembled paths).
    """

    def run(n: int, threads: int) -> float:
        runtime = FusedRuntime(plan, n, num_threads=threads)
        runtime.bind(make_views(n))
        return time_call(lambda: runtime.execute(False), repeats)

    return calibrate(run, sizes, thread_counts)
