"""Confirmation and bisection of suspected regressions with a fake prober (planted culprit):
the status each A/B outcome leads to, the budget, resuming from stored progress, and the
one-snapshot-per-run rule."""

from __future__ import annotations

import dataclasses

from fake_prober import FakeProber
from watch_fakes import series_of, sha, step_change

from perfgate.watch.changes.detect import ChangeStatus, Direction
from perfgate.watch.confirm import FollowUp, follow_up, resume_range
from perfgate.watch.probes.bisect import Budget
from perfgate.watch.probes.prober import ProbeCase, ProbeVerdict
from perfgate.watch.records.state import WatchedChange
from perfgate.watch.records.state_file import parse_record, record_bytes, record_path

HISTORY = [sha(i) for i in range(12)]  # commit k of main is sha(k - 1)
SERIES = series_of([1.0, 1.0, 1.08, 1.08], positions=[0, 3, 7, 11])
CASE = ProbeCase(SERIES.benchmark, SERIES.params, "^x$")
SUBJECTS = {sha(6): "Vectorise the slice (#42)"}


def _suspected(good: int = 3, bad: int = 7, direction: Direction = Direction.REGRESSION):
    return step_change(SERIES, sha(good), sha(bad), direction)


def _plan(prober: FakeProber, bisect: bool = True, steps: int = 8, minutes: float = 60.0):
    return FollowUp(
        prober,
        Budget(steps, 60.0 * minutes, clock=prober.clock),
        HISTORY,
        bisect=bisect,
        subject_of=lambda commit: SUBJECTS.get(commit, "a commit"),
    )


def test_confirmed_then_bisected_to_the_culprit_and_its_pull_request() -> None:
    prober = FakeProber(HISTORY, sha(6))
    snap = follow_up(_suspected(), CASE, _plan(prober))
    assert snap is not None
    assert (snap.status, snap.culprit, snap.culprit_pr) == (ChangeStatus.BISECTED, sha(6), 42)
    assert (snap.narrowed_good, snap.narrowed_bad, snap.sequence) == (sha(5), sha(6), 2)
    assert prober.calls == [(sha(3), sha(7)), (sha(3), sha(5)), (sha(3), sha(6))]
    assert [p.verdict for p in snap.probes] == [
        ProbeVerdict.WORSE,
        ProbeVerdict.NOT_WORSE,
        ProbeVerdict.WORSE,
    ]
    assert prober.cases == [CASE] * 3


def test_the_culprit_at_the_first_and_the_last_commit_of_the_range() -> None:
    for culprit in (4, 7):
        snap = follow_up(_suspected(), CASE, _plan(FakeProber(HISTORY, sha(culprit))))
        assert snap is not None and (snap.status, snap.culprit) == (
            ChangeStatus.BISECTED,
            sha(culprit),
        )
        assert snap.culprit_pr is None  # its subject names no pull request


def test_confirm_only_keeps_the_range_for_a_bisection_later() -> None:
    prober = FakeProber(HISTORY, sha(6))
    snap = follow_up(_suspected(), CASE, _plan(prober, bisect=False))
    assert snap is not None and snap.status is ChangeStatus.CONFIRMED
    assert (snap.narrowed_good, snap.narrowed_bad, snap.culprit) == (sha(3), sha(7), None)
    assert len(prober.calls) == 1


def test_a_range_of_one_commit_is_bisected_by_its_confirmation() -> None:
    prober = FakeProber(HISTORY, sha(7))
    snap = follow_up(_suspected(good=6, bad=7), CASE, _plan(prober))
    assert snap is not None and (snap.status, snap.culprit) == (ChangeStatus.BISECTED, sha(7))
    assert len(prober.calls) == 1


def test_an_ab_that_finds_no_change_does_not_confirm() -> None:
    prober = FakeProber(HISTORY, None)
    snap = follow_up(_suspected(), CASE, _plan(prober))
    assert snap is not None and snap.status is ChangeStatus.NOT_CONFIRMED
    assert (snap.culprit, len(snap.probes), len(prober.calls)) == (None, 1, 1)
    assert follow_up(snap, CASE, _plan(prober)) is None  # never probed again


def test_an_undecided_confirmation_stays_suspected_with_its_probe_recorded() -> None:
    prober = FakeProber(HISTORY, sha(6), unknown=frozenset({sha(7)}))
    snap = follow_up(_suspected(), CASE, _plan(prober))
    assert snap is not None and snap.status is ChangeStatus.SUSPECTED
    assert [p.verdict for p in snap.probes] == [ProbeVerdict.UNKNOWN]


def test_an_exhausted_budget_stays_confirmed_and_a_later_run_resumes() -> None:
    prober = FakeProber(HISTORY, sha(6))
    first = follow_up(_suspected(), CASE, _plan(prober, steps=2))
    assert first is not None and first.status is ChangeStatus.CONFIRMED
    assert (first.culprit, first.narrowed_good, first.narrowed_bad) == (None, sha(5), sha(7))
    # stored on the branch and read back by the next run
    content = record_bytes(first, "2026-12-01T19:00:00Z")
    stored = parse_record(content, record_path(first, content))
    assert stored == first
    prober.calls.clear()
    second = follow_up(stored, CASE, _plan(prober, steps=2))
    assert second is not None and (second.status, second.culprit) == (
        ChangeStatus.BISECTED,
        sha(6),
    )
    assert prober.calls == [(sha(3), sha(6))]  # from the narrowed range, not from A..B again
    assert len(second.probes) == 3 and second.sequence == first.sequence + 1


