"""perfgate.gate.instruments: which instruments run and what each one selects."""

from __future__ import annotations

import re

import pytest

from perfgate.config import parse_config
from perfgate.errors import UserError
from perfgate.gate.instruments import excluding, resolve, within

NAMES = {
    "wall": "hot_slice.HotSlice.time_compute('g1_walk', 'numpy', 2048, 1)",
    "sim": "sim_hot_slice.SimHotSlice.track_cycles('g1_walk', 'numpy', 2048)",
    "sim_big": "sim_hot_slice.SimHotSlice.track_cycles('g1_walk', 'numpy', 65536)",
    "other": "collector.Collector.track_env_steps_per_s(1)",
}
SIM = {"bench": ["^sim_hot_slice\\."], "quick_bench": ["^sim_hot_slice\\..*, 2048\\)$"]}


def _picked(regexes: tuple[str, ...]) -> set[str]:
    """Which of NAMES asv's --bench (re.search, any regex) would select."""
    return {k for k, n in NAMES.items() if any(re.search(r, n) for r in regexes)}


def test_the_wall_clock_never_runs_the_sim_family_and_bench_applies_to_both() -> None:
    assert _picked(excluding(["."], ["^sim_"])) == {"wall", "other"}
    assert _picked(within(["2048"], ["^sim_"])) == {"sim"}
    assert _picked(excluding(["2048"], ["^sim_"])) == {"wall"}
    assert _picked(within(["^hot_slice"], ["^sim_"])) == set()
    assert excluding(["x"], []) == ("x",)


def test_unset_instruments_use_valgrind_where_it_is_installed() -> None:
    """Both where valgrind is installed; the wall clock alone elsewhere, and the note says
    why (with the install command)."""
    config = parse_config({"sim": SIM})
    both = resolve(config, (), quick=False, valgrind="3.19.0")
    assert both.wall and both.sim and both.sim_bench == ("^sim_hot_slice\\.",)
    assert _picked(both.wall_bench) == {"wall", "other"}
    assert "cannot see threads, memory bandwidth, NUMA placement" in both.note
    alone = resolve(config, (), quick=False, valgrind=None)
    assert alone.wall and not alone.sim and alone.sim_bench == ()
    assert "valgrind is not installed" in alone.note and "apt-get install" in alone.note
    off_x86 = resolve(config, (), quick=False, valgrind="3.19.0", supported=False)
    assert not off_x86.sim and "x86-64" in off_x86.note


def test_an_explicit_sim_without_valgrind_is_an_error_naming_the_install_command() -> None:
    config = parse_config({"instruments": ["wall", "sim"], "sim": SIM})
    with pytest.raises(UserError, match="instruments names sim, but valgrind is not installed"):
        resolve(config, (), quick=True, valgrind=None)


def test_quick_and_explicit_selections() -> None:
    """--quick takes the sim family's quick selection; --bench narrows both families;
    instruments = ["sim"] measures nothing with the wall clock."""
    config = parse_config({"instruments": ["sim"], "sim": SIM, "quick_bench": ["2048, 1\\)"]})
    quick = resolve(config, (), quick=True, valgrind="3.19.0")
    assert not quick.wall and quick.wall_bench == () and _picked(quick.sim_bench) == {"sim"}
    given = resolve(parse_config({"sim": SIM}), ("65536",), quick=True, valgrind="3.19.0")
    assert _picked(given.sim_bench) == {"sim_big"} and _picked(given.wall_bench) == set()


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"instruments": ["wall", "cpu"]}, "instruments: expected distinct names"),
        ({"instruments": []}, "instruments: expected distinct names"),
        ({"instruments": ["sim", "sim"]}, "instruments: expected distinct names"),
        ({"sim": {"tolerance": 0.5}}, r"sim.tolerance: expected a relative tolerance"),
        ({"sim": {"target": "native"}}, "sim.target: expected one of"),
        ({"sim": {"threshold": -1}}, "sim.threshold"),
        ({"sim": {"benches": []}}, "unknown key"),
        ({"sim": {"wall": ""}}, "sim.wall: expected a benchmark name"),
    ],
)
def test_bad_sim_configuration_names_the_key(section: dict[str, object], message: str) -> None:
    from perfgate.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        parse_config(section)


def test_sim_thresholds_default_to_the_family_and_follow_the_table() -> None:
    config = parse_config({"sim": {"threshold": 0.02}, "thresholds": {"^sim_big": 0.05}})
    assert config.sim_threshold_for("sim_hot.X.track_cycles") == 0.02
    assert config.sim_threshold_for("sim_big.X.track_cycles") == 0.05
    assert config.sim.tolerance == 0.001 and config.sim.target == "auto"


def test_a_shard_of_the_wall_clocks_gate_counts_nothing_and_needs_no_valgrind() -> None:
    """The sharded gate on pinned runners measures with the wall clock; the sim instrument
    has its own hosted job, so a shard neither counts nor asks for valgrind."""
    config = parse_config({"instruments": ["wall", "sim"], "sim": SIM})
    shard = resolve(config, (), quick=False, valgrind=None, shard=True)
    assert shard.wall and not shard.sim and shard.sim_bench == ()
    assert "perf-gate-sim.yml" in shard.note
