"""Which instruments a gate run measures with, and what each one selects (pure).

``[tool.perfgate] instruments`` names them: ``wall`` (asv's timings in paired rounds) and
``sim`` (callgrind's counts, one per side). Unset, both run where valgrind is installed and
the wall clock alone elsewhere, and the report says so; ``sim`` named explicitly on a machine
without valgrind is an error naming the install command, never a silent skip.

The sim family (``[tool.perfgate.sim] bench``) is measured by the sim instrument only: the
wall clock's selection excludes it (its asv runs would otherwise run valgrind every round),
and a ``--bench`` selection applies to both, each keeping its own family.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from perfgate.config import GateConfig
from perfgate.errors import UserError
from perfgate.model import CaseComparison, CaseKey
from perfgate.pipeline.compare import agreement
from perfgate.sim.callgrind import INSTALL_HINT
from perfgate.verdict import CaseVerdict

S = TypeVar("S", bound=Any)

#: One line for the report: what the simulator cannot see.
SIM_BLIND = (
    "the sim instrument counts one thread's instructions and simulated cache misses: it "
    "cannot see threads, memory bandwidth, NUMA placement or clock frequency, which only the "
    "wall clock measures, and leaves it a change of misses alone (the same instructions): "
    "such misses follow where the data lie"
)


@dataclass(frozen=True)
class Instruments:
    """The instruments of one run, their ``--bench`` selections and a note for the report."""

    wall: bool
    sim: bool
    wall_bench: tuple[str, ...]
    sim_bench: tuple[str, ...]
    note: str


def selects(regexes: Sequence[str], names: Iterable[str]) -> bool:
    """True when asv's ``--bench`` ``regexes`` select any of ``names`` (asv's names)."""
    return any(re.search(r, n) for n in names for r in regexes)


def narrowed(settings: S, names: Iterable[str]) -> S:
    """``settings`` (a run's `GateSettings`) without the instrument whose selection matches
    none of the discovered ``names``: a ``--bench`` of the sim family alone runs no wall
    round, one of timed benchmarks alone counts nothing."""
    found = list(names)
    wall = settings.wall and selects(settings.bench, found)
    sim = settings.sim_bench if selects(settings.sim_bench, found) else ()
    return replace(settings, wall=wall, bench=settings.bench if wall else (), sim_bench=sim)


def _anywhere(regex: str) -> str:
    """``regex`` as a lookahead body that searches the whole name (as asv's ``re.search``)."""
    return f".*?(?:{regex})"


def excluding(selection: Sequence[str], family: Sequence[str]) -> tuple[str, ...]:
    """Each regex of ``selection`` narrowed to names no regex of ``family`` matches."""
    if not family:
        return tuple(selection)
    banned = "".join(f"(?!{_anywhere(f)})" for f in family)
    return tuple(f"^{banned}(?={_anywhere(r)})" for r in selection)


def within(selection: Sequence[str], family: Sequence[str]) -> tuple[str, ...]:
    """Each regex of ``selection`` narrowed to names some regex of ``family`` matches."""
    either = "|".join(f"(?:{f})" for f in family)
    return tuple(f"^(?={_anywhere(r)})(?={_anywhere(either)})" for r in selection)


def _checked(regexes: tuple[str, ...], what: str) -> tuple[str, ...]:
    for regex in regexes:
        try:
            re.compile(regex)
        except re.error as exc:
            raise UserError(
                f"{what}: cannot combine the selection into {regex!r}: {exc}"
            ) from None
    return regexes


#: Why a shard counts nothing with the simulator.
SHARD_NOTE = (
    "sim instrument: not in a shard of the wall clock's gate (the sim instrument needs no "
    "pinned runner: perf-gate-sim.yml counts it on a hosted runner)"
)


def _sim_state(
    config: GateConfig, valgrind: str | None, supported: bool, shard: bool
) -> tuple[bool, str]:
    """(sim on, note): explicit ``sim`` without valgrind (or off x86-64) raises."""
    explicit = config.instruments is not None
    wanted = "sim" in (config.instruments or ("wall", "sim"))
    if not wanted:
        return False, "sim instrument: off ([tool.perfgate] instruments)"
    if shard:
        return False, SHARD_NOTE
    problem = None
    if not supported:
        problem = "the sim instrument needs x86-64 Linux"
    elif valgrind is None:
        problem = f"valgrind is not installed ({INSTALL_HINT})"
    if problem is None:
        return True, f"sim instrument: callgrind of valgrind {valgrind}; {SIM_BLIND}"
    if explicit:
        raise UserError(f"[tool.perfgate] instruments names sim, but {problem}")
    return False, f"sim instrument: off, {problem}; the wall clock alone decided this run"


def resolve(
    config: GateConfig,
    bench: Sequence[str],
    quick: bool,
    valgrind: str | None,
    supported: bool = True,
    shard: bool = False,
) -> Instruments:
    """The run's instruments: ``bench`` is ``--bench`` (empty: the configured selections),
    ``valgrind`` the installed version (None: not installed); a ``shard`` of the sharded
    gate measures with the wall clock only."""
    sim, note = _sim_state(config, valgrind, supported, shard)
    family = config.sim.bench
    if bench:
        sim_sel = within(bench, family)
    else:
        sim_sel = (config.sim.quick_bench if quick else None) or family
    return Instruments(
        wall=_wall_on(config),
        sim=sim,
        wall_bench=wall_selection(config, bench, quick),
        sim_bench=_checked(tuple(sim_sel), "sim selection") if sim else (),
        note=note,
    )


def _wall_on(config: GateConfig) -> bool:
    return "wall" in (config.instruments or ("wall", "sim"))


def wall_selection(config: GateConfig, bench: Sequence[str], quick: bool) -> tuple[str, ...]:
    """The wall clock's ``--bench`` regexes (`resolve`'s ``wall_bench``): they depend on
    the configuration alone, never on whether valgrind is installed, so a plan needs no
    valgrind version to name them."""
    if not _wall_on(config):
        return ()
    if bench:
        wall_sel = tuple(bench)
    else:
        wall_sel = (
            config.quick_bench if quick and config.quick_bench else None
        ) or config.gate_bench
    return _checked(excluding(wall_sel, config.sim.bench), "wall selection")


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
