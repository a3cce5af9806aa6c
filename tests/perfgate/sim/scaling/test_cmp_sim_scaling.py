"""perfgate.sim.scaling.compare: projected E(T) and serial share from one count per
side, the determinism refusal, and a drop the projected time explains."""

from __future__ import annotations

import pytest

from perfgate.config import parse_config
from perfgate.model import CaseComparison, CaseKey, Measurement, Reason
from perfgate.sim.compare import compare_sim
from perfgate.sim.scaling.compare import compare_sim_scaling
from perfgate.verdict import CaseVerdict

FAMILY = "sim_scaling.SimScaling"
CONFIG = parse_config(
    {
        "blocking": ["^sim_scaling\\."],
        "sim": {"bench": ["^sim_scaling\\.", "^sim_hot\\."], "tolerance": 0.001},
        "thresholds": {"^sim_scaling\\.": 0.05},
    }
)
PARAMS = (("task", "g1"), ("path", "assembled"), ("num_envs", "8192"), ("threads", "32"))


def _side(
    efficiency: float,
    share: float,
    path: float = 1e6,
    cycles_factor: float = 1.0,
    version: str = "simt-1",
) -> dict[CaseKey, Measurement]:
    """One side's figures; ``cycles_factor`` moves the cycle-weighted ones only."""
    figures = {
        "track_efficiency": efficiency * cycles_factor,
        "track_serial_share": share * cycles_factor,
        "track_critical_path": path * cycles_factor,
        "track_efficiency_instructions": efficiency,
        "track_serial_share_instructions": share,
        "track_critical_path_instructions": path,
    }
    return {
        (k := CaseKey(f"{FAMILY}.{name}", PARAMS)): Measurement(k, (v,), version=version)
        for name, v in figures.items()
    }


def _rows(base: dict, head: dict, again: dict) -> tuple[CaseComparison, CaseComparison]:
    efficiency, share = compare_sim_scaling(base, head, again, CONFIG)
    return efficiency, share


def test_more_serial_work_is_a_blocking_efficiency_drop_named_at_its_thread_count() -> None:
    """E(32) 0.25 -> 0.13 and serial share 2.4% -> 5%: both rows regress (threshold 5%),
    from one count per side; E's ratio is base/head."""
    base = _side(0.25, 0.024)
    head = _side(0.13, 0.05, path=1.9e6)
    efficiency, share = _rows(base, head, base)
    assert efficiency.verdict is CaseVerdict.REGRESSED and efficiency.blocking
    assert efficiency.ratio == pytest.approx(0.25 / 0.13)
    assert efficiency.key.benchmark == f"{FAMILY}.track_efficiency"
    assert "projected at 32 threads, E(T) 0.250 -> 0.130 (-48.0%; instructions)" in efficiency.note
    assert share.verdict is CaseVerdict.REGRESSED and "serial share 2.40% -> 5.00%" in share.note
    assert (efficiency.threshold, efficiency.n_base, efficiency.n_head) == (0.05, 2, 1)


def test_work_added_to_every_worker_alike_is_not_a_scaling_regression() -> None:
    """More work per worker, the same serial work: E rises and the serial share falls."""
    efficiency, share = _rows(_side(0.25, 0.024), _side(0.27, 0.021), _side(0.25, 0.024))
    assert efficiency.verdict is CaseVerdict.IMPROVED
    assert share.verdict is CaseVerdict.IMPROVED


def test_within_the_threshold_is_unchanged() -> None:
    efficiency, _ = _rows(_side(0.25, 0.024), _side(0.245, 0.0245), _side(0.25, 0.024))
    assert efficiency.verdict is CaseVerdict.UNCHANGED


def test_cycles_that_move_between_base_counts_leave_the_instructions_to_decide() -> None:
    """The base's second count moved the cycle-weighted figures 10% (threads sharing one
    simulated cache in the scheduler's order), the instructions not at all: decided on them."""
    base, again = _side(0.25, 0.024), _side(0.25, 0.024, cycles_factor=1.1)
    efficiency, share = _rows(base, _side(0.13, 0.05, cycles_factor=1.3), again)
    assert efficiency.verdict is CaseVerdict.REGRESSED and efficiency.figure == "instructions"
    assert efficiency.ratio == pytest.approx(0.25 / 0.13)
    assert share.figure == "instructions"


