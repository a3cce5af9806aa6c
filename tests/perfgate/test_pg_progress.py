"""perfgate.progress: no stage stays silent longer than the interval."""

from __future__ import annotations

import time

from perfgate.progress import Progress, fmt_duration


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_silent_stage_gets_a_line_with_status_elapsed_and_left() -> None:
    """After the interval without output the status is printed; a line resets the clock."""
    out: list[str] = []
    clock = Clock()
    progress = Progress(out.append, interval_s=10.0, clock=clock)
    progress._stage, progress._started, progress._expected = "parity", 0.0, 200.0
    progress.status("41/97 tests")
    clock.now = 9.0
    progress.beat()
    assert out == []
    clock.now = 75.0
    progress.beat()
    assert out == ["parity: 41/97 tests (1m15s elapsed, ~2m05s left)"]
    clock.now = 80.0
    progress.log("round 1/6 done")
    clock.now = 89.0
    progress.beat()
    assert out[-1] == "round 1/6 done"


def test_stage_thread_prints_and_stops() -> None:
    """The heartbeat thread prints while the stage runs and nothing after it ends."""
    out: list[str] = []
    progress = Progress(out.append, interval_s=0.05)
    with progress.stage("measure"):
        progress.status("asv measuring the base side (main-r000-base)")
        time.sleep(1.3)
    n = len(out)
    assert n >= 1 and out[0].startswith("measure: asv measuring the base side")
    time.sleep(1.2)
    assert len(out) == n
    assert progress.line(0.0) is None


def test_durations() -> None:
    assert [fmt_duration(s) for s in (4.4, 65, 3725)] == ["4s", "1m05s", "1h02m"]
