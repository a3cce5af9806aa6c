"""Progress lines of a long run: no stage stays silent for more than `INTERVAL_S` seconds.

A first run compiles kernels for minutes inside the parity command, and an asv side of a
round runs for tens of seconds; a terminal that prints nothing for that long cannot be told
from a hang. `Progress` wraps the run's log: every stage (``with progress.stage("parity")``)
has a status its code updates (`Progress.status`, e.g. "41/97 tests"), and a daemon thread
prints ``<stage>: <status> (<elapsed> elapsed[, ~<left> left])`` whenever nothing was logged
for `INTERVAL_S` seconds. ``left`` is shown where an earlier run's timeline gave the
stage's expected duration. Only the printing is I/O; `Progress.line` is pure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: Seconds of silence after which a progress line is printed (the promise is 15 s).
INTERVAL_S = 10.0


def fmt_duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


class Progress:
    """The run's log with a heartbeat (see the module docstring)."""

    def __init__(
        self,
        log: Callable[[str], None],
        interval_s: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log = log
        self._interval = interval_s
        self._clock = clock
        self._lock = threading.RLock()
        self._stage: str | None = None
        self._status = ""
        self._started = clock()
        self._expected: float | None = None
        self._last = clock()

    def log(self, text: str) -> None:
        """Print ``text`` now (it counts as progress)."""
        with self._lock:
            self._last = self._clock()
            self._log(text)

    def status(self, text: str) -> None:
        """What the current stage is doing now (printed with the next heartbeat)."""
        with self._lock:
            self._status = text

    def line(self, now: float) -> str | None:
        """The heartbeat line at ``now`` (None: outside a stage)."""
        if self._stage is None:
            return None
        elapsed = now - self._started
        text = f"{self._stage}: {self._status or 'running'} ({fmt_duration(elapsed)} elapsed"
        if self._expected is not None and self._expected > elapsed:
            text += f", ~{fmt_duration(self._expected - elapsed)} left"
        return text + ")"

    def beat(self) -> None:
        """Print the heartbeat line when nothing was logged for the interval."""
        with self._lock:
            now = self._clock()
            text = self.line(now)
            if text is not None and now - self._last >= self._interval:
                self.log(text)

    @contextmanager
    def stage(self, name: str, expected_s: float | None = None) -> Iterator[None]:
        """Run a stage with a heartbeat thread (``expected_s``: its expected duration)."""
        with self._lock:
            self._stage, self._status = name, ""
            self._started, self._expected = self._clock(), expected_s
        done = threading.Event()
        beater = threading.Thread(target=self._beat_until, args=(done,), daemon=True)
        beater.start()
        try:
            yield
        finally:
            done.set()
            beater.join()
            with self._lock:
                self._stage = None

    def _beat_until(self, done: threading.Event) -> None:
        while not done.wait(1.0):
            self.beat()
