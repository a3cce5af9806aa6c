"""Where a gate run's minutes went (``timeline.json``, ``perfgate-timeline`` v1): the only
reader and writer.

The gate writes it in its run folder once measuring is over, so that ``perfgate gate
--plan`` can predict a later run's whole time, not only the benchmarks' own seconds::

    {"api_version": 1, "kind": "perfgate-timeline", "created_at": "...",
     "parity_command": "make test-all", "parity_s": 118.2 | null, "setup_s": 6.1,
     "rounds": [{"phase": "main", "index": 0, "seconds": 612.0, "case_seconds": 590.5,
                 "asv_runs": 2}],
     "phases": [{"instrument": "sim", "seconds": 402.0,
                 "families": [{"family": "sim_scaling", "cases": 24, "runs": 3,
                               "seconds": 390.0}]}]}

``setup_s`` is the time before measuring apart from parity and the instruments measured
before the wall clock (exports, machine checks); ``parity_s`` is null when parity came from
CI. Per round: its wall time, the seconds asv recorded for its cases (durations and
``setup_cache`` phases) and how many asv processes it took; the difference is asv's own
overhead (start-up, discovery, the forkserver's imports). ``phases`` (absent in files of
older runs: none) are the instruments that measured before the wall clock's rounds, each
with its wall seconds and, per family of cases, the cases one counting run counted, the
counting runs and the family's share of the phase's seconds.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.atomic import write_json_atomic
from perfgate.errors import ResultFileError
from perfgate.formats.jsonfile import load_json

TIMELINE_API_VERSION = 1
TIMELINE_KIND = "perfgate-timeline"
TIMELINE = "timeline.json"


@dataclass(frozen=True)
class RoundTime:
    """One round's wall seconds, the seconds asv recorded for its cases, its asv runs."""

    phase: str
    index: int
    seconds: float
    case_seconds: float
    asv_runs: int

    @property
    def overhead_s(self) -> float:
        """The round's seconds outside its cases (never negative)."""
        return max(0.0, self.seconds - self.case_seconds)


@dataclass(frozen=True)
class FamilyTime:
    """One family of an instrument's phase: the cases one run counted, its runs (the sim
    phase's base, head and base again) and its share of the phase's wall seconds."""

    family: str
    cases: int
    runs: int
    seconds: float

    @property
    def per_count_s(self) -> float | None:
        """Seconds one case's count took (None: the family counted nothing)."""
        counts = self.cases * self.runs
        return self.seconds / counts if counts else None


@dataclass(frozen=True)
class PhaseTime:
    """An instrument's phase outside the wall clock's rounds (the sim phase)."""

    instrument: str
    seconds: float
    families: tuple[FamilyTime, ...] = ()


@dataclass(frozen=True)
class Timeline:
    """A gate run's time outside and inside its rounds (see the module docstring)."""

    parity_command: str
    parity_s: float | None
    setup_s: float
    rounds: tuple[RoundTime, ...]
    created_at: str = ""
    phases: tuple[PhaseTime, ...] = ()

    def phase(self, instrument: str) -> PhaseTime | None:
        """The phase of ``instrument`` (None: it did not measure in that run)."""
        return next((p for p in self.phases if p.instrument == instrument), None)


def to_document(t: Timeline) -> dict[str, Any]:
    """The JSON document of ``t``."""
    return {
        "api_version": TIMELINE_API_VERSION,
        "kind": TIMELINE_KIND,
        "created_at": t.created_at,
        "parity_command": t.parity_command,
        "parity_s": t.parity_s,
        "setup_s": t.setup_s,
        "rounds": [
            {
                "phase": r.phase,
                "index": r.index,
                "seconds": r.seconds,
                "case_seconds": r.case_seconds,
                "asv_runs": r.asv_runs,
            }
            for r in t.rounds
        ],
        "phases": [
            {
                "instrument": p.instrument,
                "seconds": p.seconds,
                "families": [
                    {"family": f.family, "cases": f.cases, "runs": f.runs, "seconds": f.seconds}
                    for f in p.families
                ],
            }
            for p in t.phases
        ],
    }


