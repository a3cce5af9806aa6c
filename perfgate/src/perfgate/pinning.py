"""CPU and memory pinning plans for benchmark processes (pure: no I/O).

A :class:`Topology` (read from sysfs by :mod:`perfgate.machine`) and a :class:`PinPolicy`
go in; a :class:`PinPlan` comes out: the CPUs to use, the command prefix (``numactl`` /
``taskset``), the memory policy string that the fingerprint records, and the environment of
the benchmark child (Numba threading layer and pool size, OpenMP placement, one BLAS thread).

CPU choice for T threads: fill one NUMA node first (one hardware thread per physical core
before SMT siblings), then spread the remainder evenly over the other nodes. Numba's OpenMP
pool size comes from ``NUMBA_NUM_THREADS``; ``OMP_NUM_THREADS`` is left alone because a value
of 1 would also shrink OpenMP-built libraries that the benchmark may want, while BLAS gets
exactly one thread through ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

#: Memory policy recorded when no NUMA binding is applied.
NO_MEMORY_POLICY = "none"


def parse_cpulist(text: str) -> tuple[int, ...]:
    """Parse a kernel CPU list such as ``"0-3,8,10-11"`` into sorted CPU ids."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise ValueError(f"cpu list {text!r}: expected ranges like '0-3,8'") from None
        if last < first:
            raise ValueError(f"cpu list {text!r}: range {part!r} is reversed")
        cpus.update(range(first, last + 1))
    return tuple(sorted(cpus))


def format_cpulist(cpus: Iterable[int]) -> str:
    """Format CPU ids as a compact kernel CPU list (``"0-3,8"``); empty input gives ``""``."""
    ordered = sorted(set(cpus))
    runs: list[list[int]] = []
    for cpu in ordered:
        if runs and cpu == runs[-1][-1] + 1:
            runs[-1].append(cpu)
        else:
            runs.append([cpu])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


