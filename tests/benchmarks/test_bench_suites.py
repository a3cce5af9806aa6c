"""The asv suites: they import, their params are well formed, missing features skip."""

from __future__ import annotations

import importlib
import inspect
import itertools
import pkgutil
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import benchmarks  # noqa: E402
from benchmarks import (  # noqa: E402
    _common,
    collector,
    compile_time,
    hot_slice,
    paired_ratio,
    segments,
    thread_scaling,
)

SUITES = [m.name for m in pkgutil.iter_modules(benchmarks.__path__) if not m.name.startswith("_")]
BENCH_PREFIXES = ("time_", "track_", "mem_", "peakmem_", "timeraw_")


def suite_classes() -> list[tuple[str, type]]:
    found = []
    for name in SUITES:
        module = importlib.import_module(f"benchmarks.{name}")
        for attr, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                if any(m.startswith(BENCH_PREFIXES) for m in dir(value)):  # as asv: inherited too
                    found.append((f"{name}.{attr}", value))
    return found


def test_every_suite_module_imports_and_defines_benchmarks() -> None:
    """Each module of benchmarks/ holds at least one benchmark class."""
    assert set(SUITES) >= {
        "hot_slice", "paired_ratio", "thread_scaling", "segments", "compile_time", "collector"
    }  # fmt: skip
    assert {name.split(".")[0] for name, _ in suite_classes()} == set(SUITES)


def test_common_module_defines_nothing_asv_would_collect() -> None:
    """asv imports _common too; none of its names may look like a benchmark."""
    for name in vars(_common):
        assert not name.startswith(BENCH_PREFIXES)
        assert not (name[:5] in ("Time", "Track") and name[5:6].isupper())


@pytest.mark.parametrize(("name", "cls"), suite_classes())
def test_params_are_well_formed(name: str, cls: type) -> None:
    """One name per axis, non-empty axes of unique plain values, a timeout, units on tracks."""
    params, names = cls.params, cls.param_names  # type: ignore[attr-defined]
    assert len(params) == len(names) == len(set(names)), name
    for axis in params:
        assert len(axis) > 0 and len(set(axis)) == len(axis), name
        assert all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in axis), name
    assert float(cls.timeout) >= 60.0  # type: ignore[attr-defined]
    for attr in dir(cls):
        if attr.startswith("track_"):
            method = getattr(cls, attr)
            assert getattr(method, "unit", getattr(cls, "unit", None)), f"{name}.{attr}"
    if not hasattr(cls, "setup"):  # a sim family: its cases are built by sim_case
        setup = cls.sim_case  # type: ignore[attr-defined]
        assert list(inspect.signature(setup).parameters) == list(names), name
        return
    setup_args = list(inspect.signature(cls.setup).parameters)[1:]  # type: ignore[attr-defined]
    if hasattr(cls, "setup_cache"):  # asv passes setup_cache's value first
        setup_args = setup_args[1:]
    assert setup_args == list(names), name


def test_default_and_full_grids() -> None:
    """The default grid fits two cores; the full one reaches 262144 envs and 160 threads."""
    assert _common.grid("num_envs", {}) == (2048, 65536)
    assert _common.grid("threads", {}) == (1, 2)
    full = {"PERFGATE_GRID": "full"}
    assert max(_common.grid("num_envs", full)) == 262144
    assert max(_common.grid("threads", full)) == 160
    assert _common.grid("profiles", full) == ("sac_default", "ppo_default", "full_supported")
    with pytest.raises(ValueError, match="PERFGATE_GRID"):
        _common.grid("threads", {"PERFGATE_GRID": "huge"})


def test_runner_grid_takes_its_threads_from_the_environment() -> None:
    """The gate's runner grid: N 2048/8192/65536, two profiles, PERFGATE_THREADS' counts."""
    runner = {"PERFGATE_GRID": "runner", "PERFGATE_THREADS": "2,1,2"}
    assert _common.grid("threads", runner) == (1, 2)
    assert _common.grid("num_envs", runner) == (2048, 8192, 65536)
    assert _common.grid("profiles", runner) == ("sac_default", "ppo_default")
    for bad in ("", "1,x", "0,2"):
        with pytest.raises(ValueError, match="PERFGATE_THREADS"):
            _common.grid("threads", {"PERFGATE_GRID": "runner", "PERFGATE_THREADS": bad})


