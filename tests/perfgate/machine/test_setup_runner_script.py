"""ci/setup-runner.sh `check` against fake sysfs trees (SYSFS_ROOT)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from fake_sysfs import FakeRoot

pytestmark = pytest.mark.subprocess

SCRIPT = Path(__file__).resolve().parents[3] / "ci" / "setup-runner.sh"


def _check(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "SYSFS_ROOT": str(root), **env}
    return subprocess.run(
        ["bash", str(SCRIPT), "check"], env=full_env, capture_output=True, text=True, timeout=60
    )


def test_tuned_host_passes(fake_root: FakeRoot) -> None:
    done = _check(fake_root(2, 4))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "host tuning: ok" in done.stdout
    assert "benchmark CPUs: 1-7" in done.stdout


def test_untuned_host_fails_with_reasons(fake_root: FakeRoot) -> None:
    root = fake_root(1, 4, governor="powersave", no_turbo="0", thp="[always] madvise never")
    done = _check(root)
    assert done.returncode == 1
    assert "cpu0/cpufreq/scaling_governor is powersave, want performance" in done.stdout
    assert "intel_pstate/no_turbo=0, want turbo off" in done.stdout
    assert "thp: [always] madvise never, want [madvise]" in done.stdout
    assert "host tuning: ok" not in done.stdout


def test_settings_come_from_the_environment(fake_root: FakeRoot) -> None:
    root = fake_root(1, 4, governor="powersave", no_turbo="0", thp="always madvise [never]")
    done = _check(root, PERF_GOVERNOR="powersave", PERF_TURBO="on", PERF_THP="never")
    assert done.returncode == 0, done.stdout


def test_unknown_mode_is_a_usage_error() -> None:
    done = subprocess.run(["bash", str(SCRIPT), "bogus"], capture_output=True, text=True)
    assert done.returncode == 2 and "usage:" in done.stderr


def test_cpu0_is_left_out_whatever_the_online_list(fake_root: FakeRoot) -> None:
    """CPU 0 keeps the OS and the runner agent: "0,2-7" gives "2-7", "0-1" gives "1"."""
    for online, cpus in (("0,2-7", "2-7"), ("0-1", "1"), ("0-3,8-11", "1-3,8-11"), ("4-7", "4-7")):
        root = fake_root(1, 8)
        (root / "sys/devices/system/cpu/online").write_text(online + "\n")
        done = _check(root)
        assert f"benchmark CPUs: {cpus}\n" in done.stdout, (online, done.stdout)


def test_a_host_without_cpufreq_is_not_called_tuned(fake_root: FakeRoot) -> None:
    """A VM that exposes no governor or turbo file: say it cannot be verified."""
    root = fake_root(1, 4, no_turbo=None)
    for governor in root.glob("sys/devices/system/cpu/cpu*/cpufreq/scaling_governor"):
        governor.unlink()
    done = _check(root)
    assert "governor and turbo not exposed by this kernel; cannot verify" in done.stdout
    assert "host tuning: ok (except the unverifiable governor and turbo)" in done.stdout
