"""perfgate.sim.scaling.why: the projection behind an E(T) row, and what moved it."""

from __future__ import annotations

import pytest

from perfgate.sim.cost import Events
from perfgate.sim.scaling.model import ThreadCounts, project
from perfgate.sim.scaling.why import breakdown, moved_most, why_text


def _call(serial: int, workers: list[int]) -> ThreadCounts:
    return ThreadCounts(Events(serial), tuple(Events(w) for w in workers))


def test_the_breakdown_recovers_the_models_imbalance_and_work() -> None:
    """From the three stored figures alone: the model's own imbalance and work a call."""
    scaling = project([_call(40_000, [100_000] * 7 + [250_000])], [1], "instructions")
    found = breakdown(
        scaling.efficiency, scaling.serial_share, scaling.critical_path, scaling.threads
    )
    assert found is not None
    assert found.imbalance == pytest.approx(scaling.imbalance)
    assert found.work == pytest.approx(scaling.total)
    assert found.serial_share == pytest.approx(scaling.serial_share)


@pytest.mark.parametrize(
    ("efficiency", "share", "path", "threads"),
    [(0.0, 0.1, 1.0, 8), (1.5, 0.1, 1.0, 8), (0.5, 1.0, 1.0, 8), (0.5, 0.1, 0.0, 8),
     (0.5, 0.1, 1.0, 0), (float("nan"), 0.1, 1.0, 8), (0.9, 0.2, 1.0, 8)],
)  # fmt: skip
def test_figures_that_describe_no_projection_give_none(
    efficiency: float, share: float, path: float, threads: int
) -> None:
    """Out of range, or an imbalance below 1 (0.9 at 20% serial work over 8 threads)."""
    assert breakdown(efficiency, share, path, threads) is None


def test_heavier_last_rows_are_put_down_to_the_imbalance_more_serial_work_to_the_share() -> None:
    even = project([_call(20_000, [100_000] * 8)], [1], "instructions")
    heavy = project([_call(20_000, [100_000] * 7 + [160_000])], [1], "instructions")
    serial = project([_call(90_000, [100_000] * 8)], [1], "instructions")
    b, h, s = (
        breakdown(x.efficiency, x.serial_share, x.critical_path, x.threads)
        for x in (even, heavy, serial)
    )
    assert b is not None and h is not None and s is not None
    assert moved_most(b, h) == "imbalance" and moved_most(b, s) == "serial share"
    text = why_text(b, h, "instructions")
    assert text == (
        "serial share 2.4% -> 2.3%, imbalance 1.00 -> 1.49, work 820k -> 880k instructions a "
        "call: the imbalance moved it"
    )
