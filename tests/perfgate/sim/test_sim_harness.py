"""perfgate.sim.harness through a toy sim suite, under the real valgrind: determinism
between processes, counts that follow the work, skips and failures per case, selection."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

SUITE = textwrap.dedent(
    """
    from perfgate.sim.suite import SimBenchmark


    class SimToy(SimBenchmark):
        params = [1, 2, 3, 4]
        param_names = ["n"]
        sim_weights = (1, 1)

        def setup_cache(self):
            return self.measure_cases()

        @staticmethod
        def sim_case(n):
            if n == 3:
                raise NotImplementedError("no case 3 at this commit")
            if n == 4:
                raise RuntimeError("case 4 is broken")
            data = list(range(2000 * n))

            def call():
                return sum(x * x for x in data)

            return call
    """
)


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    """The toy suite, imported as asv would (its folder a package)."""
    package = tmp_path / "toybench"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sim_toy.py").write_text(SUITE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.delenv("PERFGATE_BENCH", raising=False)
    from toybench import sim_toy  # type: ignore[import-not-found]

    yield sim_toy.SimToy
    for name in [m for m in sys.modules if m.startswith("toybench")]:
        del sys.modules[name]


def test_two_processes_count_the_same_and_the_counts_follow_the_work(toy: type) -> None:
    """Each case counted in two separate valgrind processes gives the same instructions and
    cycles within 0.01% (the gate's tolerance is 0.1%); twice
    the data is about twice the instructions; a NotImplementedError is a skip and any other
    error a failure of that case alone."""
    first, second = toy().measure_cases(), toy().measure_cases()
    assert first.keys() == second.keys()
    for params, figures in first.items():  # one L1 miss in a million cycles was seen apart
        if "cycles" in figures:
            assert figures["instructions"] == second[params]["instructions"]
            assert figures["cycles"] == pytest.approx(second[params]["cycles"], rel=1e-4)
        else:
            assert figures == second[params]
    one, two = first[(1,)], first[(2,)]
    assert 1.8 < two["instructions"] / one["instructions"] < 2.2
    assert one["cycles"] >= one["instructions"] > 0
    assert first[(3,)] == {"skip": "no case 3 at this commit"}
    assert "case 4 is broken" in first[(4,)]["error"]


def test_only_the_selected_cases_are_counted(toy: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """PERFGATE_BENCH (the run's --bench regexes) selects the cases the harness measures;
    a figure asked of a case not measured is a skip, as in asv."""
    monkeypatch.setenv("PERFGATE_BENCH", json.dumps([r"track_cycles\(2\)$"]))
    suite = toy()
    measured = suite.measure_cases()
    assert list(measured) == [(2,)]
    assert suite.track_instructions(measured, 2) == measured[(2,)]["instructions"]
    with pytest.raises(NotImplementedError, match="not selected"):
        suite.track_cycles(measured, 1)


def test_a_preparing_run_reports_nothing(toy: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """PERFGATE_SIM_PREPARE=1 (the gate's preparing runs): every case built and called
    natively, none reported (a skip), a broken case still a failure."""
    from perfgate.sim.harness import PREPARE_VARIABLE, PREPARED

    monkeypatch.setenv(PREPARE_VARIABLE, "1")
    measured = toy().measure_cases()
    assert measured[(1,)] == {"skip": PREPARED} == measured[(2,)]
    assert measured[(3,)] == {"skip": "no case 3 at this commit"}
    assert "case 4 is broken" in measured[(4,)]["error"]


def test_a_counting_run_after_preparing_counts_as_a_run_of_both_passes(
    toy: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERFGATE_SIM_PREPARE=done (the gate's counting runs): the simulated pass alone gives
    the counts a run of both passes gives. Both runs see environments of the same size (the
    variable blank, which asks for both passes, then "done"): the process's stack moves with
    the bytes of its environment, and its simulated cache misses with it."""
    from perfgate.sim.harness import PREPARE_DONE, PREPARE_VARIABLE

    monkeypatch.setenv("PERFGATE_BENCH", json.dumps([r"\(2\)$"]))
    monkeypatch.setenv(PREPARE_VARIABLE, " " * len(PREPARE_DONE))
    both = toy().measure_cases()
    monkeypatch.setenv(PREPARE_VARIABLE, "done")
    counted = toy().measure_cases()
    assert counted.keys() == both.keys() == {(2,)}
    assert counted[(2,)]["instructions"] == both[(2,)]["instructions"] > 0
    assert counted[(2,)]["cycles"] == pytest.approx(both[(2,)]["cycles"], rel=1e-4)


def test_a_bad_stage_names_the_variable_and_its_values(
    toy: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perfgate.errors import UserError
    from perfgate.sim.harness import PREPARE_VARIABLE

    monkeypatch.setenv(PREPARE_VARIABLE, "yes")
    with pytest.raises(UserError, match=f"{PREPARE_VARIABLE}: expected '1'.*'done'.*'yes'"):
        toy().measure_cases()


def test_the_variables_a_sim_run_reads_reach_its_process() -> None:
    """Every child gets an allow-list environment without secrets (names with PASS, KEY,
    TOKEN, ...): a variable the sim suite reads must survive it (PERFGATE_SIM_PASS did not,
    so the gate's preparing runs counted every case under valgrind)."""
    from perfgate.secrets import child_environment
    from perfgate.sim.attribution.keep import PROFILES_VARIABLE
    from perfgate.sim.child import LAYOUT_VARIABLE
    from perfgate.sim.harness import PREPARE_VARIABLE

    names = (PREPARE_VARIABLE, LAYOUT_VARIABLE, "PERFGATE_BENCH", "PERFGATE_SIM_TARGET")
    names += (PROFILES_VARIABLE,)
    seen = child_environment({name: "1" for name in names})
    assert set(names) <= set(seen)


def test_a_shifted_layout_runs_the_same_instructions(
    toy: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERFGATE_SIM_LAYOUT=1 (the base's second count in a gate run): the process's data lie
    elsewhere, and the instructions counted are those of an unshifted process."""
    from perfgate.sim.child import LAYOUT_VARIABLE

    monkeypatch.setenv("PERFGATE_BENCH", json.dumps([r"\(2\)$"]))
    plain = toy().measure_cases()
    monkeypatch.setenv(LAYOUT_VARIABLE, "1")
    shifted = toy().measure_cases()
    assert plain.keys() == shifted.keys() == {(2,)}
    assert shifted[(2,)]["instructions"] == pytest.approx(plain[(2,)]["instructions"], rel=1e-4)


def test_a_bad_layout_shift_is_refused_naming_the_variable() -> None:
    from perfgate.sim.child import LAYOUT_VARIABLE, layout_steps, shift_layout

    assert layout_steps({}) == 0 and layout_steps({LAYOUT_VARIABLE: "2"}) == 2
    with pytest.raises(ValueError, match=LAYOUT_VARIABLE):
        layout_steps({LAYOUT_VARIABLE: "-1"})
    assert shift_layout(0) == []
    mapped, chunk = shift_layout(1)
    assert len(mapped) == 70 * 4096 and chunk  # type: ignore[arg-type]


def test_the_measured_process_is_one_unbound_thread() -> None:
    """The gate's codegen environment binds OpenMP threads (OMP_PROC_BIND=close): in the
    measured process that bound every run to the first core, and the base, the head and
    the base again, meant to count at once, shared it. The measured process gets one thread
    and no binding, whatever the run's environment says."""
    from perfgate.sim.harness import measured_environment

    given = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores", "NUMBA_NUM_THREADS": "2"}
    env = measured_environment(given, {"NUMBA_CPU_NAME": "haswell"}, "3.19.0")
    assert env["OMP_PROC_BIND"] == "false" and env["KMP_AFFINITY"] == "disabled"
    assert env["NUMBA_NUM_THREADS"] == "1" and env["NUMBA_CPU_NAME"] == "haswell"


def test_the_harness_variables_do_not_reach_the_measured_process() -> None:
    """The stage (PERFGATE_SIM_PREPARE) and the profiles folder are read by the harness
    only: passed on, their values' lengths moved the measured process's stack between a run
    of both passes and a counting run, and the counting run's cycles differed."""
    from perfgate.sim.attribution.keep import PROFILES_VARIABLE
    from perfgate.sim.harness import PREPARE_VARIABLE, measured_environment

    given = {PREPARE_VARIABLE: "done", PROFILES_VARIABLE: "/tmp/kept", "KEEP_ME": "1"}
    env = measured_environment(given, {}, "3.19.0")
    assert PREPARE_VARIABLE not in env and PROFILES_VARIABLE not in env
    assert env["KEEP_ME"] == "1"
