"""perfgate.wall.compare.compile_times: reported, never gated."""

from __future__ import annotations

from cmp_helpers import NO_CONFIRM, key

from perfgate.model import Measurement
from perfgate.wall.compare.compile_times import compile_times
from perfgate.wall.compare.runs import compare_runs


def test_compile_times_are_reported_not_gated() -> None:
    """Compile benchmarks go to their own rows and never into the gated comparison."""
    k = key("b.track_compile_seconds")
    base, head = {k: Measurement(k, (2.0,))}, {k: Measurement(k, (3.0,))}
    assert compare_runs(base, head, NO_CONFIRM) == []
    (row,) = compile_times(base, head, NO_CONFIRM)
    assert row.ratio == 1.5