def test_cycles_never_decide_even_where_the_base_counts_agreed() -> None:
    """An A/A gate run of this repository: the base's two cycle-weighted counts agreed, the
    head's (same commit) was 15% lower, its instructions the same: unchanged, not blocked."""
    base = _side(0.461, 0.024)
    head = _side(0.461, 0.024, cycles_factor=0.393 / 0.461)
    efficiency, share = _rows(base, head, base)
    assert efficiency.verdict is share.verdict is CaseVerdict.UNCHANGED
    assert efficiency.figure == share.figure == "instructions"
    assert efficiency.ratio == pytest.approx(1.0)


def test_two_base_counts_that_disagree_in_every_weighting_are_refused() -> None:
    """Both weightings moved 4% between the base's counts (beyond half of 5%): INVALID, not
    deterministic enough to decide (the gate's exit 3), whatever the head says."""
    base = _side(0.25, 0.024)
    again = {k: Measurement(k, (m.samples[0] * 1.04,), version=m.version) for k, m in base.items()}
    for row in _rows(base, _side(0.10, 0.09), again):
        assert row.verdict is CaseVerdict.INVALID and row.reason is Reason.SIM_UNSTABLE
        assert "4.000%" in row.note


def test_a_small_spread_widens_the_interval_and_still_decides() -> None:
    """1% apart in both weightings (within half the threshold): decided, interval widened."""
    base = _side(0.25, 0.024)
    again = {k: Measurement(k, (m.samples[0] * 1.01,), version=m.version) for k, m in base.items()}
    efficiency, _ = _rows(base, _side(0.20, 0.03), again)
    assert efficiency.verdict is CaseVerdict.REGRESSED
    assert efficiency.ci_low == pytest.approx(1.25 / 1.01)


def test_a_base_counted_once_is_not_checked() -> None:
    efficiency, share = _rows(_side(0.25, 0.024), _side(0.13, 0.05), {})
    assert efficiency.verdict is share.verdict is CaseVerdict.INVALID
    assert efficiency.reason is Reason.SIM_UNCHECKED


def test_a_drop_the_projected_time_explains_is_reported_only() -> None:
    """The parallel work halved (a speed-up): the serial share rose and E fell, but the
    projected time at T fell by 30%: nothing runs slower, the rows do not block."""
    base = _side(0.25, 0.024, path=1e6)
    efficiency, share = _rows(base, _side(0.2, 0.04, path=0.7e6), base)
    assert efficiency.verdict is CaseVerdict.REGRESSED and not efficiency.blocking
    assert "projected time at 32 threads got faster (-30.0%)" in efficiency.note
    assert not share.blocking


def test_versions_failures_and_single_sides_are_decided_as_elsewhere() -> None:
    base = _side(0.25, 0.024)
    efficiency, _ = _rows(base, _side(0.25, 0.024, version="simt-2"), base)
    assert efficiency.reason is Reason.VERSION_DIFFERS
    efficiency, _ = _rows({}, _side(0.25, 0.024), {})
    assert efficiency.verdict is CaseVerdict.NEW


def test_the_single_thread_rows_ignore_the_scaling_family() -> None:
    """compare_sim decides track_cycles cases only: the scaling family has none."""
    base = _side(0.25, 0.024)
    assert compare_sim(base, base, base, CONFIG) == []


def _projected(share: float, imbalance: float, work: float = 8e6) -> dict[CaseKey, Measurement]:
    """A side at 32 threads whose stored figures come from ``share`` and ``imbalance``."""
    efficiency = 1.0 / (32 * share + imbalance * (1.0 - share))
    return _side(efficiency, share, path=work / (32 * efficiency))


def test_a_blocked_efficiency_row_names_what_moved_it() -> None:
    """Issue 48, 6: a head whose last rows got heavier was blocked on "E(T) 0.854 -> 0.700"
    alone; the row names the imbalance (or the serial share) with both sides' figures."""
    base = _projected(0.005, 1.1)
    heavier, rows = _rows(base, _projected(0.005, 1.4, 8.4e6), base)
    assert heavier.verdict is CaseVerdict.REGRESSED
    assert "serial share 0.5% -> 0.5%, imbalance 1.10 -> 1.40" in heavier.note
    assert "work 8M -> 8.4M instructions a call: the imbalance moved it" in heavier.note
    serial, _ = _rows(base, _projected(0.02, 1.1), base)
    assert serial.verdict is CaseVerdict.REGRESSED
    assert serial.note.endswith("the serial share moved it")
    assert "imbalance" not in rows.note  # the serial share's own row names its figures
