"""perfgate.sim.cost: the events of a measured call and the published cost model."""

from __future__ import annotations

import pytest

from perfgate.sim.cost import MODEL, Events, per_call, shifts


def test_cycles_follow_the_published_weights() -> None:
    """Ir + 10 x L1 misses + 100 x LL misses, every miss kind counted."""
    counts = {"Ir": 1000, "Dr": 400, "Dw": 100, "I1mr": 1, "D1mr": 2, "D1mw": 3}
    counts |= {"ILmr": 1, "DLmr": 1, "DLmw": 2}
    events = Events.from_counts(counts)
    assert events.l1_misses == 6 and events.ll_misses == 4
    assert events.cycles == 1000 + 10 * 6 + 100 * 4
    assert MODEL == "Ir+10*L1m+100*LLm"
    assert events.to_dict() == counts


def test_counts_without_ir_or_wrapped_are_refused() -> None:
    """A dump without instructions, or a negative (wrapped) total, is not a measurement."""
    with pytest.raises(ValueError, match="without Ir"):
        Events.from_counts({"Dr": 1})
    with pytest.raises(ValueError, match="negative"):
        Events.from_counts({"Ir": -5})


def test_per_call_is_the_weighted_mean_of_the_measured_calls() -> None:
    """One logging call (weight 1) and a plain one (weight 3) stand for four calls."""
    logging, plain = Events(ir=2000, d1mr=40, dlmr=4), Events(ir=1000, d1mr=20, dlmr=2)
    figures = per_call([logging, plain], [1, 3])
    assert figures["instructions"] == pytest.approx((2000 + 3 * 1000) / 4)
    assert figures["l1_misses"] == pytest.approx((40 + 60) / 4)
    assert figures["cycles"] == pytest.approx((logging.cycles + 3 * plain.cycles) / 4)
    with pytest.raises(ValueError, match="one weight per measured call"):
        per_call([plain], [1, 1])
    with pytest.raises(ValueError, match="positive sum"):
        per_call([plain], [0])


def test_shifts_name_what_moved_most_first() -> None:
    """A change of 1000 instructions outweighs 50 more L1 misses (500 cycles) and 2 LL
    misses (200 cycles); the contributions are relative to the base's cycles."""
    base = {"instructions": 100_000.0, "l1_misses": 1000.0, "ll_misses": 10.0}
    head = {"instructions": 101_000.0, "l1_misses": 1050.0, "ll_misses": 12.0}
    out = shifts(base, head, 200_000.0)
    assert [s.event for s in out] == ["instructions", "l1_misses", "ll_misses"]
    assert out[0].contribution == pytest.approx(1000 / 200_000)
    assert out[1].contribution == pytest.approx(500 / 200_000)
    assert out[2].ratio == pytest.approx(1.2)
    assert shifts(base, head, 0.0) == ()
