"""perfgate's data model: what is measured, compared and decided, apart from any file format.

Every record here is frozen and free of I/O. Rows carry *why* they got their verdict as a
`Reason` (decisions branch on it); ``note`` is that reason rendered as text for reports.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from perfgate.config_tables import BaselinePair
from perfgate.verdict import CaseVerdict, GateVerdict

ParamItems = tuple[tuple[str, str], ...]
#: One side of one round: the samples of a case, or None when it failed (or timed out).
Samples = tuple[float, ...] | None


@dataclass(frozen=True)
class Shift:
    """One event's change between base and head, and its share of the cycles' change."""

    event: str
    base: float
    head: float
    #: change of this event's weighted contribution, relative to the base's cycles
    contribution: float

    @property
    def ratio(self) -> float | None:
        """head / base of the event's own count (None when base counted none)."""
        return self.head / self.base if self.base > 0 else None


@dataclass(frozen=True, order=True)
class CaseKey:
    """One benchmark at one parameter combination; params are (name, value-text) pairs."""

    benchmark: str
    params: ParamItems = ()

    def param(self, name: str) -> str | None:
        """Return the value text of parameter *name*, or None when the case has no such param."""
        for key, value in self.params:
            if key == name:
                return value
        return None

    def without(self, *names: str) -> CaseKey:
        """Return this key with the parameters *names* removed (used to pair cases)."""
        kept = tuple((k, v) for k, v in self.params if k not in names)
        return CaseKey(self.benchmark, kept)

    def canonical(self) -> CaseKey:
        """This key with params sorted by name: for matching keys from files whose param
        order may differ (JSON objects are unordered)."""
        return CaseKey(self.benchmark, tuple(sorted(self.params)))

    def params_text(self) -> str:
        """Human-readable ``name=value, ...`` text of the parameters."""
        return ", ".join(f"{k}={v}" for k, v in self.params)

    def label(self) -> str:
        """``benchmark(name=value, ...)``, or the bare name without parameters."""
        text = self.params_text()
        return f"{self.benchmark}({text})" if text else self.benchmark


def natural_key(key: CaseKey) -> tuple[object, ...]:
    """Sort key: benchmark name, then params with integers compared as numbers (8 < 16)."""
    params = tuple(
        (name, (0, int(value), "") if value.isdigit() else (1, 0, value))
        for name, value in key.params
    )
    return (key.benchmark, params)


@dataclass(frozen=True)
class Measurement:
    """Samples of one case on one side. ``rounds`` is set when rounds are paired across sides."""

    key: CaseKey
    samples: tuple[float, ...]
    rounds: tuple[tuple[float, ...], ...] | None = None
    failed: bool = False
    version: str | None = None
    unit: str = "seconds"

    @property
    def n(self) -> int:
        """Replication units: rounds when paired, else samples."""
        return len(self.rounds) if self.rounds is not None else len(self.samples)

    @property
    def valid(self) -> bool:
        """True when every sample is finite and positive (a usable time)."""
        return bool(self.samples) and all(math.isfinite(s) and s > 0 for s in self.samples)

    @property
    def median(self) -> float | None:
        """Median of all samples, or None when there is no usable sample."""
        return float(np.median(self.samples)) if self.valid else None


@dataclass(frozen=True)
class Round:
    """One measurement round: per side, the samples of every case that ran (skipped cases are
    absent). Both sides ran back to back, in ``order``."""

    index: int
    phase: str
    order: tuple[str, str]
    base: Mapping[CaseKey, Samples]
    head: Mapping[CaseKey, Samples]
    seconds: float = 0.0

    def side(self, name: str) -> Mapping[CaseKey, Samples]:
        """The samples of side ``name`` ("base" or "head")."""
        return self.base if name == "base" else self.head