def test_no_budget_left_probes_nothing() -> None:
    prober = FakeProber(HISTORY, sha(6))
    plan = _plan(prober, minutes=1.0)
    prober.clock.now += 60.0
    assert follow_up(_suspected(), CASE, plan) is None and prober.calls == []


def test_improvements_and_other_machines_are_not_probed() -> None:
    prober = FakeProber(HISTORY, sha(6))
    assert follow_up(_suspected(direction=Direction.IMPROVEMENT), CASE, _plan(prober)) is None
    elsewhere = dataclasses.replace(_suspected(), machine="another-runner")
    assert follow_up(elsewhere, CASE, _plan(prober)) is None
    assert prober.calls == []


def test_resume_keeps_the_narrowed_range_inside_the_changes_range() -> None:
    change: WatchedChange = _suspected()
    narrowed = dataclasses.replace(change, narrowed_good=sha(5), narrowed_bad=sha(6))
    assert resume_range(narrowed, HISTORY) == (sha(5), sha(6))
    outside = dataclasses.replace(change, narrowed_good=sha(1), narrowed_bad=sha(9))
    assert resume_range(outside, HISTORY) == (sha(3), sha(7))
    crossed = dataclasses.replace(change, narrowed_good=sha(6), narrowed_bad=sha(5))
    assert resume_range(crossed, HISTORY) == (sha(3), sha(7))
    unknown = dataclasses.replace(change, narrowed_good="e" * 40, narrowed_bad="f" * 40)
    assert resume_range(unknown, HISTORY) == (sha(3), sha(7))


def test_a_step_the_history_placed_too_early_is_found_later_in_its_regime() -> None:
    """One stored run per commit drifts: the history put the step at 3..7, but the culprit is
    commit 9. B (7) is not worse than A; the regime's last measured commit (11) is, so the
    change is confirmed in 7..11 and bisected there, every probe against A."""
    prober = FakeProber(HISTORY, sha(9))
    snap = follow_up(_suspected(), CASE, _plan(prober), regime_end=sha(11))
    assert snap is not None
    assert (snap.status, snap.culprit) == (ChangeStatus.BISECTED, sha(9))
    assert prober.calls == [
        (sha(3), sha(7)),
        (sha(3), sha(11)),
        (sha(3), sha(9)),
        (sha(3), sha(8)),
    ]
    assert (snap.narrowed_good, snap.narrowed_bad) == (sha(8), sha(9))
    # confirmed only (no bisection asked): the later range is kept for a later run
    prober = FakeProber(HISTORY, sha(9))
    snap = follow_up(_suspected(), CASE, _plan(prober, bisect=False), regime_end=sha(11))
    assert snap is not None and snap.status is ChangeStatus.CONFIRMED
    assert (snap.narrowed_good, snap.narrowed_bad) == (sha(7), sha(11))
    assert resume_range(snap, HISTORY) == (sha(7), sha(11))


def test_a_regime_not_worse_at_its_end_either_is_not_confirmed() -> None:
    prober = FakeProber(HISTORY, None)
    snap = follow_up(_suspected(), CASE, _plan(prober), regime_end=sha(11))
    assert snap is not None and snap.status is ChangeStatus.NOT_CONFIRMED
    assert prober.calls == [(sha(3), sha(7)), (sha(3), sha(11))]
    assert len(snap.probes) == 2
    # B is the regime's only commit: one probe, as before
    prober = FakeProber(HISTORY, None)
    snap = follow_up(_suspected(), CASE, _plan(prober), regime_end=sha(7))
    assert snap is not None and snap.status is ChangeStatus.NOT_CONFIRMED
    assert prober.calls == [(sha(3), sha(7))]


def test_the_regime_of_a_change_ends_before_the_cases_next_change() -> None:
    from perfgate.watch.run import Analysis, regime_end

    series = series_of([1.0, 1.0, 1.08, 1.08, 1.0], positions=[0, 3, 7, 9, 11])

    def change(good: int, bad: int) -> WatchedChange:
        return step_change(series, sha(good), sha(bad), index=bad)

    step, back = change(1, 2), change(3, 4)
    alone = Analysis((step,), (), {step.case: series})
    assert regime_end(step, alone) == sha(4)  # the series' newest commit
    both = Analysis((step, back), (), {step.case: series})
    assert regime_end(step, both) == sha(3)  # the commit before the next change
    assert regime_end(back, both) == sha(4)
    elsewhere = dataclasses.replace(step, commit="e" * 40)
    assert regime_end(elsewhere, alone) is None


def test_no_budget_for_the_regime_probe_leaves_the_change_suspected() -> None:
    """B is not worse, the regime's end is still to measure but the budget is spent: the
    change stays suspected (not-confirmed would be final) and a later run measures it."""
    prober = FakeProber(HISTORY, sha(9))
    snap = follow_up(_suspected(), CASE, _plan(prober, steps=1), regime_end=sha(11))
    assert snap is not None and snap.status is ChangeStatus.SUSPECTED
    assert prober.calls == [(sha(3), sha(7))] and len(snap.probes) == 1
    later = follow_up(snap, CASE, _plan(prober), regime_end=sha(11))
    assert later is not None and (later.status, later.culprit) == (ChangeStatus.BISECTED, sha(9))
