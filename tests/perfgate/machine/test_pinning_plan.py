"""Thread-count plans and pinned command prefixes on synthetic topologies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_sysfs import FakeRoot, build_root

from perfgate.gate import context
from perfgate.gate.context import pin_plan
from perfgate.machine import apply_affinity, find_tools, plan_for_host, read_topology
from perfgate.pinning import (
    PinPolicy,
    Topology,
    format_cpulist,
    parse_cpulist,
    plan_pinning,
    thread_cpus,
)


@pytest.fixture(scope="module")
def two_by_80(tmp_path_factory: pytest.TempPathFactory) -> Topology:
    return read_topology(build_root(tmp_path_factory.mktemp("two_by_80"), 2, 80))


@pytest.fixture(scope="module")
def one_by_16(tmp_path_factory: pytest.TempPathFactory) -> Topology:
    return read_topology(build_root(tmp_path_factory.mktemp("one_by_16"), 1, 16))


def test_cpulist_round_trip() -> None:
    assert parse_cpulist("0-3,8,10-11\n") == (0, 1, 2, 3, 8, 10, 11)
    assert format_cpulist([11, 10, 8, 3, 2, 1, 0]) == "0-3,8,10-11"
    assert format_cpulist([]) == ""
    with pytest.raises(ValueError, match="cpu list 'x-1'"):
        parse_cpulist("x-1")
    with pytest.raises(ValueError, match="reversed"):
        parse_cpulist("5-2")


@pytest.mark.parametrize("threads", range(1, 161))
def test_two_node_plan_fills_node0_then_node1(two_by_80: Topology, threads: int) -> None:
    cpus = thread_cpus(two_by_80, threads)
    assert len(cpus) == len(set(cpus)) == threads
    on_node0 = [c for c in cpus if two_by_80.node_of(c) == 0]
    assert on_node0 == list(range(min(threads, 80)))
    assert [c for c in cpus if c >= 80] == list(range(80, 80 + max(0, threads - 80)))


@pytest.mark.parametrize("threads", range(1, 161))
def test_one_node_plan(one_by_16: Topology, threads: int) -> None:
    if threads > 16:
        with pytest.raises(ValueError, match=rf"threads={threads}: expected 1\.\.16"):
            thread_cpus(one_by_16, threads)
    else:
        assert thread_cpus(one_by_16, threads) == tuple(range(threads))


def test_first_node_choice_and_spread(fake_root: FakeRoot) -> None:
    four = read_topology(fake_root(4, 4))
    assert thread_cpus(four, 3, first_node=2) == (8, 9, 10)
    # node 1 full, then 6 more spread evenly over nodes 0, 2 and 3
    assert thread_cpus(four, 10, first_node=1) == (0, 1, 4, 5, 6, 7, 8, 9, 12, 13)
    with pytest.raises(ValueError, match="first_node=7"):
        thread_cpus(four, 2, first_node=7)


def test_smt_siblings_come_after_physical_cores(fake_root: FakeRoot) -> None:
    topo = read_topology(fake_root(1, 4, smt=2))
    assert topo.smt and topo.num_cores == 4 and len(topo.cpus) == 8
    assert thread_cpus(topo, 4) == (0, 1, 2, 3)
    assert thread_cpus(topo, 6) == (0, 1, 2, 3, 4, 5)


def test_plan_with_numactl_on_two_nodes(two_by_80: Topology) -> None:
    policy = PinPolicy(threads=16, numactl="/usr/bin/numactl", taskset="/usr/bin/taskset")
    plan = plan_pinning(two_by_80, policy)
    assert plan.memory_policy == "membind:0"
    assert plan.prefix == (
        "/usr/bin/numactl",
        "--membind=0",
        "--cpunodebind=0",
        "/usr/bin/taskset",
        "-c",
        "0-15",
    )
    assert plan.command(["python", "-V"])[-2:] == ["python", "-V"]
    assert dict(plan.env) == {
        "NUMBA_THREADING_LAYER": "omp",
        "NUMBA_NUM_THREADS": "16",
        "OMP_PROC_BIND": "close",
        "OMP_PLACES": "cores",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    wide = plan_pinning(two_by_80, PinPolicy(threads=100, numactl="numactl"))
    assert wide.memory_policy == "membind:0,1" and wide.nodes == (0, 1)
    node1 = plan_pinning(two_by_80, PinPolicy(threads=8, first_node=1, numactl="numactl"))
    assert node1.prefix == ("numactl", "--membind=1", "--cpunodebind=1")
    assert node1.cpus == tuple(range(80, 88))


def test_no_numa_binding_on_one_node_or_without_numactl(
    one_by_16: Topology, two_by_80: Topology
) -> None:
    single = plan_pinning(one_by_16, PinPolicy(threads=4, numactl="numactl"))
    assert single.memory_policy == "none" and single.prefix == ()
    no_tool = plan_pinning(two_by_80, PinPolicy(threads=4))
    assert no_tool.memory_policy == "none" and no_tool.cpus == (0, 1, 2, 3)


def test_dedicated_cpuset(two_by_80: Topology) -> None:
    plan = plan_pinning(two_by_80, PinPolicy(threads=4, cpuset=tuple(range(76, 90))))
    assert plan.cpus == (76, 77, 78, 79)
    with pytest.raises(ValueError, match="cpuset: CPUs 200"):
        plan_pinning(two_by_80, PinPolicy(threads=1, cpuset=(200,)))
    with pytest.raises(ValueError, match="threads=20"):
        plan_pinning(two_by_80, PinPolicy(threads=20, cpuset=tuple(range(10))))


def test_topology_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        Topology({0: ()})
    with pytest.raises(ValueError, match="more than one node"):
        Topology({0: (0, 1), 1: (1, 2)})


@pytest.mark.subprocess
def test_pinned_prefix_really_pins_a_child() -> None:
    """The prefix built for this host restricts a real child process to the chosen CPU."""
    tools = find_tools()
    topo = read_topology(Path("/"))
    plan = plan_pinning(topo, PinPolicy(threads=1, taskset=tools["taskset"]))
    code = "import os; print(sorted(os.sched_getaffinity(0)))"
    argv = plan.command([sys.executable, "-c", code])
    if tools["taskset"]:
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    else:  # no taskset: apply the affinity in the child before exec
        out = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            check=True,
            preexec_fn=lambda: apply_affinity(plan.cpus),
        ).stdout
    assert out.strip() == str(list(plan.cpus))
    assert os.sched_getaffinity(0)  # the parent is untouched


def test_plan_for_host_reads_topology_and_tools(fake_root: FakeRoot) -> None:
    root = fake_root(2, 8)
    tools = {"numactl": "/usr/bin/numactl", "taskset": None}
    plan = plan_for_host(4, first_node=1, root=root, tools=tools)
    assert plan.cpus == (8, 9, 10, 11)
    assert plan.prefix == ("/usr/bin/numactl", "--membind=1", "--cpunodebind=1")
    assert plan_for_host(4, root=root, tools={}).memory_policy == "none"


def test_gate_pins_to_one_node_when_its_thread_grid_fits(
    fake_root: FakeRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """[tool.perfgate] pin_threads = the suites' widest thread count: on 2 x 80 CPUs a grid
    up to 16 threads is bound to node 0 (CPUs and memory); unset, every CPU and both nodes;
    more threads than CPUs are capped."""
    from perfgate import machine

    root = fake_root(2, 80)
    monkeypatch.setattr(context.os, "sched_getaffinity", lambda pid: set(range(160)))
    tools = {"numactl": "/usr/bin/numactl", "taskset": "/usr/bin/taskset"}
    monkeypatch.setattr(machine, "find_tools", lambda: tools)
    narrow = pin_plan(16, root=root)
    assert narrow.memory_policy == "membind:0" and narrow.cpus == tuple(range(16))
    assert narrow.env["NUMBA_NUM_THREADS"] == "16"
    wide = pin_plan(None, root=root)
    assert wide.memory_policy == "membind:0,1" and len(wide.cpus) == 160
    assert pin_plan(500, root=root).cpus == wide.cpus
