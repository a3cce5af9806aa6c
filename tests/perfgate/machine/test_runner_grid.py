"""perfgate.runner_grid: thread counts derived from synthetic topologies (1..160 threads)."""

from __future__ import annotations

import pytest
from fake_sysfs import FakeRoot

from perfgate.gate import context
from perfgate.machine import read_topology
from perfgate.pinning import PinPolicy, Topology, plan_pinning
from perfgate.runner_grid import (
    derived_threads,
    describe,
    grid_env,
    middle_point,
    threads_from_env,
)


@pytest.mark.parametrize(
    ("nodes", "cores_per_node", "smt", "expected"),
    [
        (1, 1, 1, (1,)),
        (1, 2, 1, (1, 2)),  # this machine
        (1, 1, 2, (1,)),  # one core with two SMT siblings: one physical core
        (1, 4, 1, (1, 2, 4)),
        (1, 8, 2, (1, 4, 8)),
        (2, 8, 1, (1, 4, 8, 16)),
        (2, 32, 2, (1, 8, 32, 64)),
        (4, 16, 1, (1, 8, 16, 64)),
        (2, 80, 1, (1, 16, 80, 160)),
        (8, 20, 1, (1, 16, 20, 160)),
    ],
)
def test_threads_from_sysfs_topologies(
    fake_root: FakeRoot, nodes: int, cores_per_node: int, smt: int, expected: tuple[int, ...]
) -> None:
    """1, a middle point, one node's cores and all cores; deduplicated, sorted."""
    topology = read_topology(fake_root(nodes, cores_per_node, smt=smt))
    assert derived_threads(topology) == expected


def test_threads_follow_the_pinning_plans_cpus() -> None:
    """Restricted to the plan's CPUs (pin_threads = one node): only that node's cores."""
    topology = Topology({0: tuple(range(32)), 1: tuple(range(32, 64))})
    plan = plan_pinning(topology, PinPolicy(threads=32))
    assert derived_threads(topology, plan.cpus) == (1, 4, 32)
    assert derived_threads(topology) == (1, 8, 32, 64)
    uneven = plan_pinning(topology, PinPolicy(threads=40))  # 32 on node 0, 8 on node 1
    assert derived_threads(topology, uneven.cpus) == (1, 8, 32, 40)


def test_every_count_is_in_range_for_1_to_160_threads() -> None:
    """For every pool size 1..160 on 1, 2 or 4 nodes: counts start at 1, end at the pool."""
    for nodes in (1, 2, 4):
        for total in range(nodes, 161):
            sizes = [total // nodes + (1 if n < total % nodes else 0) for n in range(nodes)]
            first = [sum(sizes[:n]) for n in range(nodes)]
            topology = Topology(
                {n: tuple(range(first[n], first[n] + sizes[n])) for n in range(nodes)}
            )
            threads = derived_threads(topology)
            assert threads[0] == 1 and threads[-1] == total
            assert list(threads) == sorted(set(threads)) and sizes[0] in threads


def test_middle_point_and_bad_input() -> None:
    assert [middle_point(c) for c in (1, 2, 4, 16, 64, 160)] == [1, 1, 2, 4, 8, 16]
    with pytest.raises(ValueError, match="cores=0"):
        middle_point(0)
    with pytest.raises(ValueError, match="positive thread counts"):
        grid_env(())


def test_grid_env_and_description() -> None:
    """The environment the gate gives its asv processes, and the report's line."""
    assert grid_env((2, 1, 2)) == {"PERFGATE_GRID": "runner", "PERFGATE_THREADS": "1,2"}
    line = describe((1, 2))
    assert "threads 1, 2" in line and "NUMA node" in line and "N 2048, 8192, 65536" in line
    assert threads_from_env(grid_env((1, 2))) == (1, 2)
    assert threads_from_env({"PERFGATE_GRID": "full"}) is None


def test_the_gate_gives_its_asv_processes_the_runner_grid(fake_root: FakeRoot) -> None:
    """Full gate: derived from the plan's CPUs; --quick or a caller's PERFGATE_GRID: none."""
    root = fake_root(2, 8)
    topology = read_topology(root)
    plan = plan_pinning(topology, PinPolicy(threads=16))
    env = context.suite_grid_env(plan, quick=False, root=root, environ={})
    assert env == {"PERFGATE_GRID": "runner", "PERFGATE_THREADS": "1,4,8,16"}
    assert context.suite_grid_env(plan, quick=True, root=root, environ={}) == {}
    given = {"PERFGATE_GRID": "full"}
    assert context.suite_grid_env(plan, quick=False, root=root, environ=given) == {}
