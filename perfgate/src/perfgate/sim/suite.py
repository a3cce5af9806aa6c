"""An asv base class for simulated benchmarks: their figures are ordinary asv results.

A project writes one subclass per family (see ``benchmarks/sim_hot_slice.py``): ``params``
and ``param_names``, a ``setup_cache`` that returns ``self.measure_cases()``, and a static
``sim_case(*params)`` that builds the case (never counted) and returns one call of it, as
the wall clock times it. ``setup_cache`` runs the harness once per asv run (one native pass,
one valgrind process for every selected case); the ``track_*`` benchmarks then read their
case's figure per call: ``track_cycles`` (the cost model's estimate) and the events behind
it, ``track_instructions``, ``track_l1_misses`` and ``track_ll_misses``. A case the suite
skips (NotImplementedError) or the run did not select is a skipped result; a case that
fails is a failure; valgrind missing fails every case with the install command.

The gate passes the run's ``--bench`` regexes in ``PERFGATE_BENCH`` (a JSON list), the JIT
target mode in ``PERFGATE_SIM_TARGET`` and the stage in ``PERFGATE_SIM_PREPARE`` (``1``:
prepare only, `perfgate.sim.phase.prepare`; ``done``: count, `perfgate.sim.harness.Stage`).
The benchmarks' asv ``version`` digests the measuring code, the cost model, the simulated
caches, valgrind's version and the target mode: figures taken under different ones are
never compared. docs/sim.md ("Writing a sim family") has a whole example.
"""

from __future__ import annotations

import abc
import functools
import hashlib
import itertools
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from asv_runner.benchmarks.mark import SkipNotImplemented

from perfgate.errors import UserError
from perfgate.sim import callgrind, cost, harness
from perfgate.sim.figures import FIGURES

_MEASURING = ("client", "callgrind", "cost", "child", "figures", "harness", "target")


def selected(names: Sequence[str], environ: Mapping[str, str]) -> bool:
    """True when asv's ``--bench`` regexes of this run (``PERFGATE_BENCH``) select any of
    ``names`` (``benchmark(param, ...)`` as asv matches them); no variable: everything."""
    text = environ.get("PERFGATE_BENCH")
    if not text:
        return True
    try:
        regexes = json.loads(text)
    except ValueError:
        raise UserError(f"PERFGATE_BENCH: expected a JSON list of regexes, got {text!r}") from None
    return any(re.search(r, n) for r in regexes for n in names)


def sim_version(
    target_mode: str, valgrind: str, weights: Sequence[int] = (), warmup: int = 0
) -> str:
    """The asv version of a family's sim benchmarks: what must be equal for two figures to
    be compared (measuring code, cost model, simulated caches, valgrind, JIT target mode, and
    the family's measured calls: their weights and the warm-up calls before them)."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in _MEASURING:
        digest.update((here / f"{name}.py").read_bytes())
    fields = [cost.MODEL, callgrind.cache_text(), f"valgrind {valgrind}", f"target {target_mode}"]
    if weights:
        fields.append(f"calls {','.join(map(str, weights))} after {warmup} warm-up")
    digest.update("\n".join(fields).encode())
    return f"sim-{digest.hexdigest()[:16]}"


@functools.cache
def _installed_valgrind() -> str:
    """valgrind's version, asked once per process (`installed_valgrind` of its environment)."""
    return installed_valgrind(os.environ)


def installed_valgrind(environ: Mapping[str, str]) -> str:
    """valgrind's version ("missing" without it); in a measured process, the one its harness
    names (`callgrind.VERSION_VARIABLE`), nothing run.

    Why: run from the measured process (the class bodies below need the version, and the
    process imports the suite before its first case), ``valgrind --version`` is a child
    process whose timing shapes the heap: whether its output, its end of output and its exit
    came in one ``poll`` or several, and whether ``wait`` had to sleep, changed what the
    ``subprocess`` module allocated and freed. From there on everything the process mapped
    (kernel code, arrays) lay a few pages elsewhere: measured (two processes of one commit,
    ``--trace-syscalls=yes``), the first difference of their system calls was that ``poll``
    loop, the mappings differed from the next import on, and the calling thread's Python
    work per call moved by up to ~7,000 instructions (malloc, dictionary and type-cache
    lookups keyed by addresses).
    """
    given = environ.get(callgrind.VERSION_VARIABLE, "").strip()
    if given:
        return given
    try:
        return callgrind.valgrind_version()
    except UserError:
        return "missing"


