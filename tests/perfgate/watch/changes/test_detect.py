"""The detector on synthetic histories at CV 2%: steps, A/A, outliers, throughput, short runs."""

from __future__ import annotations

import math

import pytest
from watch_fakes import noisy, series_of, sha, stepped

from perfgate.errors import ConfigError
from perfgate.watch.changes.detect import (
    MIN_SEGMENT,
    ChangeStatus,
    Direction,
    detect,
    min_points,
    smallest_p_value,
)

THRESHOLD = 0.03  # the hot-slice threshold: a 5% step must be caught
ALPHA = 0.05  # [tool.perfgate] alpha
SEEDS = range(20)


@pytest.mark.parametrize("step", [0.10, 0.20])
def test_clear_steps_are_found_at_their_first_bad_commit(step: float) -> None:
    for seed in SEEDS:
        found = detect(series_of(stepped(40, 20, 1 + step, seed)), THRESHOLD, ALPHA)
        assert len(found) == 1, (seed, found)
        (change,) = found
        assert change.index == 20, seed
        assert change.first_bad_commit == sha(20) and change.last_good_commit == sha(19)
        assert change.direction is Direction.REGRESSION
        assert change.ratio == pytest.approx(1 + step, abs=0.025)
        assert change.p_value < ALPHA
        assert change.status is ChangeStatus.SUSPECTED


def test_five_percent_steps_are_found_near_their_first_bad_commit() -> None:
    """2.5 noise sigmas: always found with the right direction and size; the first bad commit
    is exact in most series and one off in most others (the noise allows no better)."""
    found = [
        detect(series_of(stepped(40, 20, 1.05, seed)), THRESHOLD, ALPHA) for seed in range(40)
    ]
    assert all(len(f) == 1 for f in found), found
    changes = [f[0] for f in found]
    assert all(c.direction is Direction.REGRESSION for c in changes)
    assert all(c.ratio == pytest.approx(1.05, abs=0.02) for c in changes)
    assert sum(c.index == 20 for c in changes) >= 0.75 * len(changes)
    assert sum(abs(c.index - 20) <= 1 for c in changes) >= 0.9 * len(changes)


def test_a_faster_regime_is_an_improvement_with_ratio_below_one() -> None:
    for seed in SEEDS:
        (change,) = detect(series_of(stepped(40, 20, 1 / 1.10, seed)), THRESHOLD, ALPHA)
        assert change.index == 20
        assert change.direction is Direction.IMPROVEMENT
        assert change.ratio == pytest.approx(1 / 1.10, abs=0.02)


@pytest.mark.parametrize("n", [20, 40])
def test_a_a_series_rarely_report_a_change(n: int) -> None:
    """Same code throughout: at most 1 in 50 series may show a change beyond the threshold."""
    flagged = [s for s in range(50) if detect(series_of(noisy(n, 1000 + s)), THRESHOLD, ALPHA)]
    assert len(flagged) <= 1, flagged


def test_a_a_series_never_report_a_change_beyond_a_five_percent_threshold() -> None:
    assert not [s for s in range(50) if detect(series_of(noisy(40, 2000 + s)), 0.05, ALPHA)]


@pytest.mark.parametrize("spike", [0.6, 1.3, 3.0])
@pytest.mark.parametrize("where", [0, 17, 39])
def test_one_spike_is_not_a_change_point(spike: float, where: int) -> None:
    for seed in range(5):
        values = noisy(40, seed)
        values[where] *= spike
        assert detect(series_of(values), THRESHOLD, ALPHA) == [], (seed, where)


def test_spikes_around_a_step_do_not_move_or_add_change_points() -> None:
    for seed in range(10):
        values = stepped(40, 20, 1.10, seed)
        values[12] *= 1.5
        values[27] *= 0.6
        (change,) = detect(series_of(values), THRESHOLD, ALPHA)
        assert change.index == 20
        assert change.ratio == pytest.approx(1.10, abs=0.025)


def test_throughput_drop_is_the_regression() -> None:
    """Higher is better: base/head, so a 10% throughput loss is a ratio of 1/0.9 > 1."""
    for seed in range(10):
        values = 1e6 * stepped(40, 20, 0.90, seed)
        (change,) = detect(series_of(values, higher_is_better=True), THRESHOLD, ALPHA)
        assert change.direction is Direction.REGRESSION
        assert change.ratio == pytest.approx(1 / 0.90, abs=0.025)
        assert change.after < change.before
        (as_time,) = detect(series_of(values), THRESHOLD, ALPHA)
        assert as_time.direction is Direction.IMPROVEMENT
        assert as_time.ratio == pytest.approx(1 / change.ratio)


def test_throughput_gain_is_an_improvement() -> None:
    values = 1e6 * stepped(40, 20, 1.10, seed=3)
    (change,) = detect(series_of(values, higher_is_better=True), THRESHOLD, ALPHA)
    assert change.direction is Direction.IMPROVEMENT
    assert change.ratio == pytest.approx(1 / 1.10, abs=0.02)


