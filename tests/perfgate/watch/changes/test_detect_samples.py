"""Short histories (fewer than min_points measured commits) analysed on their samples.

The acceptance shape: a 12-commit history, results stored for commits 1, 4, 8 and 12 only, 20
samples per commit at CV 2%, an 8% slowdown from commit 7 on; threshold 5%, alpha 0.05.
"""

from __future__ import annotations

import numpy as np
import pytest
from watch_fakes import noisy, sampled_series, series_of, sha, stepped

from perfgate.watch.changes.detect import (
    ChangePoint,
    ChangeStatus,
    Direction,
    Evidence,
    detect,
    min_points,
)
from perfgate.watch.changes.series import HistoryPoint, Series

THRESHOLD = 0.05
ALPHA = 0.05
STORED = (1, 4, 8, 12)  # the commits of the 12 whose results were stored
STEP = 1.08  # the slowdown from commit 7 on: commits 8 and 12 are slow
SEEDS = range(20)


def ranges(changes: list[ChangePoint]) -> list[tuple[str, str, Direction]]:
    """(last good, first bad, direction) of each change."""
    return [(c.last_good_commit, c.first_bad_commit, c.direction) for c in changes]


def test_an_eight_percent_step_between_stored_commits_4_and_8_is_one_regression() -> None:
    for seed in SEEDS:
        found = detect(sampled_series([1, 1, STEP, STEP], STORED, seed), THRESHOLD, ALPHA)
        assert ranges(found) == [(sha(4), sha(8), Direction.REGRESSION)], seed
        (change,) = found
        assert change.index == 2
        assert change.evidence is Evidence.SAMPLES
        assert change.status is ChangeStatus.SUSPECTED
        assert change.ratio == pytest.approx(STEP, abs=0.015)
        assert change.p_value < ALPHA / 3


def test_the_same_stored_commits_without_the_step_suspect_nothing() -> None:
    """200 A/A histories of the acceptance shape: not one suspicion (none in 5000 either)."""
    flagged = [s for s in range(200) if detect(sampled_series([1] * 4, STORED, s), 0.05, ALPHA)]
    assert flagged == []


@pytest.mark.parametrize("n", range(2, min_points()))
def test_a_a_histories_of_two_to_nine_commits_rarely_suspect_anything(n: int) -> None:
    """Within-commit noise only: none at a 3% threshold. With a 1% offset per commit as well
    (the build and the run, which pooled samples cannot see) at most 1 in 40 at 5%."""
    positions = list(range(1, n + 1))
    quiet = [detect(sampled_series([1] * n, positions, s), 0.03, ALPHA) for s in range(40)]
    assert not any(quiet)
    shaky = [
        s
        for s in range(40)
        if detect(sampled_series([1] * n, positions, s, commit_cv=0.01), THRESHOLD, ALPHA)
    ]
    assert len(shaky) <= 1, shaky


def test_a_fix_before_the_last_stored_commit_is_a_regression_then_an_improvement() -> None:
    """Slow from commit 7, fast again from 11: only commit 8 of the stored ones is slow."""
    for seed in SEEDS:
        found = detect(sampled_series([1, 1, STEP, 1], STORED, seed), THRESHOLD, ALPHA)
        assert ranges(found) == [
            (sha(4), sha(8), Direction.REGRESSION),
            (sha(8), sha(12), Direction.IMPROVEMENT),
        ], seed
        regression, recovery = found
        assert regression.ratio == pytest.approx(STEP, abs=0.015)
        assert recovery.ratio == pytest.approx(1 / STEP, abs=0.015)


def test_throughput_drop_between_stored_commits_is_the_regression() -> None:
    for seed in SEEDS:
        levels = [2e6, 2e6, 2e6 / STEP, 2e6 / STEP]
        series = sampled_series(levels, STORED, seed, higher_is_better=True)
        (change,) = detect(series, THRESHOLD, ALPHA)
        assert (change.last_good_commit, change.first_bad_commit) == (sha(4), sha(8))
        assert change.direction is Direction.REGRESSION
        assert change.after < change.before
        assert change.ratio == pytest.approx(STEP, abs=0.015)
        levels = [2e6, 2e6, 2e6 * STEP, 2e6 * STEP]
        gain = sampled_series(levels, STORED, seed, higher_is_better=True)
        (gained,) = detect(gain, THRESHOLD, ALPHA)
        assert gained.direction is Direction.IMPROVEMENT
        assert gained.ratio == pytest.approx(1 / STEP, abs=0.015)


@pytest.mark.parametrize(
    ("levels", "positions", "expected"),
    [
        ([1, STEP], [4, 8], [(4, 8)]),
        ([1, 1], [4, 8], []),
        ([1, 1, STEP], [1, 4, 8], [(4, 8)]),
        ([1, STEP, STEP], [1, 4, 8], [(1, 4)]),
        ([1, 1, 1], [1, 4, 8], []),
    ],
)
def test_two_and_three_stored_commits(
    levels: list[float], positions: list[int], expected: list[tuple[int, int]]
) -> None:
    for seed in SEEDS:
        found = detect(sampled_series(levels, positions, seed), THRESHOLD, ALPHA)
        assert [(c.last_good_commit, c.first_bad_commit) for c in found] == [
            (sha(a), sha(b)) for a, b in expected
        ], seed
        assert all(c.direction is Direction.REGRESSION for c in found)


