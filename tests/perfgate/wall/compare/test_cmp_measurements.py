"""perfgate.wall.compare.measurements: paired rounds from a sample file."""

from __future__ import annotations

from cmp_helpers import key, one

from perfgate.model import Measurement
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.measurements import measurements_from_samples


def test_a_flaky_base_round_is_dropped_not_a_failed_case() -> None:
    """Base failing in one of 8 rounds: that round leaves both sides (pairing kept) and the
    2x regression is still found; head failing in one round fails head (it blocks)."""
    from perfgate.formats.samples import PairedCase, SampleRun

    k = key()
    base_rounds = [(1.0 + 0.01 * i, 1.0) for i in range(8)]
    head_rounds = [(2.0 + 0.01 * i, 2.0) for i in range(8)]

    def measure(b: list, h: list) -> tuple[Measurement, Measurement]:  # type: ignore[type-arg]
        case = PairedCase(k, tuple(b), tuple(h))
        run = SampleRun("s", "a" * 40, "b" * 40, {}, "seconds", "", {k: case}, ())
        base, head = measurements_from_samples(run)
        return base[k], head[k]

    b, h = measure([*base_rounds[:3], None, *base_rounds[4:]], head_rounds)
    assert not b.failed and b.n == h.n == 7
    assert one(b, h).verdict is CaseVerdict.REGRESSED
    b, h = measure(base_rounds, [*head_rounds[:3], None, *head_rounds[4:]])
    assert h.failed and not b.failed
    b, h = measure([None] * 8, head_rounds)
    assert b.failed and not h.failed