def _seconds(path: str, where: str, value: object) -> float:
    """Seconds: a finite number >= 0 (anything else names the file and the field)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ResultFileError(path, f"{where}: expected seconds (a number), got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ResultFileError(path, f"{where}: expected finite seconds >= 0, got {value!r}")
    return float(value)


def _count(path: str, where: str, value: object) -> int:
    """A count: an integer >= 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ResultFileError(path, f"{where}: expected a count, got {value!r}")
    return value


def _round(path: str, i: int, item: object) -> RoundTime:
    if not isinstance(item, Mapping):
        raise ResultFileError(path, f"rounds[{i}]: expected an object, got {item!r}")
    phase = item.get("phase")
    if not isinstance(phase, str) or not phase:
        raise ResultFileError(path, f"rounds[{i}].phase: expected a name, got {phase!r}")
    return RoundTime(
        phase=phase,
        index=_count(path, f"rounds[{i}].index", item.get("index")),
        seconds=_seconds(path, f"rounds[{i}].seconds", item.get("seconds")),
        case_seconds=_seconds(path, f"rounds[{i}].case_seconds", item.get("case_seconds")),
        asv_runs=_count(path, f"rounds[{i}].asv_runs", item.get("asv_runs")),
    )


def _name(path: str, where: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise ResultFileError(path, f"{where}: expected a name, got {value!r}")
    return value


def _family(path: str, where: str, item: object) -> FamilyTime:
    if not isinstance(item, Mapping):
        raise ResultFileError(path, f"{where}: expected an object, got {item!r}")
    return FamilyTime(
        family=_name(path, f"{where}.family", item.get("family")),
        cases=_count(path, f"{where}.cases", item.get("cases")),
        runs=_count(path, f"{where}.runs", item.get("runs")),
        seconds=_seconds(path, f"{where}.seconds", item.get("seconds")),
    )


def _phase(path: str, i: int, item: object) -> PhaseTime:
    where = f"phases[{i}]"
    if not isinstance(item, Mapping):
        raise ResultFileError(path, f"{where}: expected an object, got {item!r}")
    families = item.get("families", [])
    if not isinstance(families, list):
        raise ResultFileError(path, f"{where}.families: expected a list, got {families!r}")
    return PhaseTime(
        instrument=_name(path, f"{where}.instrument", item.get("instrument")),
        seconds=_seconds(path, f"{where}.seconds", item.get("seconds")),
        families=tuple(_family(path, f"{where}.families[{j}]", f) for j, f in enumerate(families)),
    )


def parse_timeline(data: object, path: str) -> Timeline:
    """The `Timeline` of a parsed document; anything malformed is a `ResultFileError`
    naming the file and the field."""
    if not isinstance(data, Mapping) or data.get("kind") != TIMELINE_KIND:
        raise ResultFileError(path, "not a perfgate timeline (kind perfgate-timeline)")
    if data.get("api_version") != TIMELINE_API_VERSION:
        raise ResultFileError(
            path, f"unsupported api_version {data.get('api_version')!r}; expected 1"
        )
    command, rounds = data.get("parity_command"), data.get("rounds")
    if not isinstance(command, str):
        raise ResultFileError(path, f"parity_command: expected text, got {command!r}")
    if not isinstance(rounds, list):
        raise ResultFileError(path, f"rounds: expected a list, got {rounds!r}")
    parity, phases = data.get("parity_s"), data.get("phases", [])
    if not isinstance(phases, list):
        raise ResultFileError(path, f"phases: expected a list, got {phases!r}")
    return Timeline(
        parity_command=command,
        parity_s=None if parity is None else _seconds(path, "parity_s", parity),
        setup_s=_seconds(path, "setup_s", data.get("setup_s")),
        rounds=tuple(_round(path, i, r) for i, r in enumerate(rounds)),
        created_at=str(data.get("created_at", "")),
        phases=tuple(_phase(path, i, p) for i, p in enumerate(phases)),
    )


def write_timeline(folder: str | os.PathLike[str], t: Timeline) -> Path:
    """Write ``t`` as ``timeline.json`` in ``folder``, atomically, never overwriting."""
    return write_json_atomic(Path(folder) / TIMELINE, to_document(t))


def read_timeline(folder: str | os.PathLike[str]) -> Timeline | None:
    """The timeline of a run folder (None: the run wrote none, e.g. it was stopped)."""
    path = Path(folder) / TIMELINE
    if not path.is_file():
        return None
    return parse_timeline(load_json(path), str(path))