def test_short_histories_give_nothing_rather_than_a_guess() -> None:
    assert min_points() == 2 * MIN_SEGMENT == 10
    for n in range(min_points()):
        values = [1.0] * (n // 2) + [2.0] * (n - n // 2)
        assert detect(series_of(values), THRESHOLD, ALPHA) == []
    distinct = [1.0 + 0.001 * i for i in range(5)] + [2.0 + 0.001 * i for i in range(5)]
    (change,) = detect(series_of(distinct), THRESHOLD, ALPHA)
    assert change.index == 5
    assert change.p_value == pytest.approx(smallest_p_value()) == 2 / 252


def test_a_change_at_the_tip_waits_for_min_segment_points_after_it() -> None:
    """Fewer points after it: nothing yet, never the change pulled earlier to fill a regime."""
    for seed in range(5):
        values = stepped(40, 20, 1.20, seed)
        for end in range(21, 20 + MIN_SEGMENT):
            assert detect(series_of(values[:end]), THRESHOLD, ALPHA) == [], (seed, end)
        (change,) = detect(series_of(values[: 20 + MIN_SEGMENT]), THRESHOLD, ALPHA)
        assert change.index == 20


def test_recovery_is_a_regression_then_an_improvement() -> None:
    for seed in range(10):
        values = stepped(45, 15, 1.10, seed)
        values[30:] /= 1.10
        regression, recovery = detect(series_of(values), THRESHOLD, ALPHA)
        assert (regression.index, regression.direction) == (15, Direction.REGRESSION)
        assert (recovery.index, recovery.direction) == (30, Direction.IMPROVEMENT)
        assert regression.ratio == pytest.approx(1.10, abs=0.025)
        assert recovery.ratio == pytest.approx(1 / 1.10, abs=0.02)


def test_several_change_points_in_one_history() -> None:
    for seed in range(10):
        values = stepped(60, 20, 1.10, seed)
        values[40:] *= 1.20
        first, second = detect(series_of(values), THRESHOLD, ALPHA)
        assert (first.index, second.index) == (20, 40)
        assert first.ratio == pytest.approx(1.10, abs=0.025)
        assert second.ratio == pytest.approx(1.20, abs=0.03)


def test_a_change_below_the_threshold_is_not_reported() -> None:
    for seed in range(10):
        values = stepped(40, 20, 1.05, seed)
        assert detect(series_of(values), 0.10, ALPHA) == []
        assert len(detect(series_of(values), THRESHOLD, ALPHA)) == 1


def test_threshold_is_a_strict_bound_as_in_the_gate() -> None:
    """Noiseless: a change of exactly 1 + threshold is not beyond it; one just above it is."""
    assert detect(series_of([1.0] * 10 + [1.25] * 10), 0.25, ALPHA) == []
    (change,) = detect(series_of([1.0] * 10 + [1.2501] * 10), 0.25, ALPHA)
    assert change.ratio == pytest.approx(1.2501)


def test_unmeasured_commits_make_the_change_a_range_of_measured_neighbours() -> None:
    values = stepped(30, 15, 1.20, seed=11)
    positions = [3 * i + (i % 2) for i in range(30)]
    (change,) = detect(series_of(values, positions=positions), THRESHOLD, ALPHA)
    assert change.index == 15
    assert (change.last_good_commit, change.first_bad_commit) == (sha(14), sha(15))


def test_detection_is_deterministic() -> None:
    series = series_of(stepped(60, 25, 1.07, seed=5))
    assert detect(series, THRESHOLD, ALPHA) == detect(series, THRESHOLD, ALPHA)


def test_constant_history_has_no_change() -> None:
    assert detect(series_of([2.5] * 30), THRESHOLD, ALPHA) == []


@pytest.mark.parametrize(
    ("threshold", "alpha", "min_segment", "message"),
    [
        (0.0, ALPHA, MIN_SEGMENT, "threshold must be a finite number > 0"),
        (math.nan, ALPHA, MIN_SEGMENT, "threshold must be a finite number > 0"),
        ("0.03", ALPHA, MIN_SEGMENT, "threshold must be a number"),
        (THRESHOLD, 0.0, MIN_SEGMENT, "alpha must be a number in (0, 1)"),
        (THRESHOLD, 1.0, MIN_SEGMENT, "alpha must be a number in (0, 1)"),
        (THRESHOLD, ALPHA, 1, "min_segment must be an int >= 2"),
        (THRESHOLD, 0.001, MIN_SEGMENT, "alpha = 0.001 is unreachable with regimes of 5"),
        (THRESHOLD, ALPHA, 3, "alpha = 0.05 is unreachable with regimes of 3"),
    ],
)
def test_bad_arguments_are_config_errors(
    threshold: float, alpha: float, min_segment: int, message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        detect(series_of(noisy(20, 0)), threshold, alpha, min_segment=min_segment)
    assert message in str(err.value)


def test_a_smaller_alpha_needs_longer_regimes() -> None:
    values = [1.0] * 7 + [2.0] * 7
    (change,) = detect(series_of(values), THRESHOLD, 0.001, min_segment=7)
    assert change.p_value < 0.001


def test_deterministic_counts_change_at_every_step_beyond_the_threshold() -> None:
    """Sim counts: single stored runs decide, from two commits on; a step out and back is
    a regression and an improvement; steps within the threshold are nothing."""
    from perfgate.watch.changes.detect import Evidence

    flat = series_of([1e6, 1e6 * 1.004, 1e6 * 0.997, 1e6], positions=[0, 3, 7, 11])
    assert detect(flat, 0.01, ALPHA, deterministic=True) == []
    step = series_of([1e6, 1e6, 1.015e6, 1.015e6], positions=[0, 3, 7, 11])
    (change,) = detect(step, 0.01, ALPHA, deterministic=True)
    assert (change.index, change.evidence, change.direction) == (
        2,
        Evidence.COUNTS,
        Direction.REGRESSION,
    )
    assert change.ratio == pytest.approx(1.015) and change.p_value == 0.0
    assert change.last_good_commit == step.points[1].commit
    back = series_of([1e6, 1.02e6, 1e6], positions=[0, 1, 2])
    assert [c.direction for c in detect(back, 0.01, ALPHA, deterministic=True)] == [
        Direction.REGRESSION,
        Direction.IMPROVEMENT,
    ]
