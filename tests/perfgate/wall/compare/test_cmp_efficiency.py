"""perfgate.wall.compare.efficiency: parallel efficiency cases, tested like time cases."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from perfgate.config import GateConfig, ScalingConfig, ThresholdRule
from perfgate.gate.decide import decide
from perfgate.model import CaseKey, Measurement
from perfgate.verdict import CaseVerdict, GateVerdict
from perfgate.wall.compare.efficiency import (
    EFFICIENCY_SUFFIX,
    compare_efficiency,
    efficiency_measurements,
    relative_cost,
)
from perfgate.wall.compare.runs import compare_runs

BENCH = "hot_slice.HotSlice.time_compute"
#: Time cases block at 10%, efficiency at 5%: an 8% slowdown of one thread count is caught
#: only by the efficiency rule, so these tests see that rule alone.
CFG = GateConfig(
    resamples=500,
    blocking=(r"^hot_slice\.",),
    thresholds=(ThresholdRule(r"^hot_slice\.", 0.10),),
    scaling=ScalingConfig(size_param="num_envs", efficiency_threshold=0.05),
)
Side = dict[CaseKey, Measurement]


def _key(threads: int, n: int = 2048) -> CaseKey:
    return CaseKey(BENCH, (("path", "assembled"), ("num_envs", str(n)), ("threads", str(threads))))


def _side(
    seed: int, slow: dict[int, float], rounds: int = 12, threads: tuple[int, ...] = (1, 2)
) -> Side:
    """Paired rounds of one side: a drift shared by a round's cases (load) and small noise."""
    rng = np.random.default_rng(seed)
    drift = np.exp(rng.normal(0, 0.03, rounds))
    out: Side = {}
    for p in threads:
        base_time = 1e-3 / (0.9 * p)
        per_round = tuple(
            tuple(
                float(x)
                for x in base_time * slow.get(p, 1.0) * d * np.exp(rng.normal(0, 0.004, 5))
            )
            for d in drift
        )
        k = _key(p)
        out[k] = Measurement(k, tuple(s for r in per_round for s in r), rounds=per_round)
    return out


def _eff_row(rows: list, threads: int):  # type: ignore[no-untyped-def]
    (row,) = [r for r in rows if r.key.param("threads") == str(threads)]
    return row


def test_relative_cost_is_per_round_ratio_of_medians() -> None:
    """c_i = median(T_p round i) / median(T_p0 round i); unpaired data gives nothing."""
    a = Measurement(_key(2), (2.0, 4.0), rounds=((2.0,), (4.0,)))
    b = Measurement(_key(1), (1.0, 1.0), rounds=((1.0,), (1.0,)))
    m = relative_cost(a, b)
    assert m is not None and m.samples == (2.0, 4.0) and m.rounds == ((2.0,), (4.0,))
    assert m.key.benchmark == BENCH + EFFICIENCY_SUFFIX and m.key.param("threads") == "2"
    assert relative_cost(Measurement(_key(2), (2.0,)), b) is None
    longer = Measurement(_key(2), (2.0, 4.0, 9.0), rounds=((2.0,), (4.0,), (9.0,)))
    shared = relative_cost(longer, b)  # extra rounds ran the 2-thread case only
    assert shared is not None and shared.samples == (2.0, 4.0)


def test_slowing_only_the_two_thread_case_by_8_percent_blocks() -> None:
    """Issue 18 item 4: the 2-thread case 8% slower, confirmed by the re-run: exit 1."""
    base, head = _side(1, {}), _side(2, {2: 1.08})
    confirm = (_side(3, {}), _side(4, {2: 1.08}))
    time_rows = compare_runs(base, head, CFG, confirmation=confirm)
    assert all(r.verdict is not CaseVerdict.REGRESSED for r in time_rows)
    rows = compare_efficiency(base, head, CFG, time_rows, confirmation=confirm)
    row = _eff_row(rows, 2)
    assert row.verdict is CaseVerdict.REGRESSED and row.blocking, row
    assert row.ci_low is not None and row.ci_low > 1.05 and row.threshold == 0.05
    d = decide([*time_rows, *rows], [], CFG)
    assert d.verdict is GateVerdict.REGRESSION and d.exit_code == 1
    assert EFFICIENCY_SUFFIX in d.reasons[0] and "threads=2" in d.reasons[0]


