"""Environment fingerprint of the benchmark host and the I/O edge of CPU pinning.

Readers take a ``root`` path (``/`` on a real host, a fake sysfs/procfs tree in tests) and
return plain values; parsing is done by small pure functions. :func:`differing_keys` compares
two fingerprints on the comparability keys: the gate refuses to compare results whose
fingerprints differ there. Load average and CPU utilisation are recorded as run conditions,
not compared.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from perfgate.pinning import (
    NO_MEMORY_POLICY,
    PinPlan,
    PinPolicy,
    Topology,
    format_cpulist,
    parse_cpulist,
    plan_pinning,
)

UNKNOWN = "unknown"
CPU_DIR = Path("sys/devices/system/cpu")
NODE_DIR = Path("sys/devices/system/node")
VERSIONED_LIBRARIES = ("numpy", "numba", "llvmlite")

#: Keys that must match for two runs to be comparable (pyperf's "checked metadata" idea).
COMPARABILITY_KEYS = (
    "cpu_model",
    "cores",
    "logical_cpus",
    "smt",
    "numa",
    "governor",
    "turbo",
    "thp",
    "kernel",
    "affinity",
    "memory_policy",
    "threading_layer",
    "num_threads",
    "versions",
    "codegen_env",
)
#: Environment variables that change the code numba generates or the threads that run it
#: (numba's threading layer, thread count, optimisation level, target CPU and vectoriser
#: switches; OpenMP, MKL, OpenBLAS, BLIS and numexpr threading and affinity). Runs that
#: differ in any of them are not comparable.
CODEGEN_ENV = re.compile(
    r"NUMBA_(THREADING_LAYER|NUM_THREADS|OPT|CPU_NAME|CPU_FEATURES|LOOP_VECTORIZE|"
    r"SLP_VECTORIZE|ENABLE_AVX|DISABLE_JIT|BOUNDSCHECK|DISABLE_INTEL_SVML|DISABLE_PARALLEL)"
    r"|(OMP|GOMP|KMP|MKL|OPENBLAS|BLIS|NUMEXPR)_\w+|GOTO_NUM_THREADS|VECLIB_MAXIMUM_THREADS"
)


def _read(root: Path, rel: Path | str) -> str | None:
    """Text of ``root/rel`` stripped, or None when it does not exist or is unreadable."""
    try:
        return (root / rel).read_text().strip()
    except OSError:
        return None


def read_cpu_model(root: Path) -> str:
    """``model name`` of the first CPU in ``/proc/cpuinfo``."""
    text = _read(root, "proc/cpuinfo") or ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model Name", "cpu model"):
            return value.strip()
    return UNKNOWN


def read_online_cpus(root: Path) -> tuple[int, ...]:
    """Online CPU ids from ``/sys/devices/system/cpu/online``."""
    text = _read(root, CPU_DIR / "online")
    if text is None:
        raise ValueError(f"{root / CPU_DIR / 'online'}: missing; expected a CPU list")
    return parse_cpulist(text)


def read_topology(root: Path) -> Topology:
    """NUMA nodes -> CPUs and CPU -> physical core, from sysfs under ``root``.

    Hosts without ``/sys/devices/system/node`` count as one node holding every online CPU.
    """
    online = read_online_cpus(root)
    nodes: dict[int, tuple[int, ...]] = {}
    node_text = _read(root, NODE_DIR / "online")
    for node in parse_cpulist(node_text) if node_text else ():
        cpus = parse_cpulist(_read(root, NODE_DIR / f"node{node}" / "cpulist") or "")
        cpus = tuple(c for c in cpus if c in online)
        if cpus:
            nodes[node] = cpus
    if not nodes:
        nodes = {0: online}
    core_of: dict[int, tuple[int, int]] = {}
    for cpu in online:
        topo = CPU_DIR / f"cpu{cpu}" / "topology"
        package, core = _read(root, topo / "physical_package_id"), _read(root, topo / "core_id")
        if package is not None and core is not None:
            core_of[cpu] = (int(package), int(core))
    return Topology(nodes, core_of)


def read_governor(root: Path, cpus: tuple[int, ...]) -> str:
    """The scaling governor of ``cpus`` ("mixed:a,b" when they differ, "unknown" if absent)."""
    found = {_read(root, CPU_DIR / f"cpu{c}" / "cpufreq" / "scaling_governor") for c in cpus}
    found.discard(None)
    if not found:
        return UNKNOWN
    names = sorted(g for g in found if g is not None)
    return names[0] if len(names) == 1 else "mixed:" + ",".join(names)


def read_turbo(root: Path) -> str:
    """ "on" / "off" from intel_pstate ``no_turbo`` or cpufreq ``boost``; else "unknown"."""
    no_turbo = _read(root, CPU_DIR / "intel_pstate" / "no_turbo")
    if no_turbo is not None:
        return "off" if no_turbo == "1" else "on"
    boost = _read(root, CPU_DIR / "cpufreq" / "boost")
    if boost is not None:
        return "on" if boost == "1" else "off"
    return UNKNOWN


def parse_thp(text: str | None) -> str:
    """The bracketed choice of ``always [madvise] never``; "unknown" when absent."""
    if not text or "[" not in text:
        return UNKNOWN
    return text[text.index("[") + 1 : text.index("]")]


def read_loadavg(root: Path) -> tuple[float, float, float] | None:
    """1, 5 and 15 minute load averages from ``/proc/loadavg``."""
    text = _read(root, "proc/loadavg")
    if not text:
        return None
    one, five, fifteen = (float(x) for x in text.split()[:3])
    return one, five, fifteen


def parse_proc_stat(text: str) -> tuple[int, int]:
    """(busy, total) jiffies from the aggregate ``cpu`` line of ``/proc/stat``."""
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            values = [int(v) for v in fields[1:9]]  # user..steal; guest is inside user
            idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
            total = sum(values)
            return total - idle, total
    raise ValueError("/proc/stat: expected an aggregate 'cpu' line")


def cpu_utilisation(before: tuple[int, int], after: tuple[int, int]) -> float | None:
    """Busy share of CPU time between two ``parse_proc_stat`` samples (None if no time)."""
    busy, total = after[0] - before[0], after[1] - before[1]
    if total <= 0:
        return None
    return busy / total


def measure_utilisation(
    root: Path, window: float, sleep: Callable[[float], None] = time.sleep
) -> float | None:
    """CPU utilisation over ``window`` seconds from ``/proc/stat`` deltas."""
    first = _read(root, "proc/stat")
    if first is None:
        return None
    sleep(window)
    second = _read(root, "proc/stat") or first
    return cpu_utilisation(parse_proc_stat(first), parse_proc_stat(second))


def library_versions() -> dict[str, str]:
    """Versions of python and of the numeric libraries the benchmarks use."""
    versions = {"python": platform.python_version()}
    for name in VERSIONED_LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


@dataclass(frozen=True)
class Fingerprint:
    """Everything about the host and the pinning that can change a timing."""

    cpu_model: str
    cores: int
    logical_cpus: int
    smt: bool
    numa: dict[str, str]
    governor: str
    turbo: str
    thp: str
    kernel: str
    affinity: str
    memory_policy: str
    threading_layer: str
    num_threads: int | None
    versions: dict[str, str]
    loadavg: tuple[float, float, float] | None = None
    cpu_utilisation: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    codegen_env: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fingerprint:
        """Inverse of :meth:`to_dict`; unknown keys go to ``extra``."""
        names = set(cls.__dataclass_fields__)
        known = {k: v for k, v in data.items() if k in names}
        loadavg = known.get("loadavg")
        if loadavg is not None:
            known["loadavg"] = tuple(loadavg)
        extra = dict(known.pop("extra", {}) or {})
        extra.update({k: v for k, v in data.items() if k not in names})
        return cls(**known, extra=extra)


def differing_keys(
    a: Fingerprint, b: Fingerprint, keys: tuple[str, ...] = COMPARABILITY_KEYS
) -> list[str]:
    """Comparability keys whose values differ (``versions.numba`` style for library versions)."""
    out: list[str] = []
    for key in keys:
        left, right = getattr(a, key), getattr(b, key)
        if key in ("versions", "codegen_env"):
            names = sorted(set(left) | set(right))
            out += [f"{key}.{n}" for n in names if left.get(n) != right.get(n)]
        elif left != right:
            out.append(key)
    return out


def codegen_environment(env: Mapping[str, Any]) -> dict[str, str]:
    """The `CODEGEN_ENV` variables of ``env`` (sorted, values as text)."""
    return {name: str(env[name]) for name in sorted(env) if CODEGEN_ENV.fullmatch(name)}


def collect_fingerprint(
    root: Path = Path("/"),
    plan: PinPlan | None = None,
    window: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Fingerprint:
    """Read the host under ``root`` and record ``plan`` (or the current affinity if None)."""
    topology = read_topology(root)
    if plan is not None:
        affinity, memory_policy = format_cpulist(plan.cpus), plan.memory_policy
        layer = plan.env.get("NUMBA_THREADING_LAYER", UNKNOWN)
        threads: int | None = int(plan.env.get("NUMBA_NUM_THREADS", "0")) or None
        codegen = codegen_environment({**os.environ, **plan.env})
    else:
        affinity = format_cpulist(os.sched_getaffinity(0))
        memory_policy, threads = NO_MEMORY_POLICY, None
        layer = os.environ.get("NUMBA_THREADING_LAYER", "default")
        codegen = codegen_environment(os.environ)
    return Fingerprint(
        cpu_model=read_cpu_model(root),
        cores=topology.num_cores,
        logical_cpus=len(topology.cpus),
        smt=topology.smt,
        numa={str(n): format_cpulist(c) for n, c in sorted(topology.nodes.items())},
        governor=read_governor(root, topology.cpus),
        turbo=read_turbo(root),
        thp=parse_thp(_read(root, "sys/kernel/mm/transparent_hugepage/enabled")),
        kernel=_read(root, "proc/sys/kernel/osrelease") or UNKNOWN,
        affinity=affinity,
        memory_policy=memory_policy,
        threading_layer=layer,
        num_threads=threads,
        versions=library_versions(),
        loadavg=read_loadavg(root),
        cpu_utilisation=measure_utilisation(root, window, sleep),
        codegen_env=codegen,
    )


def find_tools() -> dict[str, str | None]:
    """Paths of ``numactl`` and ``taskset`` (None when absent)."""
    return {"numactl": shutil.which("numactl"), "taskset": shutil.which("taskset")}


def plan_for_host(
    threads: int,
    first_node: int | None = None,
    cpuset: tuple[int, ...] | None = None,
    root: Path = Path("/"),
    tools: Mapping[str, str | None] | None = None,
) -> PinPlan:
    """Read the topology under ``root``, find numactl/taskset, and plan the pinning."""
    found = find_tools() if tools is None else tools
    policy = PinPolicy(
        threads=threads,
        first_node=first_node,
        cpuset=cpuset,
        numactl=found.get("numactl"),
        taskset=found.get("taskset"),
    )
    return plan_pinning(read_topology(root), policy)


def apply_affinity(cpus: tuple[int, ...], pid: int = 0) -> None:
    """Pin ``pid`` (0 = this process; children inherit it) to ``cpus``."""
    os.sched_setaffinity(pid, cpus)