class SimBenchmark(abc.ABC):
    """Base of a simulated family: subclasses set ``params``/``param_names``, define
    ``setup_cache`` (``return self.measure_cases()``) and a static ``sim_case``.

    Abstract (``sim_case``) so that asv, which collects every public class of a benchmark
    module, imported ones included, never takes this base for a benchmark of its own."""

    params: ClassVar[Any] = ()
    param_names: ClassVar[Sequence[str]] = ()
    #: one weight per measured call of a case (the figures are their weighted mean per call,
    #: e.g. (1, 3) for a logging step and a plain step of a loop that logs every 4th step),
    #: and the warm-up calls before them (instrumented, not counted: they fill the caches)
    sim_weights: ClassVar[tuple[int, ...]] = (1, 1, 1, 1)
    sim_warmup: ClassVar[int] = 1
    timeout: ClassVar[float] = 3600.0
    target_mode: ClassVar[str] = os.environ.get("PERFGATE_SIM_TARGET", "auto")
    version: ClassVar[str] = sim_version(target_mode, _installed_valgrind())

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.version = sim_version(
            cls.target_mode, _installed_valgrind(), cls.sim_weights, cls.sim_warmup
        )
        if "setup_cache" not in cls.__dict__:
            raise TypeError(
                f"{cls.__name__}: define setup_cache (return self.measure_cases()) in the "
                "class itself: asv shares one setup_cache per place it is defined"
            )

    @staticmethod
    @abc.abstractmethod
    def sim_case(*params: Any) -> Callable[[], object]:
        """Build one case (never counted) and return one call of it."""

    @classmethod
    def sim_order(cls, combos: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The order in which one process builds and counts the selected cases (default:
        asv's). A suite whose cases share costly inputs puts those cases next to each other,
        so that each input is built once per run."""
        return combos

    def _combinations(self) -> list[tuple[Any, ...]]:
        if not self.params:
            return [()]
        grids = self.params if isinstance(self.params[0], list | tuple) else [self.params]
        return list(itertools.product(*grids))

    def _asv_names(self, combo: tuple[Any, ...]) -> list[str]:
        cls = type(self)
        prefix = ".".join([*cls.__module__.split(".")[1:], cls.__name__])
        args = ", ".join(repr(p) for p in combo)
        return [f"{prefix}.{name}({args})" if combo else f"{prefix}.{name}" for name in FIGURES]

    def measure_cases(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """Measure every selected case in one harness run: per parameter combination its
        figures per call, or ``{"skip": why}`` / ``{"error": why}``."""
        cls = type(self)
        combos = [c for c in self._combinations() if selected(self._asv_names(c), os.environ)]
        combos = cls.sim_order(combos)
        cases = tuple(harness.SimCase(f"case{i:04d}", c) for i, c in enumerate(combos))
        root_name = cls.__module__.split(".")[0]
        root_path = next(iter(sys.modules[root_name].__path__))  # asv's benchmark folder
        spec = harness.SimSpec(
            root_name,
            root_path,
            cls.__module__,
            cls.__name__,
            cases,
            tuple(cls.sim_weights),
            cls.sim_warmup,
        )
        try:
            stage = harness.stage_of(os.environ)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        outcome = harness.measure(
            spec, target_mode=cls.target_mode, timeout_s=cls.timeout, stage=stage
        )
        out: dict[tuple[Any, ...], dict[str, Any]] = {}
        for case in cases:
            if case.id in outcome.events:
                out[case.params] = cost.per_call(outcome.events[case.id], cls.sim_weights)
            elif case.id in outcome.skipped:
                out[case.params] = {"skip": outcome.skipped[case.id]}
            else:
                out[case.params] = {"error": outcome.failed.get(case.id, "not measured")}
        return out

    def _figure(
        self,
        cache: Mapping[tuple[Any, ...], Mapping[str, Any]],
        params: tuple[Any, ...],
        benchmark: str,
    ) -> float:
        entry = cache.get(tuple(params))
        if entry is None:
            raise SkipNotImplemented("not selected for this run (PERFGATE_BENCH)")
        if "skip" in entry:
            raise SkipNotImplemented(entry["skip"])
        if "error" in entry:
            raise RuntimeError(f"sim case failed:\n{entry['error']}")
        return float(entry[FIGURES[benchmark][0]])

    def track_cycles(self, cache: Any, *params: Any) -> float:
        """Estimated cycles per call (the cost model of `perfgate.sim.cost`)."""
        return self._figure(cache, params, "track_cycles")

    def track_instructions(self, cache: Any, *params: Any) -> float:
        """Instructions executed per call."""
        return self._figure(cache, params, "track_instructions")

    def track_l1_misses(self, cache: Any, *params: Any) -> float:
        """First-level cache misses per call (instruction and data)."""
        return self._figure(cache, params, "track_l1_misses")

    def track_ll_misses(self, cache: Any, *params: Any) -> float:
        """Last-level cache misses per call (instruction and data)."""
        return self._figure(cache, params, "track_ll_misses")

    track_cycles.unit = "cycles"  # type: ignore[attr-defined]
    track_instructions.unit = "instructions"  # type: ignore[attr-defined]
    track_l1_misses.unit = "misses"  # type: ignore[attr-defined]
    track_ll_misses.unit = "misses"  # type: ignore[attr-defined]