def test_missing_modules_skip_but_broken_imports_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the absence of the probed module is a skip; a broken import inside it raises."""
    with pytest.raises(NotImplementedError, match="does not exist"):
        _common.import_optional("termplan.no_such_module")
    (tmp_path / "pg_broken_mod.py").write_text("import pg_not_installed_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="pg_not_installed_anywhere"):
        _common.import_optional("pg_broken_mod")


def test_unknown_task_path_profile_and_threads_skip() -> None:
    """Features the commit lacks raise NotImplementedError (asv: skipped, n/a)."""
    with pytest.raises(NotImplementedError, match="not registered"):
        _common.require_task("no_such_task")
    with pytest.raises(NotImplementedError, match="no path"):
        _common.require_case("g1_walk", "sac_default", "no_such_path")
    with pytest.raises(NotImplementedError, match="no profile"):
        _common.require_case("g1_walk", "no_such_profile", "numpy")
    with pytest.raises(NotImplementedError, match="NUMBA_NUM_THREADS"):
        _common.require_threads(10**6)
    assert _common.usable_threads([1, 10**6]) == [1]


def _drop_path(monkeypatch: pytest.MonkeyPatch, task: str, path: str) -> None:
    module = _common.require_task(task)
    monkeypatch.setattr(module, "PATHS", tuple(p for p in module.PATHS if p != path))


SKIPPED_SETUPS: list[tuple[Any, tuple[Any, ...]]] = [
    (hot_slice.HotSlice, ("g1_walk", "sac_default", "assembled", 2048, 1)),
    (paired_ratio.PairedRatio, ("g1_walk", "sac_default", "assembled/handwritten", 2048, 1)),
    (thread_scaling.ThreadScaling, ("g1_walk", "assembled", 2048)),
    (segments.AssembledSegments, ("g1_walk", "execute", 2048, 1)),
    (compile_time.CompileTime, ("g1_walk", "assembled", "cold")),
    (collector.Collector, ("g1_walk", "assembled")),
]


@pytest.mark.parametrize(("cls", "args"), SKIPPED_SETUPS)
def test_every_suite_skips_when_the_path_is_missing(
    cls: Any, args: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a commit without the assembled path, every suite's setup skips (and teardown copes)."""
    _drop_path(monkeypatch, "g1_walk", "assembled")
    monkeypatch.setattr(_common, "usable_threads", lambda counts: [1, 2])
    bench = cls()
    lead = ({},) if hasattr(bench, "setup_cache") else ()
    with pytest.raises(NotImplementedError, match="no path 'assembled'"):
        bench.setup(*lead, *args)
    if hasattr(bench, "teardown"):
        bench.teardown(*lead, *args)


def test_numpy_runs_single_threaded_only() -> None:
    """The NumPy path is timed at threads=1; other counts skip."""
    with pytest.raises(NotImplementedError, match="single-threaded"):
        hot_slice.HotSlice().setup("g1_walk", "sac_default", "numpy", 2048, 2)


def test_collector_skips_without_the_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit without termplan.collector.run skips the collector suite."""
    monkeypatch.setitem(sys.modules, "termplan.collector.run", None)
    with pytest.raises(NotImplementedError, match="termplan.collector.run"):
        collector.Collector().setup("g1_walk", "numpy")


def test_thread_scaling_skips_on_a_one_thread_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scaling needs at least two usable thread counts."""
    monkeypatch.setattr(thread_scaling, "usable_threads", lambda counts: [1])
    with pytest.raises(NotImplementedError, match=">= 2 thread counts"):
        thread_scaling.ThreadScaling().setup("g1_walk", "handwritten", 2048)


def test_segments_skip_without_timing_api() -> None:
    """No runtime.times accumulator: skipped; a shrinking accumulator is an error."""
    with pytest.raises(NotImplementedError, match="runtime.times"):
        segments.segment_times(object())
    assert segments.segment_delta(1.0, 1.5, "bind") == 0.5
    with pytest.raises(ValueError, match="runtime.times.bind"):
        segments.segment_delta(2.0, 1.0, "bind")