class Reason(Enum):
    """Why a row got its verdict; the value is the report text (``{name}`` fields filled in
    by :meth:`text`)."""

    NONE = ""
    NO_DATA = "no data on either side"
    FAILED_HEAD_NO_BASE = "failed or timed out on head (no base result)"
    NO_BASE = "no result on the base side"
    NO_HEAD = "no result on the head side"
    FAILED = "failed or timed out on {side}"
    BROKEN_ON_BOTH = "failed or timed out at base and at head: broken before this change"
    INVALID_SAMPLES = "non-finite or non-positive samples on {side}"
    VERSION_DIFFERS = "benchmark version differs between sides (not comparable)"
    TOO_FEW_SAMPLES = "too few samples (base {n_base}, head {n_head}; need {need})"
    Q_NOT_SMALL = "CI above the threshold but q = {q:.3g} is not small"
    CI_REACHES_THRESHOLD = "CI reaches above 1 + {threshold:.3g}; cannot exclude it"
    CONFIRMED = "confirmed by re-run"
    NEEDS_CONFIRMATION = "flagged {direction}; needs a confirmation run"
    RERUN_DISAGREES = "flagged {direction}; the re-run disagrees"
    RERUN_FAILED = "flagged {direction}; failed or missing at head in the re-run"
    RERUN_INVALID = (
        "flagged {direction}; non-finite or non-positive samples on {side} in the re-run"
    )
    NO_BASELINE_CASE = "no {baseline} case to compare with"
    NO_VARIANT_CASE = "no {variant} case"
    SIM_CHANGED = "simulated {direction}: {moved}"
    SIM_WITHIN = "simulated, within {threshold:.1%}: {moved}"
    SIM_UNSTABLE = (
        "two counts of the base (the second with its memory layout shifted) differ by "
        "{spread:.3%} or more in every figure, beyond half the threshold ({bound:.2%}): not "
        "deterministic enough on this machine to decide"
    )
    SIM_UNCHECKED = (
        "no second count of the base under this benchmark version and no calibrated "
        "check of this version on this machine (perfgate calibrate): determinism not checked"
    )

    def text(self, **fields: Any) -> str:
        """The report text of this reason with its ``fields``."""
        return self.value.format(**fields)


#: Prefix of the note of a higher-is-better row (its ratio and CI are base/head).
HIGHER_IS_BETTER_NOTE = "higher is better: ratio = base/head"


@dataclass(frozen=True)
class CaseComparison:
    """One compared case: effect, uncertainty, significance, the verdict and its reason."""

    key: CaseKey
    verdict: CaseVerdict
    threshold: float
    blocking: bool
    n_base: int = 0
    n_head: int = 0
    base_median: float | None = None
    head_median: float | None = None
    ratio: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p: float | None = None
    q: float | None = None
    noise_floor: float | None = None
    paired: bool = False
    failed_side: str | None = None
    note: str = ""
    unit: str = "seconds"
    reason: Reason = Reason.NONE
    #: "wall" (timed in rounds, decided by statistics) or "sim" (callgrind's counts, decided
    #: from one measurement per side; its CI spans the base's two counts)
    instrument: str = "wall"
    #: sim rows: each event's change, the one that moved the cycles most first
    shifts: tuple[Shift, ...] = ()
    #: sim rows: the figure that decided the case ("cycles", or "instructions" where the
    #: base's cycles moved with the memory layout alone)
    figure: str = ""


@dataclass(frozen=True)
class VariantComparison:
    """Variant vs baseline for one group of remaining params; ratio = variant / baseline time."""

    pair: BaselinePair
    row: CaseComparison
    reference_median: float | None = None
    higher_is_better: bool = False  # medians are throughputs, not times
    #: (variant/baseline at head) / (variant/baseline at base), when both ran at base: the
    #: row that gates (`perfgate.wall.compare.variant_drift`); None for a new variant
    relative: CaseComparison | None = None

    @property
    def rows(self) -> tuple[CaseComparison, ...]:
        """The absolute row, then the relative-to-base row when there is one."""
        return (self.row,) if self.relative is None else (self.row, self.relative)

    @property
    def speedup_variant(self) -> float | None:
        """How many times faster the variant is than the reference path (reference/variant
        for times, variant/reference for throughputs)."""
        return self._speedup(self.row.head_median)

    @property
    def speedup_baseline(self) -> float | None:
        """How many times faster the baseline is than the reference path."""
        return self._speedup(self.row.base_median)

    def _speedup(self, other: float | None) -> float | None:
        reference = self.reference_median
        if reference is None or other is None or other <= 0 or reference <= 0:
            return None
        return other / reference if self.higher_is_better else reference / other


@dataclass(frozen=True)
class Measured:
    """What the measurement phases of a gate run produced, ready to compare."""

    base: dict[CaseKey, Measurement]
    head: dict[CaseKey, Measurement]
    head_variants: dict[CaseKey, Measurement]
    base_variants: dict[CaseKey, Measurement]  # the same cases at base, for relative rows
    confirm: tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]] | None
    confirm_head_variants: dict[CaseKey, Measurement] | None
    confirm_base_variants: dict[CaseKey, Measurement] | None
    main_rounds: int
    confirm_rounds: int
    extra_rounds: int
    sample_files: tuple[Path, ...]
    budget_exhausted: bool
    #: the budget could not hold the confirmation re-run's min_samples rounds
    confirm_short: bool = False


