"""System-wide CPU utilisation over a window, from the ``cpu`` line of ``/proc/stat``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROC_STAT = Path("/proc/stat")


@dataclass(frozen=True)
class CpuTimes:
    """Cumulative jiffies: ``busy`` (all but idle and iowait) and ``total``."""

    busy: int
    total: int


def parse_cpu_line(line: str) -> CpuTimes:
    """Parse the aggregate ``cpu  user nice system idle iowait irq softirq steal ...`` line.

    Guest time is already included in user/nice, so only the first 8 fields are summed.
    """
    parts = line.split()
    if not parts or parts[0] != "cpu" or len(parts) < 5:
        raise ValueError(f"/proc/stat: expected the aggregate 'cpu' line, got {line!r}")
    values = [int(v) for v in parts[1:9]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    total = sum(values)
    return CpuTimes(busy=total - idle, total=total)


def read_cpu_times(path: Path = PROC_STAT) -> CpuTimes | None:
    """The current counters, or ``None`` where ``/proc/stat`` does not exist."""
    try:
        first = path.read_text().splitlines()[0]
    except OSError:
        return None
    return parse_cpu_line(first)


def utilisation_pct(start: CpuTimes | None, end: CpuTimes | None) -> float | None:
    """Busy share of all cores between two readings, in percent (``None`` if unknown)."""
    if start is None or end is None or end.total <= start.total:
        return None
    return 100.0 * (end.busy - start.busy) / (end.total - start.total)
