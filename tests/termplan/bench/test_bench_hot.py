"""``bench hot`` measurement rounds: rotation, priming, and the step each call sees."""

from __future__ import annotations

from typing import Any

import pytest

from termplan.bench import hot


class _Recorder:
    """A stand-in hot slice that records the step of every call, in order."""

    def __init__(self, name: str, calls: list[tuple[str, int]]) -> None:
        self.name = name
        self.calls = calls

    def compute(self, batch: Any, step: int = 0) -> None:
        self.calls.append((self.name, step))


def _cases(calls: list[tuple[str, int]]) -> list[hot._Case]:
    return [hot._Case(p, 1, _Recorder(p, calls)) for p in ("a", "b")]  # type: ignore[arg-type]


@pytest.mark.parametrize("prime", [True, False])
def test_each_timed_call_sees_the_next_step(prime: bool) -> None:
    """Timed calls advance the step once each (logging steps keep their share); a primed call
    runs the same step untimed just before."""
    calls: list[tuple[str, int]] = []
    cases = _cases(calls)
    hot._measure(cases, None, iters=3, warmup=1, prime=prime)
    assert [len(c.samples_ms) for c in cases] == [3, 3]
    measured = calls[4:]  # compile call and one warm-up round per case
    if prime:
        assert measured[0::2] == measured[1::2]
        measured = measured[1::2]
    assert measured == [("a", 2), ("b", 2), ("b", 3), ("a", 3), ("a", 4), ("b", 4)]
