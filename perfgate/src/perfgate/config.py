"""The `[tool.perfgate]` configuration: thresholds, FDR level, baseline map, blocking families.

Parsing is strict: an unknown key, a wrong type or an impossible value raises `ConfigError`
naming the key, because a typo in a gate's configuration must not silently loosen the gate.
Defaults are the conservative choice (every benchmark can block, confirmation required).

Example (see tests/perfgate/data/pyproject-perfgate.toml for the project's reference)::

    [tool.perfgate]
    default_threshold = 0.05
    alpha = 0.05
    min_samples = 5
    confirm = true
    blocking = ['^hot_slice\\.']

    [tool.perfgate.thresholds]
    '^collector\\.' = 0.10

    [[tool.perfgate.baseline]]
    param = "path"
    variant = "assembled"
    baseline = "handwritten"
    reference = "numpy"
    block_if_slower = true
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfgate import config_values as checked
from perfgate.config_costs import MeasuredCosts, parse_costs
from perfgate.config_tables import (
    BaselinePair,
    ScalingConfig,
    SegmentsRule,
    SimConfig,
    ThresholdRule,
    parse_pairs,
    parse_scaling,
    parse_segments,
    parse_sim,
    parse_thresholds,
)
from perfgate.errors import ConfigError

__all__ = [
    "BaselinePair",
    "GateConfig",
    "ScalingConfig",
    "SegmentsRule",
    "SimConfig",
    "ThresholdRule",
]

INCONCLUSIVE_POLICIES = ("error", "block")
INSTRUMENTS = ("wall", "sim")
STRADDLE_POLICIES = ("report", "error", "block")
#: What a benchmark that fails at base and at head does (`CaseVerdict.BROKEN`): "error",
#: the gate cannot judge it (exit 3, the default: fail closed, and not the pull request's
#: fault); "block", it blocks like a failure at head (exit 1). Never a pass of the case.
BROKEN_POLICIES = ("error", "block")
VARIANT_ABSOLUTE_POLICIES = ("report", "block")
#: How each side's code gets onto the benchmarks' path: "none", its export as it is (pure
#: Python); "pip", built and installed into a folder of its own (compiled extensions).
BUILD_MODES = ("none", "pip")
#: The most rounds a case may be measured in (``min_samples``, ``max_rounds``).
MAX_ROUNDS = 1000
#: Seeds are 32-bit, as the bootstrap's generators take them everywhere.
MAX_SEED = 2**32 - 1


@dataclass(frozen=True)
class GateConfig:
    """Parsed `[tool.perfgate]`; every field has a conservative default."""

    default_threshold: float = 0.05
    thresholds: tuple[ThresholdRule, ...] = ()
    alpha: float = 0.05
    confidence: float = 0.95
    min_samples: int = 6
    confirm: bool = True
    blocking: tuple[str, ...] = (".",)
    higher_is_better: tuple[str, ...] = ()
    failed_blocks: bool = True
    inconclusive: str = "error"
    broken: str = "error"
    baselines: tuple[BaselinePair, ...] = ()
    #: benchmarks that time segments of other benchmarks' cases (report: next to a
    #: regressed case, which of its segments moved)
    segments: tuple[SegmentsRule, ...] = ()
    scaling: ScalingConfig | None = None
    compile_time: str = "compile"
    parity_command: tuple[str, ...] = ("make", "test-all")
    quick_parity_command: tuple[str, ...] | None = None
    #: The instruments the gate measures with: "wall" (asv's timings in paired rounds) and
    #: "sim" (callgrind's counts, one measurement per side). None: both where valgrind is
    #: installed, else the wall clock alone (the report says so).
    instruments: tuple[str, ...] | None = None
    sim: SimConfig = field(default_factory=SimConfig)
    #: Folders of a commit's export put first on ``PYTHONPATH`` for its benchmarks (None:
    #: ``src`` where the export has one, else its root), and for its parity command (None:
    #: the same folders). The benchmarks import the commit's code from there, and any
    #: package that is not there (perfgate's own, for the simulated instrument) from the
    #: gate's environment, the same on both sides.
    python_path: tuple[str, ...] | None = None
    parity_python_path: tuple[str, ...] | None = None
    #: The project's asv.conf.json relative to the repository root (None: searched,
    #: `perfgate.formats.asv_conf.find_asv_conf`), and how each side is made importable.
    asv_config: str | None = None
    build: str = "none"
    gate_bench: tuple[str, ...] = (".",)
    quick_bench: tuple[str, ...] | None = None
    max_rounds: int = 30
    straddle: str = "report"
    variant_absolute: str = "report"
    #: A blocking case whose detectable slowdown exceeds its threshold by more than this is
    #: a blind spot of the run (listed first in the report).
    detect_margin: float = 0.02
    #: Default ``--budget-minutes`` of the full gate (None: the built-in default).
    budget_minutes: float | None = None
    quick_budget_minutes: float = 3.0
    #: What one round of each benchmark cost when ``perfgate init`` ran the suite once
    #: (``[tool.perfgate.costs]``): the first plan's estimate, before any gate ran here.
    costs: MeasuredCosts | None = None
    fingerprint_ignore: tuple[str, ...] = ()
    pin_threads: int | None = None
    resamples: int = 2000
    seed: int = 20260
    #: Not a ``[tool.perfgate]`` key: tests measured by the other shards of a sharded run,
    #: counted as p = 1 in every Benjamini-Hochberg family of a shard's interim decisions
    #: (what to run next), so a shard is never less cautious than the merged test.
    elsewhere_tests: int = 0
    watch_alpha: float = 0.01
    watch_min_segment: int = 5
    #: Minutes one watch run may spend re-measuring and bisecting, and probes per change.
    watch_budget_minutes: float = 60.0
    watch_max_steps: int = 8
    source: str = "<defaults>"

    def import_roots(self, export: Path, parity: bool = False) -> tuple[Path, ...]:
        """The folders of ``export`` (one commit's source) that go first on ``PYTHONPATH``:
        for its benchmarks, or with ``parity`` for its parity command."""
        configured = (self.parity_python_path or self.python_path) if parity else None
        configured = configured or self.python_path
        if configured is None:
            return default_import_roots(export)
        return tuple(export / p for p in configured)

    def threshold_for(self, benchmark: str) -> float:
        """Relative threshold for *benchmark*: the largest matching rule wins (asv's rule)."""
        matches = [r.threshold for r in self.thresholds if re.search(r.pattern, benchmark)]
        return max(matches) if matches else self.default_threshold

    def is_sim(self, benchmark: str) -> bool:
        """True for a benchmark of the simulated family (``[tool.perfgate.sim] bench``)."""
        return _matches(self.sim.bench, benchmark)

    def sim_threshold_for(self, benchmark: str) -> float:
        """A sim case's threshold: the largest matching ``thresholds`` rule, else the sim
        family's own (1% by default: the counts are deterministic)."""
        matches = [r.threshold for r in self.thresholds if re.search(r.pattern, benchmark)]
        return max(matches) if matches else self.sim.threshold

    def effective_threshold(self, benchmark: str, noise_floor: float | None) -> float:
        """The threshold actually used: never below the case's measured noise floor."""
        return max(self.threshold_for(benchmark), noise_floor or 0.0)

    def can_block(self, benchmark: str) -> bool:
        """True when *benchmark* belongs to a family that may block the merge."""
        return _matches(self.blocking, benchmark)

    def is_higher_better(self, benchmark: str) -> bool:
        """True for benchmarks whose value is better when larger (throughput, efficiency):
        they are compared as base/head, so that a ratio above 1 always means worse."""
        return _matches(self.higher_is_better, benchmark)

    def is_compile_time(self, benchmark: str) -> bool:
        """True for compile-time tracking benchmarks (reported apart, never gated)."""
        return bool(self.compile_time) and re.search(self.compile_time, benchmark) is not None


def default_import_roots(export: Path) -> tuple[Path, ...]:
    """Where a commit's code is imported from when ``python_path`` is not configured: its
    ``src`` folder (the src layout), else the export itself."""
    return (export / "src",) if (export / "src").is_dir() else (export,)


def _matches(patterns: tuple[str, ...], benchmark: str) -> bool:
    return any(re.search(p, benchmark) for p in patterns)


_TOP_KEYS = {
    "default_threshold",
    "thresholds",
    "alpha",
    "confidence",
    "min_samples",
    "confirm",
    "blocking",
    "higher_is_better",
    "failed_blocks",
    "inconclusive",
    "broken",
    "baseline",
    "scaling",
    "segments",
    "compile_time",
    "parity_command",
    "quick_parity_command",
    "instruments",
    "sim",
    "python_path",
    "parity_python_path",
    "asv_config",
    "build",
    "gate_bench",
    "quick_bench",
    "max_rounds",
    "straddle",
    "variant_absolute",
    "detect_margin",
    "budget_minutes",
    "quick_budget_minutes",
    "costs",
    "fingerprint_ignore",
    "pin_threads",
    "resamples",
    "seed",
    "watch_alpha",
    "watch_min_segment",
    "watch_budget_minutes",
    "watch_max_steps",
}


def _parse_instruments(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    where = "tool.perfgate.instruments"
    names = checked.str_list(where, value)
    unknown = [n for n in names if n not in INSTRUMENTS]
    if unknown or not names or len(set(names)) != len(names):
        raise ConfigError(
            f"{where}: expected distinct names among {list(INSTRUMENTS)}, got {value!r}"
        )
    return names


def _budget_minutes(value: Any) -> float | None:
    """``budget_minutes``: absent, or a finite number of minutes > 0."""
    if value is None:
        return None
    return checked.minutes("tool.perfgate.budget_minutes", value)


def _asv_config(value: Any) -> str | None:
    """``asv_config``: absent, or a file inside the repository (relative, no ``..``)."""
    if value is None:
        return None
    text: str = checked.typed("tool.perfgate.asv_config", value, str)
    if not text or text.startswith("/") or ".." in text.replace("\\", "/").split("/"):
        raise ConfigError(
            "tool.perfgate.asv_config: expected a file inside the repository such as "
            f"'benchmarks/asv.conf.json', got {value!r}"
        )
    return text


def parse_config(section: Mapping[str, Any], source: str = "<mapping>") -> GateConfig:
    """Build a `GateConfig` from the `[tool.perfgate]` table (already parsed TOML)."""
    data = dict(section)
    checked.check_keys("tool.perfgate", data, _TOP_KEYS)
    inconclusive = checked.choice(
        "tool.perfgate.inconclusive", data.get("inconclusive", "error"), INCONCLUSIVE_POLICIES
    )
    straddle = checked.choice(
        "tool.perfgate.straddle", data.get("straddle", "report"), STRADDLE_POLICIES
    )
    min_samples = checked.at_least(
        "tool.perfgate.min_samples", data.get("min_samples", 6), 2, maximum=MAX_ROUNDS
    )
    resamples = checked.at_least("tool.perfgate.resamples", data.get("resamples", 2000), 200)
    max_rounds = checked.at_least(
        "tool.perfgate.max_rounds",
        data.get("max_rounds", 30),
        min_samples,
        "min_samples",
        MAX_ROUNDS,
    )
    blocking = checked.regex_list("tool.perfgate.blocking", data.get("blocking", ["."]))
    return GateConfig(
        default_threshold=checked.threshold(
            "tool.perfgate.default_threshold", data.get("default_threshold", 0.05)
        ),
        thresholds=parse_thresholds(data.get("thresholds", {})),
        alpha=checked.fraction("tool.perfgate.alpha", data.get("alpha", 0.05), 0.0, 0.5),
        confidence=checked.fraction(
            "tool.perfgate.confidence", data.get("confidence", 0.95), 0.5, 1.0
        ),
        min_samples=min_samples,
        confirm=checked.typed("tool.perfgate.confirm", data.get("confirm", True), bool),
        blocking=blocking,
        higher_is_better=checked.regex_list(
            "tool.perfgate.higher_is_better", data.get("higher_is_better", [])
        ),
        failed_blocks=checked.typed(
            "tool.perfgate.failed_blocks", data.get("failed_blocks", True), bool
        ),
        inconclusive=inconclusive,
        broken=checked.choice(
            "tool.perfgate.broken", data.get("broken", "error"), BROKEN_POLICIES
        ),
        baselines=parse_pairs(data.get("baseline", [])),
        segments=parse_segments(data.get("segments", [])),
        scaling=parse_scaling(data["scaling"]) if "scaling" in data else None,
        compile_time=checked.regex(
            "tool.perfgate.compile_time", data.get("compile_time", "compile")
        ),
        parity_command=checked.command(
            "tool.perfgate.parity_command", data.get("parity_command", ["make", "test-all"])
        ),
        quick_parity_command=checked.optional_command(
            "tool.perfgate.quick_parity_command", data.get("quick_parity_command")
        ),
        instruments=_parse_instruments(data.get("instruments")),
        sim=parse_sim(data["sim"]) if "sim" in data else SimConfig(),
        python_path=checked.optional_paths("tool.perfgate.python_path", data.get("python_path")),
        parity_python_path=checked.optional_paths(
            "tool.perfgate.parity_python_path", data.get("parity_python_path")
        ),
        asv_config=_asv_config(data.get("asv_config")),
        build=checked.choice("tool.perfgate.build", data.get("build", "none"), BUILD_MODES),
        gate_bench=checked.regex_list("tool.perfgate.gate_bench", data.get("gate_bench", ["."])),
        quick_bench=checked.optional_regexes("tool.perfgate.quick_bench", data.get("quick_bench")),
        max_rounds=max_rounds,
        straddle=straddle,
        variant_absolute=checked.choice(
            "tool.perfgate.variant_absolute",
            data.get("variant_absolute", "report"),
            VARIANT_ABSOLUTE_POLICIES,
        ),
        detect_margin=checked.fraction(
            "tool.perfgate.detect_margin", data.get("detect_margin", 0.02), 0.0, 1.0
        ),
        budget_minutes=_budget_minutes(data.get("budget_minutes")),
        quick_budget_minutes=checked.minutes(
            "tool.perfgate.quick_budget_minutes", data.get("quick_budget_minutes", 3.0)
        ),
        costs=parse_costs(data["costs"]) if "costs" in data else None,
        fingerprint_ignore=checked.str_list(
            "tool.perfgate.fingerprint_ignore", data.get("fingerprint_ignore", [])
        ),
        pin_threads=(
            checked.at_least("tool.perfgate.pin_threads", data["pin_threads"], 1, maximum=4096)
            if "pin_threads" in data
            else None
        ),
        resamples=resamples,
        seed=checked.at_least("tool.perfgate.seed", data.get("seed", 20260), 0, maximum=MAX_SEED),
        watch_alpha=checked.fraction(
            "tool.perfgate.watch_alpha", data.get("watch_alpha", 0.01), 0.0, 0.5
        ),
        watch_min_segment=checked.at_least(
            "tool.perfgate.watch_min_segment", data.get("watch_min_segment", 5), 2
        ),
        watch_budget_minutes=checked.minutes(
            "tool.perfgate.watch_budget_minutes", data.get("watch_budget_minutes", 60.0)
        ),
        watch_max_steps=checked.at_least(
            "tool.perfgate.watch_max_steps", data.get("watch_max_steps", 8), 1, maximum=1000
        ),
        source=source,
    )
