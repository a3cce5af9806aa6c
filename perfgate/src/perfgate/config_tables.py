"""The tables of `[tool.perfgate]` below its top level: thresholds, the baseline map, thread
scaling and the simulated instrument, each a frozen record with its strict parser (an unknown
key, a wrong type or an impossible value raises `ConfigError` naming the key)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfgate import config_values as checked
from perfgate.errors import ConfigError

SIM_TARGETS = ("auto", "host", "valgrind")
#: asv names (``name`` or ``name(params)``) of SimBenchmark figures in a ``sim_*`` module
DEFAULT_SIM_BENCH = r"^sim_\w*\.\w+\.track_(cycles|instructions|l1_misses|ll_misses)\b"


@dataclass(frozen=True)
class ThresholdRule:
    """A benchmark-name regex and the relative threshold (0.05 = 5%) for names it matches."""

    pattern: str
    threshold: float


@dataclass(frozen=True)
class BaselinePair:
    """Compare a variant against a baseline at the same commit, e.g. path assembled/handwritten.

    Cases that differ only in *param* are paired. The ratio is variant/baseline (time), so a
    ratio above 1 + threshold means the variant is slower. *reference* (optional) is a third
    value of the same param (e.g. "numpy") to report speed-ups against.
    """

    param: str
    variant: str
    baseline: str
    reference: str | None = None
    block_if_slower: bool = True
    threshold: float | None = None
    benchmarks: str = "."

    @property
    def label(self) -> str:
        """``param: variant vs baseline``."""
        return f"{self.param}: {self.variant} vs {self.baseline}"


@dataclass(frozen=True)
class SegmentsRule:
    """A benchmark that times segments of another benchmark's cases
    (``[[tool.perfgate.segments]]``): ``benchmark`` (full name) has the param ``param``
    naming the segment; it segments the case of ``of`` whose params hold ``where`` and
    every other param of the segment's case (e.g. the assembled hot slice's bind, kernel and
    log segments at the same task, N and threads)."""

    benchmark: str
    of: str
    param: str = "segment"
    where: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ScalingConfig:
    """Which params hold the thread count and the problem size for thread-scaling tables.

    ``efficiency_threshold`` (relative, e.g. 0.05) makes a stable drop of parallel efficiency
    at any measured thread count block like a time regression (same CI, FDR and
    confirmation rules; `perfgate.wall.compare.efficiency`); None: scaling is reported
    only (``max_efficiency_drop`` flags a drop in the scaling table).
    """

    thread_param: str = "threads"
    size_param: str | None = None
    max_efficiency_drop: float = 0.10
    efficiency_threshold: float | None = None


@dataclass(frozen=True)
class SimConfig:
    """``[tool.perfgate.sim]``: the simulated instrument (`perfgate.sim`).

    A sim case is decided from one measurement per side: its estimated cycles per call (its
    instructions where the memory layout alone moves the cycles), head/base, beyond
    ``threshold`` (or a matching rule of ``thresholds``) is a regression, blocking like a
    time regression. The base is measured twice, the second time with its layout shifted; a
    figure whose two counts agree within ``tolerance`` is exact, and a case none of whose
    figures moved by at most half its threshold is refused (exit 3): determinism is
    checked, not assumed (`perfgate.sim.compare`).
    """

    #: the sim family (asv ``--bench`` regexes) in the full gate, and under ``--quick``; by
    #: default the figures of `perfgate.sim.suite.SimBenchmark` in a ``sim_*`` module
    bench: tuple[str, ...] = (DEFAULT_SIM_BENCH,)
    quick_bench: tuple[str, ...] | None = None
    threshold: float = 0.01
    tolerance: float = 0.001
    #: which CPU the measured JIT compiles for (`perfgate.sim.target`)
    target: str = "auto"
    #: the wall-clock benchmark each sim case stands beside in the report (same params, the
    #: scaling thread param at 1); None: no pairing
    wall: str | None = None


_PAIR_KEYS = {"param", "variant", "baseline", "reference", "block_if_slower", "threshold"}
_PAIR_KEYS |= {"benchmarks"}
_SEGMENTS_KEYS = {"benchmark", "of", "param", "where"}
_SCALING_KEYS = {"thread_param", "size_param", "max_efficiency_drop", "efficiency_threshold"}
_SIM_KEYS = {"bench", "quick_bench", "threshold", "tolerance", "target", "wall"}


def parse_pair(index: int, data: Any) -> BaselinePair:
    where = f"tool.perfgate.baseline[{index}]"
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table")
    checked.check_keys(where, data, _PAIR_KEYS)
    for key in ("param", "variant", "baseline"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ConfigError(f"{where}.{key}: required non-empty string")
    if data["variant"] == data["baseline"]:
        raise ConfigError(f"{where}: variant and baseline are both {data['variant']!r}")
    reference = data.get("reference")
    if reference is not None and not isinstance(reference, str):
        raise ConfigError(f"{where}.reference: expected a string, got {reference!r}")
    threshold = data.get("threshold")
    return BaselinePair(
        param=data["param"],
        variant=data["variant"],
        baseline=data["baseline"],
        reference=reference,
        block_if_slower=checked.typed(
            f"{where}.block_if_slower", data.get("block_if_slower", True), bool
        ),
        threshold=None
        if threshold is None
        else checked.threshold(f"{where}.threshold", threshold),
        benchmarks=checked.regex(f"{where}.benchmarks", data.get("benchmarks", ".")),
    )


def parse_scaling(data: Any) -> ScalingConfig:
    where = "tool.perfgate.scaling"
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table")
    checked.check_keys(where, data, _SCALING_KEYS)
    size = data.get("size_param")
    if size is not None and not isinstance(size, str):
        raise ConfigError(f"{where}.size_param: expected a string, got {size!r}")
    return ScalingConfig(
        thread_param=checked.typed(
            f"{where}.thread_param", data.get("thread_param", "threads"), str
        ),
        size_param=size,
        max_efficiency_drop=checked.fraction(
            f"{where}.max_efficiency_drop", data.get("max_efficiency_drop", 0.10), 0.0, 1.0
        ),
        efficiency_threshold=(
            checked.threshold(f"{where}.efficiency_threshold", data["efficiency_threshold"])
            if "efficiency_threshold" in data
            else None
        ),
    )


def _tolerance(where: str, value: Any) -> float:
    """A relative tolerance in [0, 0.1): 0 asks for identical counts."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 0.1:
        raise ConfigError(f"{where}: expected a relative tolerance in [0, 0.1), got {value!r}")
    return float(value)


