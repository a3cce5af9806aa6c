"""perfgate.sim.scaling.model: the projection of per-thread counts, on known values."""

from __future__ import annotations

import pytest

from perfgate.sim.cost import Events
from perfgate.sim.scaling.model import Scaling, ThreadCounts, figures, project


def counts(serial: int, *workers: int) -> ThreadCounts:
    """A call whose counts are instructions only (cycles = instructions)."""
    return ThreadCounts(Events(serial), tuple(Events(w) for w in workers))


def test_even_workers_give_amdahl() -> None:
    """Serial 100 and four even shares of 200: E(4) = 900 / (4 x 300) = 0.75, which is
    Amdahl's speed-up over 4 for a serial fraction of 1/9."""
    s = project([counts(100, 200, 200, 200, 200)], [1])
    assert (s.threads, s.serial, s.parallel, s.largest_share) == (4, 100, 800, 200)
    assert s.efficiency == pytest.approx(0.75)
    fraction = 100 / 900
    assert s.efficiency == pytest.approx(1 / (4 * fraction + (1 - fraction)))
    assert s.serial_share == pytest.approx(1 / 9)
    assert s.imbalance == pytest.approx(1.0)
    assert s.critical_path == 300


def test_one_large_chunk_is_imbalance() -> None:
    """No serial work, one worker with three times the others' share: E = 600 / (4 x 300)."""
    s = project([counts(0, 100, 100, 100, 300)], [1])
    assert s.efficiency == pytest.approx(0.5)
    assert s.imbalance == pytest.approx(2.0)
    assert s.serial_share == 0.0


def test_one_thread_is_always_fully_efficient() -> None:
    assert project([counts(123, 456)], [1]).efficiency == pytest.approx(1.0)


def test_calls_are_weighted_as_work_and_critical_path() -> None:
    """Weights 1:3: serial (100 + 0) / 4 = 25, parallel 200, largest (100 + 3 x 150) / 4 =
    137.5; E(2) = 225 / (2 x 162.5), not the mean of the calls' own efficiencies."""
    s = project([counts(100, 100, 100), counts(0, 50, 150)], [1, 3])
    assert (s.serial, s.parallel, s.largest_share) == (25, 200, 137.5)
    assert s.efficiency == pytest.approx(225 / 325)


def test_misses_are_weighted_as_in_the_cost_model() -> None:
    """A worker with 1 L1 and 1 LL miss costs 100 + 10 + 100 cycles: the cycle-weighted
    projection sees its imbalance, the instructions alone do not."""
    call = ThreadCounts(Events(0), (Events(100), Events(100, d1mr=1, dlmr=1)))
    by_cycles = project([call], [1], "cycles")
    assert by_cycles.largest_share == 210 and by_cycles.parallel == 310
    assert by_cycles.efficiency == pytest.approx(310 / 420)
    assert project([call], [1], "instructions").efficiency == pytest.approx(1.0)
    both = figures([call], [1])
    assert both["efficiency"] == pytest.approx(310 / 420)
    assert both["efficiency_instructions"] == pytest.approx(1.0)
    assert set(both) == {
        "efficiency",
        "serial_share",
        "imbalance",
        "critical_path",
        "efficiency_instructions",
        "serial_share_instructions",
        "critical_path_instructions",
    }


def test_serial_work_costs_more_at_more_threads() -> None:
    """3% of the one-thread work added as serial work: E(2) drops by ~3%, E(64) by ~2/3."""

    def at(threads: int, serial: int) -> Scaling:
        return project([counts(serial, *[1000 // threads * 100] * threads)], [1])

    for threads, low, high in ((2, 0.02, 0.04), (64, 0.6, 0.7)):
        drop = 1 - at(threads, 3000).efficiency / at(threads, 0).efficiency
        assert low < drop < high


@pytest.mark.parametrize(
    ("calls", "weights", "weighting", "message"),
    [
        ([], [], "cycles", "one weight per measured call"),
        ([counts(1, 1)], [1, 1], "cycles", "one weight per measured call"),
        ([counts(1, 1)], [0], "cycles", "positive sum"),
        ([counts(1, 1), counts(1, 1, 1)], [1, 1], "cycles", "different worker counts"),
        ([counts(1, 1)], [1], "time", "weighting"),
        ([counts(0, 0)], [1], "cycles", "no work at all"),
    ],
)
def test_bad_input_is_named(
    calls: list[ThreadCounts], weights: list[int], weighting: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        project(calls, weights, weighting)


def test_a_call_without_workers_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        ThreadCounts(Events(1), ())
