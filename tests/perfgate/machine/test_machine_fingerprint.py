"""Fingerprint readers on fake sysfs/procfs trees and the comparability check."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_sysfs import FakeRoot

from perfgate.machine import (
    Fingerprint,
    codegen_environment,
    collect_fingerprint,
    cpu_utilisation,
    differing_keys,
    library_versions,
    parse_proc_stat,
    parse_thp,
    read_topology,
)
from perfgate.pinning import PinPolicy, plan_pinning


def _busy_sleep(root: Path) -> Callable[[float], None]:
    """A fake sleep that advances /proc/stat: 300 busy + 100 idle jiffies."""

    def sleep(seconds: float) -> None:
        assert seconds == 0.25
        (root / "proc/stat").write_text("cpu  300 0 200 900 0 0 0 0 0 0\n")

    return sleep


def test_two_by_80_fingerprint(fake_root: FakeRoot) -> None:
    root = fake_root(2, 80)
    plan = plan_pinning(read_topology(root), PinPolicy(threads=32, numactl="numactl"))
    fp = collect_fingerprint(root, plan, window=0.25, sleep=_busy_sleep(root))
    assert fp.cpu_model == "Fake Xeon 8568Y+ @ 2.3GHz"
    assert (fp.cores, fp.logical_cpus, fp.smt) == (160, 160, False)
    assert fp.numa == {"0": "0-79", "1": "80-159"}
    assert (fp.governor, fp.turbo, fp.thp, fp.kernel) == (
        "performance",
        "off",
        "madvise",
        "6.8.0-fake",
    )
    assert fp.loadavg == (0.5, 0.4, 0.3)
    assert fp.cpu_utilisation == pytest.approx(300 / 400)
    assert (fp.affinity, fp.memory_policy) == ("0-31", "membind:0")
    assert (fp.threading_layer, fp.num_threads) == ("omp", 32)
    assert set(fp.versions) == {"python", "numpy", "numba", "llvmlite"}


def test_one_by_16_with_smt_and_amd_boost(fake_root: FakeRoot) -> None:
    root = fake_root(1, 16, smt=2, no_turbo=None, numa_dir=False, thp="[always] madvise never")
    (root / "sys/devices/system/cpu/cpufreq").mkdir(parents=True)
    (root / "sys/devices/system/cpu/cpufreq/boost").write_text("1\n")
    (root / "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor").write_text("powersave\n")
    fp = collect_fingerprint(root, None, window=0.0, sleep=lambda s: None)
    assert (fp.cores, fp.logical_cpus, fp.smt) == (16, 32, True)
    assert fp.numa == {"0": "0-31"}
    assert fp.governor == "mixed:performance,powersave"
    assert (fp.turbo, fp.thp, fp.memory_policy) == ("on", "always", "none")
    assert fp.cpu_utilisation is None  # no time passed between the two samples


def test_missing_files_are_unknown(tmp_path: Path) -> None:
    (tmp_path / "sys/devices/system/cpu").mkdir(parents=True)
    (tmp_path / "sys/devices/system/cpu/online").write_text("0-1\n")
    fp = collect_fingerprint(tmp_path, None, window=0.0, sleep=lambda s: None)
    assert (fp.cpu_model, fp.governor, fp.turbo, fp.thp, fp.kernel) == ("unknown",) * 5
    assert fp.loadavg is None and fp.cpu_utilisation is None
    with pytest.raises(ValueError, match="online: missing"):
        read_topology(tmp_path / "nothing")


def test_proc_stat_parsing() -> None:
    busy, total = parse_proc_stat("cpu  10 1 5 80 4 0 0 0 0 0\nintr 1\n")
    assert (busy, total) == (16, 100)
    assert cpu_utilisation((16, 100), (66, 200)) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="aggregate 'cpu' line"):
        parse_proc_stat("intr 1\n")
    assert parse_thp("always madvise [never]") == "never"
    assert parse_thp(None) == "unknown"


def _fingerprint(fake_root: FakeRoot) -> Fingerprint:
    return collect_fingerprint(fake_root(2, 80), None, window=0.0, sleep=lambda s: None)


def test_differing_keys(fake_root: FakeRoot) -> None:
    base = _fingerprint(fake_root)
    same_host_busier = dataclasses.replace(base, loadavg=(9.0, 9.0, 9.0), cpu_utilisation=0.9)
    assert differing_keys(base, same_host_busier) == []
    other = dataclasses.replace(
        base,
        governor="powersave",
        memory_policy="membind:1",
        versions={**base.versions, "numba": "0.0.1"},
    )
    assert differing_keys(base, other) == ["governor", "memory_policy", "versions.numba"]


def test_round_trip_through_json(fake_root: FakeRoot) -> None:
    fp = _fingerprint(fake_root)
    data = json.loads(json.dumps(fp.to_dict()))
    data["future_key"] = 1
    back = Fingerprint.from_dict(data)
    assert differing_keys(fp, back) == [] and back.loadavg == fp.loadavg
    assert back.extra == {"future_key": 1}


def test_library_versions_are_real() -> None:
    import numba
    import numpy

    versions = library_versions()
    assert versions["numpy"] == numpy.__version__ and versions["numba"] == numba.__version__


def test_codegen_environment_names() -> None:
    env = {
        "NUMBA_OPT": "3",
        "NUMBA_CPU_NAME": "generic",
        "NUMBA_CPU_FEATURES": "+avx2",
        "NUMBA_NUM_THREADS": "2",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "NUMBA_CACHE_DIR": "/tmp/cache",
        "PATH": "/bin",
    }
    assert list(codegen_environment(env)) == sorted(set(env) - {"NUMBA_CACHE_DIR", "PATH"})


def test_the_codegen_environment_is_part_of_the_fingerprint(
    fake_root: FakeRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs under another NUMBA_OPT or thread count are not comparable (nor are their floors)."""
    monkeypatch.delenv("NUMBA_OPT", raising=False)
    base = _fingerprint(fake_root)
    monkeypatch.setenv("NUMBA_OPT", "0")
    other = _fingerprint(fake_root)
    assert other.codegen_env["NUMBA_OPT"] == "0"
    assert differing_keys(base, other) == ["codegen_env.NUMBA_OPT"]
    assert Fingerprint.from_dict(json.loads(json.dumps(other.to_dict()))) == other