def parse_sim(data: Any) -> SimConfig:
    where = "tool.perfgate.sim"
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table")
    checked.check_keys(where, data, _SIM_KEYS)
    wall = data.get("wall")
    if wall is not None and (not isinstance(wall, str) or not wall):
        raise ConfigError(f"{where}.wall: expected a benchmark name, got {wall!r}")
    return SimConfig(
        bench=checked.regex_list(f"{where}.bench", data.get("bench", [DEFAULT_SIM_BENCH])),
        quick_bench=checked.optional_regexes(f"{where}.quick_bench", data.get("quick_bench")),
        threshold=checked.threshold(f"{where}.threshold", data.get("threshold", 0.01)),
        tolerance=_tolerance(f"{where}.tolerance", data.get("tolerance", 0.001)),
        target=checked.choice(f"{where}.target", data.get("target", "auto"), SIM_TARGETS),
        wall=wall,
    )


def parse_thresholds(data: Any) -> tuple[ThresholdRule, ...]:
    if not isinstance(data, dict):
        raise ConfigError("tool.perfgate.thresholds: expected a table of regex = threshold")
    return tuple(
        ThresholdRule(
            checked.regex(f"tool.perfgate.thresholds[{k!r}]", k),
            checked.threshold(f"tool.perfgate.thresholds[{k!r}]", v),
        )
        for k, v in data.items()
    )


def _name(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: expected a benchmark name, got {value!r}")
    return value


def parse_segments_rule(index: int, data: Any) -> SegmentsRule:
    where = f"tool.perfgate.segments[{index}]"
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table")
    checked.check_keys(where, data, _SEGMENTS_KEYS)
    wanted = data.get("where", {})
    if not isinstance(wanted, dict) or not all(isinstance(v, str) for v in wanted.values()):
        raise ConfigError(f"{where}.where: expected a table of param = value strings")
    return SegmentsRule(
        benchmark=_name(f"{where}.benchmark", data.get("benchmark")),
        of=_name(f"{where}.of", data.get("of")),
        param=checked.typed(f"{where}.param", data.get("param", "segment"), str),
        where=tuple(sorted(wanted.items())),
    )


def parse_segments(value: Any) -> tuple[SegmentsRule, ...]:
    """``[[tool.perfgate.segments]]`` (one table is accepted as a list of one)."""
    rules = [value] if isinstance(value, dict) else value
    if not isinstance(rules, list):
        raise ConfigError("tool.perfgate.segments: expected an array of tables")
    return tuple(parse_segments_rule(i, r) for i, r in enumerate(rules))


def parse_pairs(value: Any) -> tuple[BaselinePair, ...]:
    """``[[tool.perfgate.baseline]]`` (one table is accepted as a list of one)."""
    pairs = [value] if isinstance(value, dict) else value
    if not isinstance(pairs, list):
        raise ConfigError("tool.perfgate.baseline: expected an array of tables")
    return tuple(parse_pair(i, p) for i, p in enumerate(pairs))
