"""``perfgate doctor``'s runner checks: what the gate needs of a benchmark host (its CPU
pinning and host tuning), read from ``/sys`` and ``/proc`` under ``root`` (a fake tree in
the tests). Host state that this kernel does not expose (a VM without cpufreq) is a note:
it cannot be verified, so it is not claimed either way."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from perfgate import machine
from perfgate.adopt.report_lines import Finding, note, ok, problem
from perfgate.config import GateConfig
from perfgate.pinning import format_cpulist

UNKNOWN = "unknown"
#: How the host's own tuning is set (what ci/setup-runner.sh apply does, as root).
SYSFS_FIXES = {
    "governor": "echo performance | sudo tee "
    "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
    "turbo": "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo (AMD: echo 0 > "
    "/sys/devices/system/cpu/cpufreq/boost)",
    "thp": "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled",
}


def _governor(root: Path, cpus: tuple[int, ...]) -> Finding:
    found = machine.read_governor(root, cpus)
    if found == UNKNOWN:
        return note("governor: not exposed by this kernel (a VM?); cannot verify")
    if found != "performance":
        return problem(
            f"governor is {found} on cpus {format_cpulist(cpus)}", SYSFS_FIXES["governor"]
        )
    return ok("governor: performance")


def _turbo(root: Path) -> Finding:
    found = machine.read_turbo(root)
    if found == UNKNOWN:
        return note("turbo: not exposed by this kernel (a VM?); cannot verify")
    if found != "off":
        return problem(
            "turbo (frequency boost) is on: timings follow the temperature", SYSFS_FIXES["turbo"]
        )
    return ok("turbo: off")


def _thp(root: Path) -> Finding:
    text = root / "sys/kernel/mm/transparent_hugepage/enabled"
    found = machine.parse_thp(text.read_text() if text.is_file() else None)
    if found == UNKNOWN:
        return note("transparent hugepages: not exposed; cannot verify")
    if found == "always":
        return problem(
            "transparent hugepages: always (page faults vary run to run)", SYSFS_FIXES["thp"]
        )
    return ok(f"transparent hugepages: {found}")


def _pinning(config: GateConfig, root: Path, usable: tuple[int, ...]) -> list[Finding]:
    """The gate's pinning plan on this host, and what it needs (numactl on NUMA hosts)."""
    wanted = config.pin_threads or len(usable)
    findings = []
    if wanted > len(usable):
        findings.append(problem(
            f"pin_threads = {wanted} but this runner may use {len(usable)} cpus "
            f"({format_cpulist(usable)})",
            f"set pin_threads to at most {len(usable)}, or give the runner more cpus",
        ))  # fmt: skip
    plan = machine.plan_for_host(min(wanted, len(usable)), cpuset=usable, root=root)
    nodes = len(machine.read_topology(root).nodes)
    if nodes > 1 and shutil.which("numactl") is None:
        findings.append(problem(
            f"{nodes} NUMA nodes but no numactl: memory is not bound to the benchmarks' node",
            "apt-get install numactl",
        ))  # fmt: skip
    findings.append(ok(
        f"pinning: cpus {format_cpulist(plan.cpus)}, memory {plan.memory_policy}"
    ))  # fmt: skip
    if 0 in plan.cpus and len(usable) > 1:
        findings.append(note(
            "cpu 0 (the OS, the runner agent, interrupts) is among the benchmark cpus: "
            "restrict the runner service to the others (systemd CPUAffinity=) or isolate them"
        ))  # fmt: skip
    return findings


def _isolation(root: Path) -> Finding:
    cmdline = root / "proc/cmdline"
    text = cmdline.read_text() if cmdline.is_file() else ""
    if "isolcpus=" in text:
        return ok("isolation: isolcpus= on the kernel command line")
    return note("isolation: no isolcpus= on the kernel command line (other processes may share "
                "the benchmark cpus; see ci/setup-runner.sh)")  # fmt: skip


def runner_checks(
    config: GateConfig,
    root: Path = Path("/"),
    affinity: Callable[[], set[int]] = lambda: os.sched_getaffinity(0),
) -> list[Finding]:
    """The runner's tuning and the gate's pinning plan on it."""
    usable = tuple(sorted(affinity()))
    return [
        _governor(root, usable),
        _turbo(root),
        _thp(root),
        *_pinning(config, root, usable),
        _isolation(root),
    ]