def test_real_numpy_case_advances_the_step_per_call() -> None:
    """A Case builds through termplan's public API, warms once, then counts steps."""
    case = _common.Case("g1_walk", "sac_default", "numpy", 7, 1)
    assert case.step == 1
    out = case.call()
    assert case.step == 2 and out.reward.shape == (7,)
    assert case.timed_call() > 0.0 and case.step == 3


class _FakeCase:
    def __init__(self, name: str, times: list[float], log: list[str]) -> None:
        self.name, self.times, self.log = name, iter(times), log

    def call(self) -> None:
        self.log.append(f"warm-{self.name}")

    def timed_call(self) -> float:
        self.log.append(self.name)
        return next(self.times)


def test_interleaved_medians_rotate_the_order_and_take_medians() -> None:
    """Rounds alternate which case goes first; the result is the per-case median."""
    log: list[str] = []
    a = _FakeCase("a", [1.0, 9.0, 2.0], log)
    b = _FakeCase("b", [5.0, 4.0, 6.0], log)
    medians = _common.interleaved_medians(
        [a, b],
        min_rounds=3,
        max_rounds=3,
        warmup_rounds=1,  # type: ignore[list-item]
    )
    assert medians == [2.0, 5.0]
    assert log == ["warm-a", "warm-b", "a", "b", "b", "a", "a", "b"]
    with pytest.raises(ValueError, match="min_rounds"):
        _common.interleaved_medians([a], min_rounds=3, max_rounds=2)  # type: ignore[list-item]


def test_scaling_summaries() -> None:
    """Best count and efficiency from medians; malformed input is a ValueError."""
    assert thread_scaling.best_threads([1, 2, 4], [4.0, 2.5, 2.5]) == 2
    assert thread_scaling.parallel_efficiency([1, 2, 4], [4.0, 2.5, 2.0]) == 0.5
    with pytest.raises(ValueError, match="counts"):
        thread_scaling.parallel_efficiency([2, 4], [1.0, 1.0])
    with pytest.raises(ValueError, match="one median"):
        thread_scaling.best_threads([1, 2], [1.0])


def test_pairs_and_probe_output() -> None:
    """Pair names split into two paths; the compile probe's output is parsed strictly."""
    assert paired_ratio.split_pair("assembled/handwritten") == ("assembled", "handwritten")
    for bad in ("assembled", "a/", "/b", "a/b/c"):
        with pytest.raises(ValueError, match="variant/baseline"):
            paired_ratio.split_pair(bad)
    assert compile_time.parse_probe_output('noise\n{"seconds": 1.5}\n') == 1.5
    for bad in ("", "not json", '{"s": 1}', '{"seconds": 0}'):
        with pytest.raises(ValueError, match="compile probe"):
            compile_time.parse_probe_output(bad)


def test_cold_probes_compile_each_present_path_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """setup_cache probes every task/path the commit has, once, each into its own folder; a
    missing path is left out and a failed probe is kept as that path's error."""
    _drop_path(monkeypatch, "g1_walk", "assembled")
    calls: list[tuple[str, str, Path]] = []

    def probe(task: str, path: str, cache_dir: Path) -> float:
        calls.append((task, path, cache_dir))
        if task == "motion_tracking" and path == "assembled":
            raise RuntimeError("compile probe motion_tracking/assembled failed: boom")
        return 2.5

    monkeypatch.setattr(compile_time, "run_probe", probe)
    got = compile_time.cold_probes(tmp_path)
    assert sorted(got) == [
        "g1_walk/handwritten", "motion_tracking/assembled", "motion_tracking/handwritten"
    ]  # fmt: skip
    assert got["g1_walk/handwritten"] == {
        "seconds": 2.5, "cache": str(tmp_path / "g1_walk" / "handwritten")
    }  # fmt: skip
    assert len({c for _, _, c in calls}) == len(calls) == 3
    assert "boom" in got["motion_tracking/assembled"]["error"]


