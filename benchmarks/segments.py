"""Segmented time of the assembled hot slice: bind, execute and log, tracked separately.

Contract used (skipped with NotImplementedError at commits that lack it): the assembled
path's ``build`` accepts ``timing=True``; the hot slice then has ``runtime.times`` whose
attributes ``bind``, ``execute`` and ``log`` are seconds *accumulated* over calls and
``calls`` counts timed calls. One call's segment time is the difference of the accumulator
across that call. ``log`` is sampled on logging steps (``step % LOG_EVERY == 0``) only,
since other steps do no log work.
"""

from __future__ import annotations

import statistics
from typing import Any

from ._common import NUM_ENVS, TASKS, THREADS, Case

PROFILE = "sac_default"
SEGMENTS: tuple[str, ...] = ("bind", "execute", "log")
SAMPLES = 40  # calls per value (logging calls for ``log``)


def segment_times(hot: Any) -> Any:
    """The accumulator ``hot.runtime.times``; NotImplementedError when absent or partial."""
    times = getattr(getattr(hot, "runtime", None), "times", None)
    if times is None or not all(hasattr(times, a) for a in (*SEGMENTS, "calls")):
        raise NotImplementedError("the assembled hot slice has no runtime.times segments")
    return times


def segment_delta(before: float, after: float, segment: str) -> float:
    """One call's seconds in ``segment`` from the accumulator before and after it."""
    delta = float(after) - float(before)
    if not delta >= 0.0:
        raise ValueError(f"runtime.times.{segment} went from {before} to {after}")
    return delta


def _is_log_step(step: int) -> bool:
    from termplan.tasks.base import is_log_step

    return bool(is_log_step(step))


class AssembledSegments:
    """Median seconds per call of one segment of the assembled hot slice."""

    params = (TASKS, SEGMENTS, NUM_ENVS, THREADS)
    param_names = ("task", "segment", "num_envs", "threads")
    unit = "seconds"
    timeout = 300.0

    def setup(self, task: str, segment: str, num_envs: int, threads: int) -> None:
        """Build the assembled case with timing on; skip when the commit cannot."""
        try:
            self.case = Case(task, PROFILE, "assembled", num_envs, threads, timing=True)
        except TypeError as exc:
            if "timing" not in str(exc):
                raise
            raise NotImplementedError(f"assembled build has no timing option: {exc}") from exc
        self.times = segment_times(self.case.hot)

    def track_segment(self, task: str, segment: str, num_envs: int, threads: int) -> float:
        """Median over 40 calls (40 logging calls for ``log``) of the segment's seconds."""
        samples: list[float] = []
        while len(samples) < SAMPLES:
            step, calls = self.case.step, self.times.calls
            before = getattr(self.times, segment)
            self.case.call()
            if self.times.calls != calls + 1:
                raise ValueError(f"runtime.times.calls did not advance at step {step}")
            if segment != "log" or _is_log_step(step):
                samples.append(segment_delta(before, getattr(self.times, segment), segment))
        return statistics.median(samples)
