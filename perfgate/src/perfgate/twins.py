"""Which sim case stands for which wall-clock case (pure): a sim case's wall twin is the
wall case of ``[tool.perfgate.sim] wall`` with its params at one thread. The report and the
wall clock's sampling ask it what the simulator saw of a wall case (`coverage`, `covering`)
and draw the two side by side (`side_by_side`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfgate import agreement
from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey
from perfgate.verdict import CaseVerdict


def wall_twin(key: CaseKey, config: GateConfig) -> CaseKey | None:
    """The wall-clock case a sim case stands beside (``[tool.perfgate.sim] wall`` with the
    same params), as `single_thread_key` names it; None without a pairing."""
    if config.sim.wall is None:
        return None
    return CaseKey(config.sim.wall, key.params).canonical()


def wall_key(key: CaseKey, config: GateConfig) -> CaseKey | None:
    """The full key of a sim case's wall-clock twin: its params, then the thread param at
    1 (the order a suite's params usually have), for drawing the two side by side."""
    if config.sim.wall is None:
        return None
    thread = config.scaling.thread_param if config.scaling else "threads"
    return CaseKey(config.sim.wall, (*key.params, (thread, "1")))


@dataclass(frozen=True)
class SideBySide:
    """One case as both instruments saw it, and which of them decided it."""

    wall: CaseComparison | None
    sim: CaseComparison | None

    @property
    def decided_by(self) -> str:
        """The instrument whose verdict the decision follows: a stable regression, else the
        one that could see the case (the simulator for single-thread work when the wall
        clock could not exclude a slowdown), else both."""
        rows = [r for r in (self.wall, self.sim) if r is not None]
        slower = [r.instrument for r in rows if r.verdict is CaseVerdict.REGRESSED]
        if slower:
            return " and ".join(slower)
        if agreement.disagree(self.wall, self.sim):
            return "neither: the instruments disagree (undecided)"
        if self.sim is None or self.wall is None:
            return rows[0].instrument if rows else ""
        if self.wall.verdict in (CaseVerdict.UNCHANGED, CaseVerdict.IMPROVED):
            return "both"
        return "sim (the wall clock could not exclude a slowdown)"


def side_by_side(rows: Sequence[CaseComparison], config: GateConfig) -> list[SideBySide]:
    """Each sim case with its wall-clock twin (when the run compared it), in row order."""
    walls = {}
    for row in rows:
        key = single_thread_key(row.key, config) if row.instrument == "wall" else None
        if key is not None:
            walls[key] = row
    out = []
    for row in rows:
        if row.instrument == "sim":
            twin = wall_twin(row.key, config)
            out.append(SideBySide(walls.get(twin) if twin is not None else None, row))
    return out


def single_thread_key(key: CaseKey, config: GateConfig) -> CaseKey | None:
    """A wall case's key without its thread param when it runs one thread (canonical), for
    matching with `wall_twin`; None for a case of several threads, which the simulator
    (one thread, serialized) cannot stand for."""
    thread = config.scaling.thread_param if config.scaling else "threads"
    if key.param(thread) not in (None, "1"):
        return None
    return key.without(thread).canonical()


def coverage(rows: Sequence[CaseComparison], config: GateConfig) -> dict[CaseKey, CaseComparison]:
    """`wall_twin` -> the sim row that saw that wall case's single-thread work: a sim row
    that compared both sides (unchanged, improved or regressed). Look a wall row up with
    `covering`."""
    seen = {CaseVerdict.UNCHANGED, CaseVerdict.IMPROVED, CaseVerdict.REGRESSED}
    out = {}
    for row in rows:
        twin = wall_twin(row.key, config) if row.instrument == "sim" else None
        if twin is not None and row.verdict in seen:
            out[twin] = row
    return out


def covering(
    row: CaseComparison, covered: Mapping[CaseKey, CaseComparison], config: GateConfig
) -> CaseComparison | None:
    """The sim row in ``covered`` (`coverage`) that saw wall ``row``'s work, if any."""
    if row.instrument != "wall":
        return None
    key = single_thread_key(row.key, config)
    return covered.get(key) if key is not None else None
