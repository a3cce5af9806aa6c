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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from perfgate.config import GateConfig
from perfgate.errors import UserError
from perfgate.instrument import Instrument
from perfgate.sim.callgrind import INSTALL_HINT
from perfgate.sim.face import SIM_BLIND, Simulator
from perfgate.wall.face import WallClock

S = TypeVar("S", bound=Any)

#: Every instrument, in the order the report lists their rows. Adding an instrument: one
#: package with a face (`perfgate.instrument.Instrument`) and one entry here.
REGISTRY: tuple[Instrument[Any], ...] = (WallClock(), Simulator())


def measuring_order(selected: tuple[Instrument[Any], ...]) -> list[Instrument[Any]]:
    """``selected`` in the order they measure: those that share the machine first (the
    simulator's counts run at once), those that need it alone (timings) after them."""
    return sorted(selected, key=lambda i: i.needs_machine_alone)


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
    sim_sel = sim_selection(config, bench, quick)
    return Instruments(
        wall=_wall_on(config),
        sim=sim,
        wall_bench=wall_selection(config, bench, quick),
        sim_bench=_checked(tuple(sim_sel), "sim selection") if sim else (),
        note=note,
    )


def sim_selection(config: GateConfig, bench: Sequence[str], quick: bool) -> tuple[str, ...]:
    """The sim family's ``--bench`` regexes (`resolve`'s ``sim_bench`` where the sim
    instrument runs): ``bench`` within the family, else its quick or full selection."""
    family = config.sim.bench
    if bench:
        return within(bench, family)
    return tuple((config.sim.quick_bench if quick else None) or family)


def planned_sim(config: GateConfig, valgrind: str | None) -> tuple[bool, str]:
    """(whether a run here counts with the simulator, why not) for a plan: named by the
    policy, or unset with valgrind installed (a policy naming it where valgrind is missing
    is counted too: its run refuses to start, and the note says so)."""
    named = config.instruments is not None and "sim" in config.instruments
    if config.instruments is not None and not named:
        return False, "sim instrument: off ([tool.perfgate] instruments)"
    if valgrind is None:
        if named:
            return True, f"sim instrument: named, but valgrind is not installed ({INSTALL_HINT})"
        return False, "sim instrument: off, valgrind is not installed"
    return True, ""


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
