"""perfgate.sim.scaling.suite: the scaling family's asv face (figures, version, skips)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from perfgate.sim import suite
from perfgate.sim.scaling import suite as scaling_suite
from perfgate.sim.scaling.model import SCALING_DECISIVE, SCALING_FIGURES


class Toy(scaling_suite.SimScalingBenchmark):
    params = ([1, 2], [8, 64])
    param_names = ("n", "threads")
    sim_weights = (1, 3)

    def setup_cache(self) -> dict[object, object]:
        return {}

    @staticmethod
    def sim_case(n: int, threads: int) -> Callable[[], object]:
        return lambda: n


def test_the_version_is_not_the_single_thread_familys() -> None:
    """Figures of the per-thread measuring code are never compared with single-thread ones,
    and another weighting of the calls is another version."""
    assert Toy.version.startswith("simt-")
    valgrind = suite._installed_valgrind()
    assert Toy.version != suite.sim_version(Toy.target_mode, valgrind, (1, 3), 1)
    assert Toy.version != scaling_suite.scaling_version(Toy.target_mode, valgrind, (1, 1), 1)


def test_figures_read_the_cache_and_skip_what_was_not_counted() -> None:
    from asv_runner.benchmarks.mark import SkipNotImplemented

    figures = {name: float(i) for i, (name, _unit) in enumerate(SCALING_FIGURES.values())}
    cache = {(1, 8): figures, (2, 8): {"skip": "no such path"}, (1, 64): {"error": "boom"}}
    toy = Toy()
    assert toy.track_efficiency(cache, 1, 8) == figures["efficiency"]
    assert toy.track_serial_share_instructions(cache, 1, 8) == figures["serial_share_instructions"]
    with pytest.raises(SkipNotImplemented, match="no such path"):
        toy.track_efficiency(cache, 2, 8)
    with pytest.raises(SkipNotImplemented, match="not selected"):
        toy.track_efficiency(cache, 2, 64)
    with pytest.raises(RuntimeError, match="boom"):
        toy.track_imbalance(cache, 1, 64)
    assert SCALING_DECISIVE in SCALING_FIGURES
    assert Toy.track_efficiency.unit == "efficiency"  # type: ignore[attr-defined]


def test_nothing_selected_counts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERFGATE_BENCH", '["^nothing$"]')
    assert Toy().measure_cases() == {}


def test_asv_discovers_the_family_but_never_the_imported_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from asv_runner.discovery import disc_benchmarks

    bench = tmp_path / "scalingbench"
    bench.mkdir()
    (bench / "__init__.py").write_text("")
    (bench / "sim_toy.py").write_text(
        "from perfgate.sim.scaling.suite import SimScalingBenchmark\n\n"
        "class SimToy(SimScalingBenchmark):\n"
        "    params = ([8, 64],)\n"
        "    param_names = ('threads',)\n"
        "    def setup_cache(self):\n"
        "        return {}\n\n"
        "    @staticmethod\n"
        "    def sim_case(threads):\n"
        "        return lambda: threads\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        names = sorted(b.name for b in disc_benchmarks(str(bench)))
    finally:
        for name in [m for m in sys.modules if m.startswith("scalingbench")]:
            del sys.modules[name]
    assert names == sorted(f"sim_toy.SimToy.{n}" for n in SCALING_FIGURES)


def test_a_suite_written_against_the_old_path_still_imports_the_base_class() -> None:
    """``perfgate.sim.scaling_suite`` (before the scaling folder) names the same class."""
    from perfgate.sim import scaling_suite as old_path

    assert old_path.SimScalingBenchmark is scaling_suite.SimScalingBenchmark
