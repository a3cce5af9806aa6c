"""Recovery by measurement (`perfgate.watch.recheck`) with the fake prober: an open measured
regression is re-measured at a newer tip once, recovered when A/B finds it back."""

from __future__ import annotations

import dataclasses

from fake_prober import FakeProber
from test_watch_confirm import CASE, HISTORY, _plan, _suspected
from watch_fakes import series_of, sha, step_change

from perfgate.watch.changes.detect import ChangeStatus, Direction
from perfgate.watch.confirm import follow_up
from perfgate.watch.recheck import recheck, wants_recheck
from perfgate.watch.records.state import WatchedChange
from perfgate.watch.run import Analysis, follow_up_all


def _bisected(prober: FakeProber, regime_end: int = 7) -> WatchedChange:
    snap = follow_up(_suspected(), CASE, _plan(prober), regime_end=sha(regime_end))
    assert snap is not None and snap.status is ChangeStatus.BISECTED
    return snap


def test_confirming_records_how_far_the_probes_covered() -> None:
    """The newest commit a probe measured, not the regime's end (never measured here)."""
    snap = _bisected(FakeProber(HISTORY, sha(6)), regime_end=9)
    assert snap.checked_through == sha(7)
    assert _bisected(FakeProber(HISTORY, sha(6)), regime_end=7).checked_through == sha(7)


def test_a_newer_tip_back_at_a_recovers_the_regression() -> None:
    prober = FakeProber(HISTORY, sha(6), recovery=sha(10))
    open_change = _bisected(prober)
    calls = len(prober.calls)
    snap = recheck(open_change, CASE, _plan(prober), sha(11))
    assert snap is not None
    assert (snap.status, snap.recovered_by, snap.checked_through) == (
        ChangeStatus.RECOVERED,
        sha(11),
        sha(11),
    )
    assert prober.calls[calls:] == [(sha(3), sha(11))]
    assert snap.sequence == open_change.sequence + 1 and snap.culprit == sha(6)


def test_a_tip_still_worse_is_measured_once() -> None:
    prober = FakeProber(HISTORY, sha(6))
    open_change = _bisected(prober)
    snap = recheck(open_change, CASE, _plan(prober), sha(11))
    assert snap is not None and snap.status is ChangeStatus.BISECTED
    assert snap.checked_through == sha(11) and snap.probes[-1].head == sha(11)
    calls = len(prober.calls)
    assert recheck(snap, CASE, _plan(prober), sha(11)) is None  # that tip is covered
    assert len(prober.calls) == calls


def test_nothing_to_recheck() -> None:
    prober = FakeProber(HISTORY, sha(6))
    open_change = _bisected(prober, regime_end=9)
    history = HISTORY
    assert not wants_recheck(open_change, prober.machine, sha(7), history)  # covered (B)
    assert wants_recheck(open_change, prober.machine, sha(9), history)  # regime end, unmeasured
    assert not wants_recheck(open_change, prober.machine, None, history)
    assert not wants_recheck(open_change, "elsewhere", sha(11), history)
    assert not wants_recheck(_suspected(), prober.machine, sha(11), history)
    better = dataclasses.replace(open_change, direction=Direction.IMPROVEMENT)
    assert not wants_recheck(better, prober.machine, sha(11), history)
    assert wants_recheck(open_change, prober.machine, sha(11), history)
    calls = len(prober.calls)
    assert recheck(_suspected(), CASE, _plan(prober), sha(11)) is None
    assert recheck(open_change, CASE, _plan(prober, minutes=0.0), sha(11)) is None  # no budget
    assert len(prober.calls) == calls


def test_a_tip_beyond_the_regime_is_rechecked_in_the_same_run() -> None:
    """A later (noise) change ends the regression's regime at 8 while 11 is stored: the run
    that bisects also measures A against 11, so the next run has nothing left to measure."""
    series = series_of([1.0] * 12)  # commits sha(0)..sha(11), one per position

    def change(good: int, bad: int, direction: Direction) -> WatchedChange:
        return step_change(series, sha(good), sha(bad), direction, index=bad)

    slower, noise = change(3, 7, Direction.REGRESSION), change(7, 9, Direction.IMPROVEMENT)
    analysis = Analysis((slower, noise), (), {slower.case: series})
    prober = FakeProber(HISTORY, sha(6))
    done = follow_up_all(analysis, _plan(prober), lambda _c: CASE)
    snap = next(c for c in done.changes if c.change_id == slower.change_id)
    assert (snap.status, snap.culprit, snap.checked_through) == (
        ChangeStatus.BISECTED,
        sha(6),
        sha(11),
    )
    assert prober.calls[-1] == (sha(3), sha(11)) and snap.sequence == slower.sequence + 1
    calls = len(prober.calls)
    again = follow_up_all(Analysis(done.changes, (), done.series), _plan(prober), lambda _c: CASE)
    assert len(prober.calls) == calls and again.snapshots == ()