def test_no_change_passes_and_shared_round_drift_cancels() -> None:
    """A/A with 3% load drift per round: the efficiency case is UNCHANGED (the drift cancels)."""
    base, head = _side(5, {}), _side(6, {})
    rows = compare_efficiency(base, head, CFG, [], confirmation=(_side(7, {}), _side(8, {})))
    assert _eff_row(rows, 2).verdict is CaseVerdict.UNCHANGED
    d = decide([*compare_runs(base, head, CFG), *rows], [], CFG)
    assert d.verdict is GateVerdict.PASS


def test_every_thread_count_beyond_the_fewest_gets_a_case() -> None:
    """One case per thread count above p0; a slowdown at 4 threads only flags 4 threads."""
    threads = (1, 2, 4)
    base, head = _side(9, {}, threads=threads), _side(10, {4: 1.08}, threads=threads)
    rows = compare_efficiency(base, head, replace(CFG, confirm=False), [])
    assert sorted(r.key.param("threads") for r in rows) == ["2", "4"]
    assert _eff_row(rows, 4).verdict is CaseVerdict.REGRESSED
    assert _eff_row(rows, 2).verdict is CaseVerdict.UNCHANGED


def test_a_rerun_without_the_reference_case_leaves_it_unconfirmed_not_failed() -> None:
    """The re-run measured only the 2-thread case: the efficiency flag stays unconfirmed."""
    base, head = _side(1, {}), _side(2, {2: 1.08})
    cb, ch = _side(3, {}), _side(4, {2: 1.08})
    partial = ({_key(2): cb[_key(2)]}, {_key(2): ch[_key(2)]})
    row = _eff_row(compare_efficiency(base, head, CFG, [], confirmation=partial), 2)
    assert row.verdict is CaseVerdict.INCONCLUSIVE and "re-run disagrees" in row.note


def test_switched_off_without_a_threshold_and_for_throughputs() -> None:
    """No ``efficiency_threshold``: no rows (the scaling table only reports). Throughput
    benchmarks never form efficiency cases."""
    base, head = _side(1, {}), _side(2, {2: 1.08})
    off = GateConfig(scaling=ScalingConfig())
    assert compare_efficiency(base, head, off, []) == []
    better = replace(CFG, higher_is_better=(r"time_compute$",))
    assert efficiency_measurements(base, head, better) == ({}, {})


def test_with_the_projects_own_rules_an_8_percent_slowdown_at_2_threads_is_exit_1() -> None:
    """Under pyproject.toml's ``[tool.perfgate]`` (time 3%, efficiency 5%), confirmed."""
    from pathlib import Path

    from perfgate.config_files import load_config

    cfg = replace(load_config(Path(__file__).parents[4] / "pyproject.toml"), resamples=500)
    assert cfg.scaling is not None and cfg.scaling.efficiency_threshold == 0.05
    base, head = _side(11, {}), _side(12, {2: 1.08})
    confirm = (_side(13, {}), _side(14, {2: 1.08}))
    rows = compare_runs(base, head, cfg, confirmation=confirm)
    rows += compare_efficiency(base, head, cfg, rows, confirmation=confirm)
    assert _eff_row(rows[2:], 2).verdict is CaseVerdict.REGRESSED
    assert decide(rows, [], cfg).exit_code == 1


def test_a_drop_from_a_speed_up_at_the_fewest_threads_is_reported_not_blocking() -> None:
    """Only the 1-thread case got 15% faster: efficiency at 2 threads drops (the 2-thread
    time is unchanged), but nothing ran slower, so the efficiency row does not block."""
    base, head = _side(21, {}), _side(22, {1: 0.85})
    confirm = (_side(23, {}), _side(24, {1: 0.85}))
    time_rows = compare_runs(base, head, CFG, confirmation=confirm)
    one = [r for r in time_rows if r.key.param("threads") == "1"]
    assert [r.verdict for r in one] == [CaseVerdict.IMPROVED]
    row = _eff_row(compare_efficiency(base, head, CFG, time_rows, confirmation=confirm), 2)
    assert row.verdict is CaseVerdict.REGRESSED and not row.blocking
    assert "speed-up at threads=1 thread(s)" in row.note
    rows = [*time_rows, *compare_efficiency(base, head, CFG, time_rows, confirmation=confirm)]
    assert decide(rows, [], CFG).verdict is GateVerdict.PASS
