"""perfgate.sim.scaling.threaded: per-thread dumps read back (fixture dumps of a real
per-thread run,
valgrind 3.19), and one real small run of a parallel Numba case under callgrind."""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfgate.sim import callgrind, harness
from perfgate.sim.cost import Events
from perfgate.sim.scaling import model as scaling
from perfgate.sim.scaling import threaded

THREADS = Path(__file__).parents[2] / "data" / "callgrind" / "threads"


def test_a_dump_leaving_out_trailing_zero_counts_pads_them() -> None:
    """callgrind writes ``summary:`` without its trailing zeros (the calling thread's dump
    here: 8 numbers for 9 events, no DLmw)."""
    dump = callgrind.parse_dump((THREADS / "callgrind.out.6-01").read_text())
    assert dump is not None and dump.name == "case0001.0"
    assert dump.events == Events(32978, 8831, 5474, 1163, 657, 128, 0, 7, 0)


def test_per_thread_dumps_are_read_by_name_and_thread() -> None:
    """Each thread's dump of a name, by callgrind's thread number; the end-of-run files
    (no client request, wrapped counts) are left out."""
    dumps = threaded.read_thread_dumps(THREADS, ["case0001.0", "case0001.0.workers", "x"])
    assert sorted(dumps) == ["case0001.0", "case0001.0.workers"]
    assert list(dumps["case0001.0"]) == [1]
    assert {t: e.ir for t, e in dumps["case0001.0.workers"].items()} == {
        3: 1_912_835,
        4: 1_092_832,
    }
    call = threaded.thread_counts(dumps, "case0001", 0, threads=2)
    assert call.serial.ir == 32978 and [w.ir for w in call.workers] == [1_912_835, 1_092_832]


def test_a_call_without_its_workers_or_with_the_calling_thread_among_them_fails(
    tmp_path: Path,
) -> None:
    dumps = threaded.read_thread_dumps(THREADS, ["case0001.0", "case0001.0.workers"])
    with pytest.raises(ValueError, match=r"expected 4 workers' dumps .* got threads \[3, 4\]"):
        threaded.thread_counts(dumps, "case0001", 0, threads=4)
    with pytest.raises(ValueError, match="one dump of the calling thread, got 0"):
        threaded.thread_counts(dumps, "case0002", 0, threads=2)
    shutil.copy(THREADS / "callgrind.out.7-03", tmp_path / "callgrind.out.7-03")
    text = (THREADS / "callgrind.out.7-03").read_text()
    (tmp_path / "callgrind.out.9-03").write_text(text)
    with pytest.raises(ValueError, match="thread 3 dumped 'case0001.0.workers' twice"):
        threaded.read_thread_dumps(tmp_path, ["case0001.0.workers"])
    (tmp_path / "callgrind.out.9-03").write_text(text.replace("thread: 3\n", ""))
    with pytest.raises(ValueError, match="names no thread"):
        threaded.read_thread_dumps(tmp_path, ["case0001.0.workers"])


def test_the_command_separates_threads(tmp_path: Path) -> None:
    cmd = threaded.command(tmp_path, ["python", "-m", "x"])
    at = cmd.index("--tool=callgrind") + 1
    assert cmd[at : at + 2] == ["--separate-threads=yes", "--fair-sched=yes"]
    assert cmd[-3:] == ["python", "-m", "x"]
    env = threaded.measured_environment(
        {"ASV_X": "1", "A": "b"}, {"NUMBA_CPU_NAME": "h"}, "3.19.0", 64
    )
    assert env["NUMBA_NUM_THREADS"] == "64" and env["NUMBA_THREADING_LAYER"] == "workqueue"
    assert env["OMP_NUM_THREADS"] == "1" and "ASV_X" not in env and env["A"] == "b"


SUITE = textwrap.dedent(
    """
    import numba
    import numpy as np

    from perfgate.sim.scaling.suite import SimScalingBenchmark


    @numba.njit(parallel=True, cache=True)
    def kernel(x, big):
        out = np.empty_like(x)
        for i in numba.prange(x.shape[0]):
            acc = 0.0
            for r in range(200 if i < big else 10):
                acc += np.sqrt(x[i] + r)
            out[i] = acc
        return out


    class SimToyScaling(SimScalingBenchmark):
        params = ([0, 64], [4])
        param_names = ["big", "threads"]

        def setup_cache(self):
            return self.measure_cases()

        @staticmethod
        def sim_case(big, threads):
            x = np.arange(512, dtype=np.float64)
            total = np.zeros(1)

            def call():
                numba.set_num_threads(threads)
                total[0] += float(np.sum(x[:256]))  # serial work on the calling thread
                return kernel(x, big)

            call()
            return call
    """
)


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    package = tmp_path / "toyscaling"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sim_toy.py").write_text(SUITE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.delenv("PERFGATE_BENCH", raising=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))
    from toyscaling import sim_toy  # type: ignore[import-not-found]

    yield sim_toy.SimToyScaling
    for name in [m for m in sys.modules if m.startswith("toyscaling")]:
        del sys.modules[name]


@pytest.mark.subprocess
@pytest.mark.numba
@pytest.mark.timeout(1800)
def test_a_real_run_splits_serial_work_from_even_and_uneven_chunks(toy: type) -> None:
    """At 4 threads on any machine, one valgrind process: every worker's share and the
    serial work are counted; a first chunk with 20x the work of the others lengthens the
    critical path. The first measured call of the process is counted as the others are: the
    workers' dump kernel is compiled before any case (compiled lazily at the first case's
    warm-up dump, it left that case's first call with ~40,000 more serial instructions than
    its second, 109,771 against 65,640 here, and the even case's critical path above the
    uneven one's)."""
    cases = (harness.SimCase("case0000", (0, 4)), harness.SimCase("case0001", (64, 4)))
    root = sys.modules[toy.__module__.split(".")[0]]
    spec = harness.SimSpec(
        "toyscaling", next(iter(root.__path__)), toy.__module__, toy.__name__, cases, (1, 1), 1
    )
    outcome = threaded.measure(spec, 4)
    assert not outcome.failed and not outcome.skipped
    for calls in outcome.counts.values():
        first, second = (c.serial.ir for c in calls)
        assert first == pytest.approx(second, rel=0.25)  # scheduling moves the waits a little
    even = scaling.figures(outcome.counts["case0000"], (1, 1))
    uneven = scaling.figures(outcome.counts["case0001"], (1, 1))
    assert even["serial_share_instructions"] > 0
    assert 0.0 < even["efficiency_instructions"] <= 1.0
    assert uneven["critical_path_instructions"] > even["critical_path_instructions"]
    assert uneven["imbalance"] > 1.5 > even["imbalance"]


def test_malloc_gets_the_arenas_of_a_machine_of_pool_cores() -> None:
    """8 arenas per core, as glibc sizes them from the cores it runs on: each of 64
    workers gets an arena of its own, whatever the runner's cores; the caller's other
    tunables are kept, an arena limit of theirs is replaced."""
    env = threaded.measured_environment({}, {}, "3.19.0", 64)
    assert env["GLIBC_TUNABLES"] == "glibc.malloc.arena_max=512"
    given = "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=2"
    assert threaded.malloc_arenas(given, 8) == (
        "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=64"
    )
