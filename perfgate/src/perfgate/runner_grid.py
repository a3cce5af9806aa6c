"""The benchmark grid a runner derives from its pinning topology (pure: no I/O).

asv records a suite's ``params`` once per discovery, so the grid cannot be computed inside
the benchmarks from what the commit offers; the gate computes the thread counts from the
CPUs its pinning plan uses and hands them to its asv processes through the environment
(``PERFGATE_GRID=runner`` and ``PERFGATE_THREADS``, read by ``benchmarks/_common.py``).

Thread counts: 1 (the serial baseline), a middle point (the power of two nearest the
geometric mean of 1 and all cores), the cores of one NUMA node (the node the plan fills
first: where node-local placement ends) and all usable cores (the whole pinned pool, across
nodes); deduplicated and sorted. Physical cores are counted, not SMT siblings, since the
plan places one thread per core before it uses a sibling. On a 2-core machine: (1, 2).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from perfgate.pinning import Topology, restrict

#: Environment names read by the benchmark suites (``benchmarks/_common.py``).
GRID_VAR = "PERFGATE_GRID"
THREADS_VAR = "PERFGATE_THREADS"
RUNNER_GRID = "runner"
#: The other axes of the runner grid (the suites hold the same values).
NUM_ENVS = (2048, 8192, 65536)
PROFILES = ("sac_default", "ppo_default")


def _cores(topology: Topology, node: int | None = None) -> int:
    cpus = topology.cpus if node is None else topology.nodes[node]
    return len({topology.core_of.get(c, (-1, c)) for c in cpus})


def middle_point(cores: int) -> int:
    """The power of two nearest ``sqrt(cores)`` (1 core: 1), between 1 and ``cores``."""
    if cores < 1:
        raise ValueError(f"cores={cores}: expected at least 1")
    return min(cores, 2 ** round(math.log2(cores) / 2))


def derived_threads(topology: Topology, cpus: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """The thread counts of the runner grid for ``topology`` restricted to ``cpus`` (the
    pinning plan's CPUs; None: all of them). See the module docstring for the choice."""
    usable = topology if cpus is None else restrict(topology, cpus)
    every = _cores(usable)
    node = _cores(usable, min(usable.nodes))
    return tuple(sorted({1, middle_point(every), node, every}))


def grid_env(threads: tuple[int, ...]) -> dict[str, str]:
    """The environment that selects the runner grid with ``threads`` in the asv processes."""
    if not threads or any(t < 1 for t in threads):
        raise ValueError(f"threads {threads!r}: expected positive thread counts")
    return {GRID_VAR: RUNNER_GRID, THREADS_VAR: ",".join(str(t) for t in sorted(set(threads)))}


def describe(threads: tuple[int, ...]) -> str:
    """One report line: the runner grid and why (what its thread counts were derived from)."""
    return (
        f"grid: runner-derived; threads {', '.join(map(str, threads))} (1, a middle point, "
        "one NUMA node's cores and all cores of the pinned pool, from the pinning plan's "
        f"topology); N {', '.join(map(str, NUM_ENVS))}; profiles {', '.join(PROFILES)}; "
        "every path and task; the 100-step collector window"
    )


def threads_from_env(env: Mapping[str, str]) -> tuple[int, ...] | None:
    """The runner grid's thread counts in ``env`` (None: another grid is selected)."""
    if env.get(GRID_VAR) != RUNNER_GRID:
        return None
    return tuple(int(t) for t in env.get(THREADS_VAR, "").split(",") if t.strip().isdigit())