def test_cold_reports_the_setup_cache_probe_and_warm_loads_its_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cold = the setup_cache probe's seconds (no new compile); warm = one probe on the cache
    that probe filled; a failed or missing probe fails the case, it never reads as a time."""
    calls: list[Path] = []
    monkeypatch.setattr(compile_time, "run_probe", lambda task, path, d: calls.append(d) or 0.25)
    probes = {"g1_walk/assembled": {"seconds": 9.0, "cache": str(tmp_path)}}
    bench = compile_time.CompileTime()
    bench.setup(probes, "g1_walk", "assembled", "cold")
    assert bench.track_first_call(probes, "g1_walk", "assembled", "cold") == 9.0
    assert calls == []
    bench.setup(probes, "g1_walk", "assembled", "warm")
    assert bench.track_first_call(probes, "g1_walk", "assembled", "warm") == 0.25
    assert calls == [tmp_path]
    with pytest.raises(RuntimeError, match="boom"):
        bench.setup({"g1_walk/assembled": {"error": "boom"}}, "g1_walk", "assembled", "warm")
    with pytest.raises(RuntimeError, match="did not run"):
        bench.setup({}, "g1_walk", "assembled", "cold")


@pytest.mark.subprocess
def test_preload_imports_without_starting_threads() -> None:
    """The suites preload termplan and Numba's contexts where asv's forkserver imports them,
    and start no thread pool there (the forked cases would inherit a broken one)."""
    import subprocess

    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import benchmarks._common as c;"
        "import numba.np.ufunc.parallel as p;"
        "print(c.PRELOADED, p._is_initialized, 'termplan.tasks.g1_walk' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(REPO)], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["True", "False", "True"]


def test_preload_failure_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit whose termplan cannot be imported leaves the report to each case's setup."""

    def broken(name: str) -> Any:
        raise ImportError(f"cannot import {name}")

    monkeypatch.setattr(_common.importlib, "import_module", broken)
    assert _common.preload() is False


class _BuiltCase:
    """Stands in for a built hot slice: counts builds and calls, 4 ms a call."""

    built: ClassVar[list[tuple[Any, ...]]] = []

    def __init__(self, *params: Any) -> None:
        self.params, self.step = params, 0
        _BuiltCase.built.append(params)

    def call(self) -> None:
        self.step += 1

    def timed_call(self) -> float:
        self.call()
        return 0.004


