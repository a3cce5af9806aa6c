"""The face every instrument shows the gate's stages (`Instrument`), and what passes
through it: what a measuring step is given (`Bench`), what the machine's calibration says
(`Calibration`) and what a comparison found (`Findings`).

An instrument owns what it measures, how it stores its results (asv results of its own
family, through `perfgate.asv`), how two sides are compared and what the report says it
cannot see. The stages never ask which instrument they hold: the measure stage calls
``measure`` on each instrument the run selected (those that share the machine first, then
those that need it alone), the compare stage ``compare``, and the report prints each one's
``blind_spot``. The registry is `perfgate.gate.instruments.REGISTRY`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from perfgate.config import GateConfig
from perfgate.formats.noise import SimCheck
from perfgate.formats.timeline import PhaseTime
from perfgate.model import CaseComparison, CaseKey, VariantComparison
from perfgate.progress import Progress
from perfgate.settings import GateSettings

M = TypeVar("M")


@dataclass(frozen=True)
class Calibration:
    """This machine's calibrated noise: wall-clock floors per case, sim determinism checks."""

    floors: Mapping[CaseKey, float] = field(default_factory=dict)
    checks: Mapping[CaseKey, SimCheck] = field(default_factory=dict)


@dataclass(frozen=True)
class Bench:
    """What one instrument's measuring step is given: the run's settings, its calibration,
    the gate's I/O seams (``seams``: `perfgate.gate.hooks.Hooks`, whose runners tests
    replace), where to log and the progress ticker."""

    settings: GateSettings
    calibration: Calibration
    seams: Any
    log: Callable[[str], None]
    ticker: Progress
    fingerprint: Mapping[str, Any] = field(default_factory=dict)
    #: when the run began (monotonic), its parity command and seconds (None: from CI), for
    #: an instrument that records where the run's minutes went
    started: float = 0.0
    parity: tuple[str, float | None] = ("", None)
    #: seconds the instruments measured before this one took (the sim phase before the wall
    #: clock): outside the wall clock's budget, which counts set-up, parity and its rounds
    others_s: float = 0.0
    #: the phases of those instruments, for the run's timeline (`PhaseTime`)
    phases: tuple[PhaseTime, ...] = ()


@dataclass(frozen=True)
class Findings:
    """What one instrument's comparison found: its rows (head vs base) and the tables only it
    can draw, the asv environments each side ran in, and its lines for the report."""

    rows: list[CaseComparison] = field(default_factory=list)
    variants: list[VariantComparison] = field(default_factory=list)
    tables: Mapping[str, list[Any]] = field(default_factory=dict)
    environments: Mapping[str, frozenset[str]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


class Instrument(Protocol[M]):
    """One instrument: ``M`` is what its measuring step produced (its own type)."""

    #: the name the policy (``[tool.perfgate] instruments``) and every row use
    name: str
    #: True: it needs the machine to itself (timings); measured after the others
    needs_machine_alone: bool
    #: one line for the report: what it cannot see
    blind_spot: str

    def selected(self, settings: GateSettings) -> bool:
        """Whether the run measures with it (the policy and the selection say so)."""
        ...

    def measure(self, bench: Bench) -> M:
        """Both sides measured, stored as its results files."""
        ...

    def compare(self, measured: M, config: GateConfig, calibration: Calibration) -> Findings:
        """Base and head compared (pure)."""
        ...
