"""perfgate doctor's runner checks on fake hosts: tuned, untuned, and one that cannot be
verified (a VM without cpufreq)."""

from __future__ import annotations

import sys
from pathlib import Path

from perfgate.adopt.doctor.runner import runner_checks
from perfgate.adopt.report_lines import Level
from perfgate.config import GateConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "machine"))
from fake_sysfs import build_root


def _lines(root: Path, level: Level, config: GateConfig | None = None) -> list[str]:
    found = runner_checks(config or GateConfig(), root, affinity=lambda: {1, 2, 3})
    return [f.line() for f in found if f.level is level]


def test_a_tuned_host(tmp_path: Path) -> None:
    root = build_root(tmp_path, 1, 4)
    (root / "proc/cmdline").write_text("BOOT_IMAGE=x isolcpus=1-3\n")
    assert _lines(root, Level.PROBLEM) == []
    oks = "\n".join(_lines(root, Level.OK))
    assert "governor: performance" in oks and "turbo: off" in oks
    assert "pinning: cpus 1-3" in oks and "isolation: isolcpus=" in oks


def test_an_untuned_host_names_each_problem_with_its_fix(tmp_path: Path) -> None:
    root = build_root(
        tmp_path, 1, 4, governor="powersave", no_turbo="0", thp="[always] madvise never"
    )
    problems = _lines(root, Level.PROBLEM, GateConfig(pin_threads=8))
    assert len(problems) == 4, problems
    assert "governor is powersave on cpus 1-3; fix: echo performance" in problems[0]
    assert "turbo (frequency boost) is on" in problems[1] and "no_turbo" in problems[1]
    assert "transparent hugepages: always" in problems[2]
    assert "pin_threads = 8 but this runner may use 3 cpus" in problems[3]


def test_a_vm_without_cpufreq_is_not_called_tuned(tmp_path: Path) -> None:
    root = build_root(tmp_path, 1, 4, no_turbo=None)
    for governor in root.glob("sys/devices/system/cpu/cpu*/cpufreq/scaling_governor"):
        governor.unlink()
    notes = "\n".join(_lines(root, Level.NOTE))
    assert "governor: not exposed by this kernel (a VM?); cannot verify" in notes
    assert "turbo: not exposed" in notes
    assert _lines(root, Level.PROBLEM) == []