class ParityStatus(Enum):
    """Outcome of the parity (correctness) command."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_RUN = "not run"
    ERROR = "error"  # could not be run (missing command, crash of the runner)


#: Failing tests named in a report before the rest are only counted.
MAX_NAMED_TESTS = 20


@dataclass(frozen=True)
class ParityResult:
    """What the parity command did; ``summary`` is a short, secret-free excerpt.

    A result taken from CI (``perfgate gate --parity-result``) also records the commit it ran
    at (``sha``) and the ids of its failing tests (``failed_tests``), which `details` names.
    """

    status: ParityStatus
    command: str = ""
    summary: str = ""
    sha: str | None = None
    failed_tests: tuple[str, ...] = ()

    @property
    def details(self) -> str:
        """The summary, after the failing tests (the first `MAX_NAMED_TESTS`) when known."""
        if not self.failed_tests:
            return self.summary
        named = ", ".join(self.failed_tests[:MAX_NAMED_TESTS])
        more = len(self.failed_tests) - MAX_NAMED_TESTS
        failing = f"failing: {named}" + (f" (+{more} more)" if more > 0 else "")
        return f"{failing}; {self.summary}" if self.summary else failing


#: The key of an `EnvironmentCheck` side naming the asv environment(s) its results were
#: measured in (``env_name``: ``existing-py_...``, ``virtualenv-py3.11``...). Never ignored:
#: results of two environments (two interpreters, two sets of packages) are not compared.
ASV_ENVIRONMENT = "asv_environment"


def with_asv_environments(side: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """``side`` (a fingerprint, or what asv recorded of a machine) with the asv
    environment(s) its results came from under `ASV_ENVIRONMENT`, sorted and joined by
    ", "; unchanged when none is known."""
    found = sorted({n for n in names if n})
    return {**side, ASV_ENVIRONMENT: ", ".join(found)} if found else dict(side)


@dataclass(frozen=True)
class EnvironmentCheck:
    """Machine fingerprints of the two sides (and the asv environments their results came
    from, `ASV_ENVIRONMENT`); comparisons across differing keys are refused. ``compare``,
    ``gate`` and ``merge`` all decide through it (`perfgate.gate.decide`)."""

    base: Mapping[str, Any]
    head: Mapping[str, Any]
    ignore: tuple[str, ...] = ()

    @property
    def differing_keys(self) -> tuple[str, ...]:
        """Keys whose values differ (or exist on one side only), minus ignored keys (which
        never include `ASV_ENVIRONMENT`)."""
        keys = (set(self.base) | set(self.head)) - (set(self.ignore) - {ASV_ENVIRONMENT})
        return tuple(sorted(k for k in keys if self.base.get(k) != self.head.get(k)))

    def differences(self, keys: Iterable[str] | None = None) -> tuple[str, ...]:
        """Each differing key (of ``keys``: default all) with both values:
        ``key (base X, head Y)``."""
        wanted = self.differing_keys if keys is None else keys
        return tuple(f"{k} (base {self.base.get(k)!r}, head {self.head.get(k)!r})" for k in wanted)


#: What a report calls the finding of a benchmark broken on both sides, whatever exit code
#: the policy gives it: never "REGRESSION" (the pull request did not break it).
BROKEN_LABEL = "BROKEN ON BOTH SIDES"


@dataclass(frozen=True)
class Finding:
    """One reason behind a gate decision: the verdict it asks for and what it says."""

    verdict: GateVerdict
    text: str
    #: what the report line calls it (""; the verdict's name): a benchmark broken on both
    #: sides is named as such whichever exit code the policy gives it
    label: str = ""

    def __str__(self) -> str:
        return f"{self.label or self.verdict.name}: {self.text}"


class RunCause(Enum):
    """Why the whole run has its verdict, when one cause says it better than the verdict's
    generic headline (the value is what the headline says)."""

    EVERY_CASE_FAILS_AT_HEAD = "every benchmark fails at head"
    EVERY_BLOCKING_CASE_FAILS = "every blocking benchmark fails at head"
    #: the verdict comes from benchmarks that fail at the base as well as at head: broken
    #: before this change, not a regression of it (`GateConfig.broken` says what it does)
    BROKEN_ON_BOTH = "a benchmark fails at base and at head"


@dataclass(frozen=True)
class GateDecision:
    """The overall verdict and the findings behind it, most severe first; ``cause`` names
    a run-wide cause of the verdict when there is one."""

    verdict: GateVerdict
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    cause: RunCause | None = None

    @property
    def reasons(self) -> tuple[str, ...]:
        """The findings as report lines, ``VERDICT: text``."""
        return tuple(str(f) for f in self.findings)

    @property
    def exit_code(self) -> int:
        """The process exit code of the verdict."""
        return self.verdict.exit_code