@pytest.fixture
def fake_cases(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """hot_slice builds `_BuiltCase`s, from an empty per-process cache."""
    _BuiltCase.built = []
    monkeypatch.setattr(hot_slice, "Case", _BuiltCase)
    monkeypatch.setattr(hot_slice, "_built", None)
    return _BuiltCase.built


def test_calls_per_sample() -> None:
    """One sample batches about sample_time of calls, at least one call."""
    assert hot_slice.calls_per_sample(0.3, 0.02) == 1
    assert hot_slice.calls_per_sample(0.001, 0.02) == 20
    assert hot_slice.calls_per_sample(0.0, 0.02) == 1


def test_hot_slice_setup_builds_once_per_process(fake_cases: list[tuple[Any, ...]]) -> None:
    """Repeated setups of one case hand out the same built case (its step counter goes on)
    with number chosen from its calibration calls; another case is built afresh."""
    params = ("g1_walk", "sac_default", "assembled", 2048, 1)
    bench = hot_slice.HotSlice()
    bench.setup(*params)
    first = bench.case
    bench.time_compute(*params)
    bench.setup(*params)
    assert bench.case is first and fake_cases == [params]
    assert bench.number == 5  # 0.02 s / 4 ms
    assert first.step == 3 + 1  # 3 calibration calls (12 ms < 20 ms), then the timed one
    other = ("g1_walk", "sac_default", "assembled", 8192, 1)
    bench.setup(*other)
    assert bench.case is not first and fake_cases == [params, other]


def test_asv_runner_times_consecutive_calls_of_one_build(
    fake_cases: list[tuple[Any, ...]],
) -> None:
    """Through asv_runner's own timing code (which re-runs setup before every timed call of
    a benchmark with a setup): one build, number from setup, every call advancing the step."""
    from asv_runner.discovery import _get_benchmark

    bench = _get_benchmark("time_compute", hot_slice, hot_slice.HotSlice, None)
    assert bench is not None
    params = ("g1_walk", "sac_default", "handwritten", 2048, 1)
    bench.set_param_idx(list(itertools.product(*hot_slice.HotSlice.params)).index(params))
    assert bench.do_setup() is False
    result = bench.do_run()
    assert fake_cases == [params]
    assert result["number"] == 5
    assert 3 <= len(result["samples"]) <= 10
    built = hot_slice._built
    assert built is not None and built[1].step >= 3 + 5 * len(result["samples"])


def test_probe_env_points_every_cache_into_the_private_dir(tmp_path: Path) -> None:
    """Cold and warm probes never touch the shared Numba / termplan caches."""
    env = compile_time.probe_env(tmp_path)
    assert env["NUMBA_CACHE_DIR"] == str(tmp_path)
    assert env["TERMPLAN_CACHE_DIR"] == str(tmp_path / "termplan")


def test_project_config_regexes_name_real_benchmarks() -> None:
    """Every higher-is-better and blocking pattern of the project's [tool.perfgate] matches a
    benchmark of the suites (a typo would silently compare a throughput the wrong way)."""
    import re

    from perfgate.config_files import load_config

    config = load_config(REPO / "pyproject.toml")
    names = [f"{cls_name}.{m}" for cls_name, cls in suite_classes() for m in dir(cls)]
    names = [n for n in names if n.rsplit(".", 1)[1].startswith(BENCH_PREFIXES)]
    for pattern in (*config.higher_is_better, *config.blocking):
        assert any(re.search(pattern, n) for n in names), pattern
    assert config.is_higher_better("collector.Collector.track_env_steps_per_s")
    assert config.is_higher_better("thread_scaling.ThreadScaling.track_parallel_efficiency")
    assert not config.is_higher_better("thread_scaling.ThreadScaling.track_best_threads")


def _asv_selection_names() -> list[str]:
    """Every case as asv 0.6 matches ``--bench`` against it: a parameterized benchmark only by
    ``name(p1, p2)`` (its bare name selects nothing), a plain one by its name."""
    import itertools

    out = []
    for cls_name, cls in suite_classes():
        params = getattr(cls, "params", ())
        combos = (
            list(itertools.product(*params))
            if params and isinstance(params[0], list | tuple)
            else [(p,) for p in params]
        )
        for method in (m for m in dir(cls) if m.startswith(BENCH_PREFIXES)):
            name = f"{cls_name}.{method}"
            out += (
                [
                    f"{name}({', '.join(repr(v) if isinstance(v, str) else str(v) for v in c)})"
                    for c in combos
                ]
                if params
                else [name]
            )
    return out


def test_project_selection_regexes_select_cases_as_asv_matches_them() -> None:
    """Each regex of gate_bench and quick_bench (handed to asv's --bench) selects at least one
    case under asv's own matching: '...track_env_steps_per_s$' selected no collector case at
    all, since asv matches a parameterized benchmark only with its parameters appended."""
    import re

    from perfgate.config_files import load_config

    config = load_config(REPO / "pyproject.toml")
    names = _asv_selection_names()
    for pattern in (*(config.gate_bench or ()), *(config.quick_bench or ())):
        assert any(re.search(pattern, n) for n in names), pattern
    collector_cases = [n for n in names if n.startswith("collector.Collector.track_env_steps")]
    assert collector_cases
    assert all(any(re.search(p, n) for p in config.gate_bench or ()) for n in collector_cases)


def test_collector_version_names_its_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Default and full grid measure different windows: their results get different asv
    versions, so one history never mixes them."""
    versions = {}
    for grid in ("default", "full"):
        monkeypatch.setenv("PERFGATE_GRID", grid)
        versions[grid] = importlib.reload(collector).Collector.version
    assert versions["default"] != versions["full"]
    assert str(collector.WINDOWS["full"]) in versions["full"]
    monkeypatch.delenv("PERFGATE_GRID")
    importlib.reload(collector)
