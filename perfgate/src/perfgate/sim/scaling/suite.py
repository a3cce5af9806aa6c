"""An asv base class for simulated thread-scaling families: per-thread counts at T threads,
stored as the model's figures (`perfgate.sim.scaling.model`), ordinary asv results.

A project writes one subclass per family (see ``benchmarks/sim_scaling.py``), as for
`perfgate.sim.suite.SimBenchmark` but with a ``threads`` parameter: ``sim_case(*params)``
builds the case at that thread count (never counted) and returns one call of it.
``setup_cache`` runs `perfgate.sim.scaling.threaded` once per asv run: one native pass, one
valgrind process counting every selected case per thread, Numba's pool sized to the largest
selected thread count (whatever the runner's cores) on the workqueue layer. The ``track_*``
benchmarks of `perfgate.sim.scaling.model.SCALING_FIGURES` read each case's projected
E(T), serial share, imbalance and critical path (estimated cycles) and the E(T), serial
share and critical path of instructions alone. Selection, stages, the JIT target and skips
are those of `perfgate.sim.suite`. Not a subclass of SimBenchmark: its single-thread
figures (``track_cycles``...) are not this family's.
"""

from __future__ import annotations

import abc
import hashlib
import itertools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from asv_runner.benchmarks.mark import SkipNotImplemented

from perfgate.errors import UserError
from perfgate.sim import harness, suite
from perfgate.sim.scaling import model as scaling
from perfgate.sim.scaling import threaded

_MEASURING = ("model", "suite", "threaded", "thread_child", "worker_dump", "hand_off")


def scaling_version(target_mode: str, valgrind: str, weights: Sequence[int], warmup: int) -> str:
    """`suite.sim_version` digesting the per-thread measuring code and the model too."""
    digest = hashlib.sha256(suite.sim_version(target_mode, valgrind, weights, warmup).encode())
    here = Path(__file__).parent
    for name in _MEASURING:
        digest.update((here / f"{name}.py").read_bytes())
    return f"simt-{digest.hexdigest()[:16]}"


