"""Bisection of a confirmed range with a fake prober: the culprit anywhere in the range,
the budget (steps and minutes) and an undecided probe stop it with the range kept."""

from __future__ import annotations

import pytest
from fake_prober import FakeClock, FakeProber
from watch_fakes import sha

from perfgate.watch.probes.bisect import Budget, Stop, narrow
from perfgate.watch.probes.prober import ProbeCase

HISTORY = [sha(i) for i in range(12)]  # commit k of main is sha(k - 1)
A, B = sha(3), sha(7)  # measured: commit 4 good, commit 8 bad
CASE = ProbeCase("hot_slice.HotSlice.time_compute", ("'assembled'",), "^x$")


def _narrow(prober: FakeProber, budget: Budget, good: str = A, bad: str = B, steps: int = 0):
    def probe(reference: str, commit: str, seconds: float):
        return prober.measure(CASE, prober.machine, reference, commit, seconds)

    return narrow(HISTORY, A, good, bad, probe, budget, steps_taken=steps)


def _budget(prober: FakeProber, steps: int = 8, minutes: float = 60.0) -> Budget:
    return Budget(steps, 60.0 * minutes, clock=prober.clock)


@pytest.mark.parametrize("culprit", [4, 5, 6, 7])
def test_the_first_commit_stably_worse_than_a_is_found_anywhere_in_the_range(
    culprit: int,
) -> None:
    prober = FakeProber(HISTORY, sha(culprit))
    done = _narrow(prober, _budget(prober))
    assert (done.stop, done.culprit) == (Stop.FOUND, sha(culprit))
    assert (done.good, done.bad) == (sha(culprit - 1), sha(culprit))
    assert len(done.probes) == 2  # log2 of the 4 commits after A
    assert all(a == A for a, _ in prober.calls)  # every probe is A against a middle commit


def test_the_culprit_in_the_middle_of_a_long_range() -> None:
    prober = FakeProber(HISTORY, sha(6))
    done = _narrow(prober, _budget(prober), good=sha(0), bad=sha(11))
    assert done.culprit == sha(6)
    assert [b for _, b in prober.calls] == [sha(5), sha(8), sha(6)]


def test_a_range_of_one_commit_needs_no_probe() -> None:
    prober = FakeProber(HISTORY, sha(7))
    done = _narrow(prober, _budget(prober), good=sha(6))
    assert (done.culprit, done.probes, prober.calls) == (sha(7), (), [])


def test_the_step_budget_stops_with_the_range_narrowed_so_far() -> None:
    prober = FakeProber(HISTORY, sha(6))
    done = _narrow(prober, _budget(prober, steps=2), steps=1)  # the confirmation was step 1
    assert (done.stop, done.culprit) == (Stop.BUDGET, None)
    assert (done.good, done.bad) == (sha(5), B)  # A vs commit 6 was not worse
    assert len(done.probes) == 1


def test_the_minute_budget_stops_before_a_probe_that_would_start_too_late() -> None:
    prober = FakeProber(HISTORY, sha(6), minutes=25.0)
    done = _narrow(prober, _budget(prober, minutes=40.0), good=sha(0), bad=sha(11))
    assert (done.stop, len(done.probes)) == (Stop.BUDGET, 2)  # at 0 and 25 min, not at 50
    assert (done.good, done.bad) == (sha(5), sha(8))


def test_an_undecided_probe_stops_instead_of_guessing_a_side() -> None:
    prober = FakeProber(HISTORY, sha(4), unknown=frozenset({sha(5)}))
    done = _narrow(prober, _budget(prober))
    assert (done.stop, done.culprit, (done.good, done.bad)) == (Stop.UNKNOWN, None, (A, B))


def test_a_range_not_in_order_is_refused() -> None:
    prober = FakeProber(HISTORY, None)
    with pytest.raises(ValueError, match="good is not before bad"):
        _narrow(prober, _budget(prober), good=B, bad=A)
    with pytest.raises(ValueError, match="not in the history"):
        _narrow(prober, _budget(prober), bad="f" * 40)


def test_the_budget_counts_steps_and_minutes() -> None:
    clock = FakeClock()
    budget = Budget(2, 120.0, clock=clock)
    assert budget.allows(1) and not budget.allows(2)
    clock.now += 120.0
    assert budget.remaining() == 0 and not budget.allows(0)
