"""``[tool.perfgate.costs]``: what one round of each benchmark cost when ``perfgate init``
(or ``perfgate doctor --run``) ran the suite once, so that the first gate's plan rests on
measured seconds instead of a family default.

    [tool.perfgate.costs]
    machine = "ci-runner-1"      # where they were measured (informational)
    asv_overhead_s = 6.2         # asv's own seconds of one round, both sides
    parity_s = 41.0              # one run of parity_command, seen to pass
    quick_parity_s = 3.5         # one run of quick_parity_command, seen to pass
    [tool.perfgate.costs.benchmarks]
    'bench_core.Core.time_add' = 0.84   # one round, both sides, all parameter combinations

A plan uses these only for cases no earlier run in the work folder measured
(`perfgate.wall.first_costs`); they never change how a case is judged. ``parity_s`` and
``quick_parity_s`` are the seconds of the one run of each parity command init saw pass
(absent: not run, or it did not pass), for a plan's parity phase.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfgate import config_values as checked
from perfgate.errors import ConfigError

_WHERE = "tool.perfgate.costs"
_PARITY = ("parity_s", "quick_parity_s")


@dataclass(frozen=True)
class MeasuredCosts:
    """Seconds of one round (both sides) per benchmark, and asv's own seconds per round."""

    benchmarks: tuple[tuple[str, float], ...] = ()
    asv_overhead_s: float = 0.0
    machine: str = ""
    #: seconds of one passing run of parity_command / quick_parity_command (None: unknown)
    parity_s: float | None = None
    quick_parity_s: float | None = None

    def by_benchmark(self) -> dict[str, float]:
        """Benchmark name -> seconds of one round on both sides."""
        return dict(self.benchmarks)


def _seconds(where: str, value: Any) -> float:
    return checked.seconds(where, value)


def parse_costs(value: Any) -> MeasuredCosts:
    """The ``costs`` table, strictly checked (an unknown key or a bad value names itself)."""
    if not isinstance(value, Mapping):
        raise ConfigError(f"{_WHERE}: expected a table, got {value!r}")
    checked.check_keys(_WHERE, value, {"machine", "asv_overhead_s", "benchmarks", *_PARITY})
    table = value.get("benchmarks", {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{_WHERE}.benchmarks: expected a table, got {table!r}")
    benchmarks = tuple(
        (str(name), _seconds(f"{_WHERE}.benchmarks.{name!r}", seconds))
        for name, seconds in table.items()
    )
    return MeasuredCosts(
        benchmarks=benchmarks,
        asv_overhead_s=_seconds(f"{_WHERE}.asv_overhead_s", value.get("asv_overhead_s", 0.0)),
        machine=checked.typed(f"{_WHERE}.machine", value.get("machine", ""), str),
        **{k: _seconds(f"{_WHERE}.{k}", value[k]) for k in _PARITY if k in value},
    )