def test_a_step_at_the_last_stored_commit_is_suspected_at_once() -> None:
    """One commit after the step: a spike would look the same, so the A/B run decides."""
    for n in (4, 9):
        positions = list(range(1, n + 1))
        for seed in SEEDS:
            series = sampled_series([1.0] * (n - 1) + [STEP], positions, seed)
            assert ranges(detect(series, THRESHOLD, ALPHA)) == [
                (sha(n - 1), sha(n), Direction.REGRESSION)
            ]


@pytest.mark.parametrize("spike", [0.6, 1.3, 3.0])
@pytest.mark.parametrize(("n", "where"), [(5, 2), (7, 3), (9, 2), (9, 6)])
def test_one_spike_between_agreeing_commits_is_not_a_change(
    spike: float, n: int, where: int
) -> None:
    levels = [1.0] * n
    levels[where] = spike
    for seed in range(5):
        series = sampled_series(levels, range(1, n + 1), seed)
        assert detect(series, THRESHOLD, ALPHA) == [], seed


def test_a_spike_next_to_a_step_joins_the_nearer_regime() -> None:
    """1.5 is nearer the 1.1 after it than the 1.0 before it: one change, into commit 4."""
    for seed in SEEDS:
        series = sampled_series([1, 1, 1, 1.5, 1.1, 1.1, 1.1], range(1, 8), seed)
        assert ranges(detect(series, THRESHOLD, ALPHA)) == [(sha(3), sha(4), Direction.REGRESSION)]


def test_a_significant_step_below_the_threshold_is_not_suspected() -> None:
    for seed in SEEDS:
        series = sampled_series([1, 1, 1.03, 1.03], STORED, seed)
        assert detect(series, THRESHOLD, ALPHA) == []
        assert len(detect(series, 0.02, ALPHA)) == 1


def test_the_splits_of_one_history_are_one_family() -> None:
    """The same pooled samples (p = 0.040, ratio 1.024): one candidate split in a history of
    2 commits passes at alpha 0.05; the last of 2 candidates must pass at 0.025, and fails."""
    x = [1.0 + 0.01 * i for i in range(8)]
    y = [v + 0.025 for v in x]
    alone = _series([x + x, y])
    (change,) = detect(alone, 0.02, ALPHA)
    assert change.p_value == pytest.approx(0.0399, abs=5e-4)
    assert detect(_series([x, x, y]), 0.02, ALPHA) == []


def test_short_histories_without_samples_give_nothing() -> None:
    assert detect(series_of([1.0, 1.0, 2.0, 2.0]), THRESHOLD, ALPHA) == []
    with_samples = sampled_series([1, 1, 2, 2], STORED, seed=0)
    first, *rest = with_samples.points
    bare = HistoryPoint(first.commit, first.position, first.value)
    assert detect(_replace_points(with_samples, (bare, *rest)), THRESHOLD, ALPHA) == []
    assert len(detect(with_samples, THRESHOLD, ALPHA)) == 1


def test_one_stored_commit_gives_nothing() -> None:
    assert detect(sampled_series([1.0], [4], seed=0), THRESHOLD, ALPHA) == []


def test_long_histories_keep_using_commits_even_with_samples() -> None:
    values = stepped(20, 10, 1.10, seed=4)
    points = tuple(
        HistoryPoint.from_samples(sha(i), i, (v * noisy(5, 100 + i)).tolist())
        for i, v in enumerate(values)
    )
    series = _replace_points(sampled_series([1.0], [0], seed=0), points)
    (change,) = detect(series, 0.03, ALPHA)
    assert change.evidence is Evidence.COMMITS
    assert change.index == 10
    (plain,) = detect(series_of(values), 0.03, ALPHA)
    assert plain.evidence is Evidence.COMMITS


def test_sample_evidence_is_deterministic() -> None:
    series = sampled_series([1, 1, STEP, 1, 1, 1], range(1, 7), seed=9)
    assert detect(series, THRESHOLD, ALPHA) == detect(series, THRESHOLD, ALPHA)


def test_fakes_give_each_commit_its_own_samples_at_cv_two_percent() -> None:
    series = sampled_series([1.0, 2.0], [3, 5], seed=1, samples=400)
    low, high = (np.asarray(p.samples) for p in series.points)
    assert (series.points[0].commit, series.points[1].commit) == (sha(3), sha(5))
    assert np.std(low) == pytest.approx(0.02, rel=0.15)
    assert np.median(high) / np.median(low) == pytest.approx(2.0, rel=0.01)


def _series(groups: list[list[float]]) -> Series:
    points = tuple(HistoryPoint.from_samples(sha(i), i, g) for i, g in enumerate(groups))
    return _replace_points(sampled_series([1.0], [0], seed=0), points)


def _replace_points(series: Series, points: tuple[HistoryPoint, ...]) -> Series:
    return Series(series.benchmark, series.params, series.machine, series.higher_is_better, points)