@dataclass(frozen=True)
class Topology:
    """CPUs per NUMA node plus the physical core of every CPU (SMT siblings share a core).

    ``nodes`` maps node id -> CPU ids; ``core_of`` maps CPU id -> a core key (package, core);
    CPUs missing from ``core_of`` count as their own core.
    """

    nodes: Mapping[int, tuple[int, ...]]
    core_of: Mapping[int, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.nodes or any(not cpus for cpus in self.nodes.values()):
            raise ValueError(f"topology nodes {dict(self.nodes)!r}: expected non-empty CPU sets")
        seen: set[int] = set()
        for cpus in self.nodes.values():
            if seen & set(cpus):
                raise ValueError("topology nodes: a CPU belongs to more than one node")
            seen.update(cpus)

    @property
    def cpus(self) -> tuple[int, ...]:
        """All CPU ids, sorted."""
        return tuple(sorted(c for cpus in self.nodes.values() for c in cpus))

    @property
    def num_cores(self) -> int:
        """Number of physical cores."""
        return len({self.core_of.get(c, (-1, c)) for c in self.cpus})

    @property
    def smt(self) -> bool:
        """True when some physical core has more than one CPU."""
        return self.num_cores < len(self.cpus)

    def node_of(self, cpu: int) -> int:
        """NUMA node that holds ``cpu``."""
        for node, cpus in self.nodes.items():
            if cpu in cpus:
                return node
        raise ValueError(f"cpu {cpu}: not in the topology")

    def node_order(self, node: int) -> tuple[int, ...]:
        """CPUs of ``node`` in fill order: one CPU per core first, then SMT siblings."""
        rank: dict[tuple[int, int], int] = {}
        keyed = []
        for cpu in sorted(self.nodes[node]):
            core = self.core_of.get(cpu, (-1, cpu))
            sibling = rank.get(core, 0)
            rank[core] = sibling + 1
            keyed.append((sibling, cpu))
        return tuple(cpu for _, cpu in sorted(keyed))


def _split_remainder(count: int, nodes: list[int], sizes: Mapping[int, int]) -> dict[int, int]:
    """Spread ``count`` CPUs over ``nodes`` as evenly as their sizes allow."""
    share = dict.fromkeys(nodes, 0)
    while count > 0:
        open_nodes = [n for n in nodes if share[n] < sizes[n]]
        for node in open_nodes[:count]:
            share[node] += 1
        count -= min(count, len(open_nodes))
    return share


def thread_cpus(
    topology: Topology, threads: int, first_node: int | None = None
) -> tuple[int, ...]:
    """CPUs to pin for ``threads`` threads: fill ``first_node`` first, then spread the rest.

    ``first_node`` defaults to the lowest node id. Raises ``ValueError`` when ``threads`` is
    not in ``1..len(topology.cpus)`` (oversubscription would make timings meaningless).
    """
    total = len(topology.cpus)
    if not 1 <= threads <= total:
        raise ValueError(f"threads={threads}: expected 1..{total} (CPUs in the topology)")
    node_ids = sorted(topology.nodes)
    first = node_ids[0] if first_node is None else first_node
    if first not in topology.nodes:
        raise ValueError(f"first_node={first}: expected one of {node_ids}")
    order = {n: topology.node_order(n) for n in node_ids}
    taken = list(order[first][:threads])
    others = [n for n in node_ids if n != first]
    share = _split_remainder(threads - len(taken), others, {n: len(order[n]) for n in others})
    for node in others:
        taken.extend(order[node][: share[node]])
    return tuple(sorted(taken))


@dataclass(frozen=True)
class PinPolicy:
    """What to pin: thread count, preferred node, optional dedicated CPU set, tools found.

    ``cpuset`` restricts the choice to a dedicated set (e.g. the runner's isolated CPUs);
    ``numactl`` / ``taskset`` are executable paths or None when the host lacks them.
    """

    threads: int
    first_node: int | None = None
    cpuset: tuple[int, ...] | None = None
    threading_layer: str = "omp"
    numactl: str | None = None
    taskset: str | None = None


@dataclass(frozen=True)
class PinPlan:
    """The result of :func:`plan_pinning`: apply ``prefix`` + ``env``, record the rest."""

    cpus: tuple[int, ...]
    nodes: tuple[int, ...]
    memory_policy: str
    prefix: tuple[str, ...]
    env: Mapping[str, str]

    def command(self, argv: Iterable[str]) -> list[str]:
        """The pinned command line for ``argv``."""
        return [*self.prefix, *argv]


def restrict(topology: Topology, cpuset: Iterable[int]) -> Topology:
    """The sub-topology holding only ``cpuset`` (nodes left empty are dropped)."""
    allowed = set(cpuset)
    missing = allowed - set(topology.cpus)
    if missing:
        raise ValueError(f"cpuset: CPUs {format_cpulist(missing)} are not in the topology")
    nodes = {n: tuple(c for c in cpus if c in allowed) for n, cpus in topology.nodes.items()}
    return Topology({n: c for n, c in nodes.items() if c}, topology.core_of)


def child_env(threads: int, threading_layer: str) -> dict[str, str]:
    """Environment for the benchmark child: Numba pool, OpenMP placement, one BLAS thread."""
    return {
        "NUMBA_THREADING_LAYER": threading_layer,
        "NUMBA_NUM_THREADS": str(threads),
        "OMP_PROC_BIND": "close",
        "OMP_PLACES": "cores",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def plan_pinning(topology: Topology, policy: PinPolicy) -> PinPlan:
    """Build the pinned command prefix and child environment for ``policy`` on ``topology``.

    NUMA binding (``numactl --membind=N --cpunodebind=N``) is used only when numactl exists
    and the host has more than one node; otherwise the memory policy is recorded as "none".
    The exact CPU set is applied with ``taskset -c`` when available (else the caller applies
    ``plan.cpus`` with ``os.sched_setaffinity``).
    """
    usable = topology if policy.cpuset is None else restrict(topology, policy.cpuset)
    first = policy.first_node
    if first is not None and first not in usable.nodes:
        raise ValueError(f"first_node={first}: expected one of {sorted(usable.nodes)}")
    cpus = thread_cpus(usable, policy.threads, first)
    nodes = tuple(sorted({usable.node_of(c) for c in cpus}))
    prefix: list[str] = []
    memory_policy = NO_MEMORY_POLICY
    if policy.numactl and len(topology.nodes) > 1:
        node_list = ",".join(map(str, nodes))
        prefix += [policy.numactl, f"--membind={node_list}", f"--cpunodebind={node_list}"]
        memory_policy = f"membind:{node_list}"
    if policy.taskset:
        prefix += [policy.taskset, "-c", format_cpulist(cpus)]
    env = child_env(policy.threads, policy.threading_layer)
    return PinPlan(cpus, nodes, memory_policy, tuple(prefix), env)
