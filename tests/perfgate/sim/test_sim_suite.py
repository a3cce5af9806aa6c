"""perfgate.sim.suite: what a sim family measures and how its figures are versioned."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from perfgate.errors import UserError
from perfgate.sim import suite
from perfgate.sim.figures import DECISIVE, FIGURES


def test_selection_follows_the_runs_bench_regexes() -> None:
    """No PERFGATE_BENCH: every case (asv run by hand, asv-smoke, the history's runs); else
    a case is measured when any of its figures' names is selected."""
    names = ["sim_x.SimX.track_cycles('a', 2048)", "sim_x.SimX.track_ll_misses('a', 2048)"]
    assert suite.selected(names, {})
    assert suite.selected(names, {"PERFGATE_BENCH": json.dumps([r"ll_misses\('a'"])})
    assert not suite.selected(names, {"PERFGATE_BENCH": json.dumps(["65536"])})
    with pytest.raises(UserError, match="PERFGATE_BENCH: expected a JSON list"):
        suite.selected(names, {"PERFGATE_BENCH": "[not json"})


def test_the_version_changes_with_valgrind_and_the_target_mode() -> None:
    """Figures taken under another valgrind, or another JIT target mode, are not compared:
    the sim benchmarks' asv version differs."""
    base = suite.sim_version("auto", "3.19.0")
    assert base.startswith("sim-") and base == suite.sim_version("auto", "3.19.0")
    assert suite.sim_version("auto", "3.22.0") != base
    assert suite.sim_version("valgrind", "3.19.0") != base


def test_a_measured_process_runs_no_valgrind_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The harness names valgrind's version in the measured process's environment, which
    then starts no ``valgrind --version`` as it imports the suite: that child's timing set
    the process's memory layout, and two processes of one commit counted different Python
    work per call. Without the variable (asv's own process) valgrind is asked."""
    from perfgate.sim import callgrind, harness

    def asked() -> str:
        raise AssertionError("valgrind was run")

    monkeypatch.setattr(callgrind, "valgrind_version", asked)
    env = harness.measured_environment({}, {}, "3.19.0")
    assert env[callgrind.VERSION_VARIABLE] == "3.19.0"
    assert suite.installed_valgrind(env) == "3.19.0"
    monkeypatch.setattr(callgrind, "valgrind_version", lambda: "3.22.0")
    assert suite.installed_valgrind({}) == "3.22.0"


def test_a_family_that_counts_other_calls_has_another_version() -> None:
    """A family's figures are its weighted calls after its warm-up: changing either makes
    figures that are not compared with the old ones."""

    class Three(suite.SimBenchmark):
        sim_weights = (1, 1, 2)

        def setup_cache(self) -> None: ...

        @staticmethod
        def sim_case(*params: object) -> object: ...

    class Two(Three):
        sim_weights = (1, 3)

        def setup_cache(self) -> None: ...

    class Cold(Two):
        sim_warmup = 0

        def setup_cache(self) -> None: ...

    assert len({Three.version, Two.version, Cold.version}) == 3
    assert Two.version == suite.sim_version(
        Two.target_mode, suite._installed_valgrind(), (1, 3), 1
    )


def test_a_family_must_define_its_own_setup_cache() -> None:
    """asv shares one setup_cache per place it is defined: an inherited one would make two
    families share one measurement."""
    with pytest.raises(TypeError, match="define setup_cache"):

        class Inherits(suite.SimBenchmark):
            params = (1,)

    class Own(suite.SimBenchmark):
        params = (1,)

        def setup_cache(self) -> dict[object, object]:
            return {}

    assert {f"track_{n}" for n in ("cycles", "instructions", "l1_misses", "ll_misses")} == set(
        FIGURES
    )
    assert DECISIVE in FIGURES and callable(Own.track_cycles)
    assert Own.track_cycles.unit == "cycles"  # type: ignore[attr-defined]


def test_asv_discovers_a_family_but_never_the_imported_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """asv collects every public class of a benchmark module, imported ones too: the base
    (abstract) must not become a benchmark whose ``track_*`` asv cannot call (``asv check``
    failed on it)."""
    from asv_runner.discovery import disc_benchmarks

    bench = tmp_path / "discoverbench"
    bench.mkdir()
    (bench / "__init__.py").write_text("")
    (bench / "sim_toy.py").write_text(
        "from perfgate.sim.suite import SimBenchmark\n\n"
        "class SimToy(SimBenchmark):\n"
        "    params = ([1, 2],)\n"
        "    def setup_cache(self):\n"
        "        return {}\n\n"
        "    @staticmethod\n"
        "    def sim_case(n):\n"
        "        return lambda: n\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        names = sorted(b.name for b in disc_benchmarks(str(bench)))
    finally:  # another test's toy suite is a package of its own name: leave none behind
        for name in [m for m in sys.modules if m.startswith("discoverbench")]:
            del sys.modules[name]
    assert names == sorted(f"sim_toy.SimToy.{n}" for n in FIGURES)


def test_a_case_not_counted_is_skipped_never_failed() -> None:
    """asv reports a plain NotImplementedError raised by a benchmark as a failure (only one
    raised by setup is a skip): a case the run did not select (PERFGATE_BENCH) or the suite
    skipped must be asv's SkipNotImplemented, or `asv run` of every suite exits non-zero."""
    from asv_runner.benchmarks.mark import SkipNotImplemented

    class Toy(suite.SimBenchmark):
        params = ([1, 2, 3],)

        def setup_cache(self) -> dict[object, object]:
            return {}

        @staticmethod
        def sim_case(n: int) -> Callable[[], object]:
            return lambda: n

    cache = {(1,): {"cycles": 5.0}, (2,): {"skip": "no such profile"}}
    assert Toy().track_cycles(cache, 1) == 5.0
    for n, why in ((2, "no such profile"), (3, "not selected")):
        with pytest.raises(SkipNotImplemented, match=why):
            Toy().track_cycles(cache, n)
    with pytest.raises(RuntimeError, match="sim case failed"):
        Toy().track_cycles({(1,): {"error": "boom"}}, 1)