class SimScalingBenchmark(abc.ABC):
    """Base of a simulated scaling family: subclasses set ``params``/``param_names`` (one of
    them ``thread_param``), define ``setup_cache`` (``return self.measure_cases()``) and a
    static ``sim_case``. Abstract, so asv never takes this base for a benchmark."""

    params: ClassVar[Any] = ()
    param_names: ClassVar[Sequence[str]] = ()
    thread_param: ClassVar[str] = "threads"
    sim_weights: ClassVar[tuple[int, ...]] = (1, 1)
    sim_warmup: ClassVar[int] = 1
    timeout: ClassVar[float] = 3600.0
    target_mode: ClassVar[str] = os.environ.get("PERFGATE_SIM_TARGET", "auto")
    version: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        valgrind = suite._installed_valgrind()
        cls.version = scaling_version(cls.target_mode, valgrind, cls.sim_weights, cls.sim_warmup)
        if "setup_cache" not in cls.__dict__:
            raise TypeError(
                f"{cls.__name__}: define setup_cache (return self.measure_cases()) in the "
                "class itself: asv shares one setup_cache per place it is defined"
            )

    @staticmethod
    @abc.abstractmethod
    def sim_case(*params: Any) -> Callable[[], object]:
        """Build one case at its thread count (never counted) and return one call of it."""

    @classmethod
    def sim_order(cls, combos: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The order in which one process builds and counts the selected cases."""
        return combos

    def _combinations(self) -> list[tuple[Any, ...]]:
        grids = self.params if isinstance(self.params[0], list | tuple) else [self.params]
        return list(itertools.product(*grids))

    def _asv_names(self, combo: tuple[Any, ...]) -> list[str]:
        cls = type(self)
        prefix = ".".join([*cls.__module__.split(".")[1:], cls.__name__])
        args = ", ".join(repr(p) for p in combo)
        return [f"{prefix}.{name}({args})" for name in scaling.SCALING_FIGURES]

    def measure_cases(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """Count every selected case per thread in one run: per parameter combination its
        figures, or ``{"skip": why}`` / ``{"error": why}``."""
        cls = type(self)
        combos = [
            c for c in self._combinations() if suite.selected(self._asv_names(c), os.environ)
        ]
        combos = cls.sim_order(combos)
        if not combos:
            return {}
        at = list(cls.param_names).index(cls.thread_param)
        pool = max(int(c[at]) for c in combos)
        cases = tuple(harness.SimCase(f"case{i:04d}", c) for i, c in enumerate(combos))
        root_name = cls.__module__.split(".")[0]
        root_path = next(iter(sys.modules[root_name].__path__))
        spec = harness.SimSpec(
            root_name, root_path, cls.__module__, cls.__name__, cases,
            tuple(cls.sim_weights), cls.sim_warmup,
        )  # fmt: skip
        try:
            stage = harness.stage_of(os.environ)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        outcome = threaded.measure(
            spec, pool, target_mode=cls.target_mode, timeout_s=cls.timeout, stage=stage
        )
        out: dict[tuple[Any, ...], dict[str, Any]] = {}
        for case in cases:
            if case.id in outcome.counts:
                out[case.params] = scaling.figures(outcome.counts[case.id], cls.sim_weights)
            elif case.id in outcome.skipped:
                out[case.params] = {"skip": outcome.skipped[case.id]}
            else:
                out[case.params] = {"error": outcome.failed.get(case.id, "not measured")}
        return out

    def _figure(
        self, cache: Mapping[tuple[Any, ...], Mapping[str, Any]], params: Any, name: str
    ) -> float:
        entry = cache.get(tuple(params))
        if entry is None:
            raise SkipNotImplemented("not selected for this run (PERFGATE_BENCH)")
        if "skip" in entry:
            raise SkipNotImplemented(entry["skip"])
        if "error" in entry:
            raise RuntimeError(f"sim scaling case failed:\n{entry['error']}")
        return float(entry[scaling.SCALING_FIGURES[name][0]])

    def track_efficiency(self, cache: Any, *params: Any) -> float:
        """Projected parallel efficiency E(T) (estimated cycles; 1.0 = perfect)."""
        return self._figure(cache, params, "track_efficiency")

    def track_serial_share(self, cache: Any, *params: Any) -> float:
        """The calling thread's serial work over all the work (estimated cycles)."""
        return self._figure(cache, params, "track_serial_share")

    def track_imbalance(self, cache: Any, *params: Any) -> float:
        """The largest worker share over the mean share (estimated cycles)."""
        return self._figure(cache, params, "track_imbalance")

    def track_critical_path(self, cache: Any, *params: Any) -> float:
        """Projected cycles per call on T free cores: serial work plus the largest share."""
        return self._figure(cache, params, "track_critical_path")

    def track_efficiency_instructions(self, cache: Any, *params: Any) -> float:
        """E(T) of instructions alone (does not move with where data lie)."""
        return self._figure(cache, params, "track_efficiency_instructions")

    def track_serial_share_instructions(self, cache: Any, *params: Any) -> float:
        """The serial share of instructions alone."""
        return self._figure(cache, params, "track_serial_share_instructions")

    def track_critical_path_instructions(self, cache: Any, *params: Any) -> float:
        """The critical path in instructions alone."""
        return self._figure(cache, params, "track_critical_path_instructions")

    track_efficiency.unit = "efficiency"  # type: ignore[attr-defined]
    track_serial_share.unit = "share"  # type: ignore[attr-defined]
    track_imbalance.unit = "ratio"  # type: ignore[attr-defined]
    track_critical_path.unit = "cycles"  # type: ignore[attr-defined]
    track_efficiency_instructions.unit = "efficiency"  # type: ignore[attr-defined]
    track_serial_share_instructions.unit = "share"  # type: ignore[attr-defined]
    track_critical_path_instructions.unit = "instructions"  # type: ignore[attr-defined]
