"""Fake sysfs/procfs trees for the fingerprint and pinning tests (helpers, no fixtures)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from perfgate.pinning import format_cpulist

FakeRoot = Callable[..., Path]

PROC_STAT_IDLE = "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 0 1 8 0 0 0 0 0 0\n"


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


def build_root(
    root: Path,
    nodes: int,
    cores_per_node: int,
    smt: int = 1,
    governor: str = "performance",
    no_turbo: str | None = "1",
    thp: str = "always [madvise] never",
    numa_dir: bool = True,
) -> Path:
    """Write a fake host: ``nodes`` x ``cores_per_node`` cores with ``smt`` threads each.

    CPU numbering follows Linux on Intel: first thread of every core (node-major), then the
    SMT siblings in the same order.
    """
    cores = nodes * cores_per_node
    total = cores * smt
    _write(root, "sys/devices/system/cpu/online", f"0-{total - 1}")
    node_cpus: dict[int, list[int]] = {n: [] for n in range(nodes)}
    for cpu in range(total):
        core = cpu % cores
        node = core // cores_per_node
        node_cpus[node].append(cpu)
        topo = f"sys/devices/system/cpu/cpu{cpu}/topology"
        _write(root, f"{topo}/physical_package_id", str(node))
        _write(root, f"{topo}/core_id", str(core % cores_per_node))
        _write(root, f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor", governor)
    if numa_dir:
        _write(root, "sys/devices/system/node/online", f"0-{nodes - 1}")
        for node, cpus in node_cpus.items():
            _write(root, f"sys/devices/system/node/node{node}/cpulist", format_cpulist(cpus))
    if no_turbo is not None:
        _write(root, "sys/devices/system/cpu/intel_pstate/no_turbo", no_turbo)
    _write(root, "sys/kernel/mm/transparent_hugepage/enabled", thp)
    _write(root, "proc/cpuinfo", "processor\t: 0\nmodel name\t: Fake Xeon 8568Y+ @ 2.3GHz\n")
    _write(root, "proc/sys/kernel/osrelease", "6.8.0-fake")
    _write(root, "proc/loadavg", "0.50 0.40 0.30 1/200 12345")
    _write(root, "proc/stat", PROC_STAT_IDLE)
    return root
