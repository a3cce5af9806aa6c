"""Every number perfgate reads (each numeric ``[tool.perfgate]`` key, each numeric command
line option) is checked for a finite, sensible range where it is read: inf, nan, 1e308, a
negative number (and zero where zero means nothing) are one-line errors naming the input,
never a traceback later (issue 53: a budget of 1e308 minutes overflowed in the planner)."""

from __future__ import annotations

import argparse
import math
import typing
from collections.abc import Iterator
from dataclasses import fields
from typing import Any

import pytest

from perfgate import cli
from perfgate.config import _TOP_KEYS, GateConfig, parse_config
from perfgate.config_tables import BaselinePair, ScalingConfig, SimConfig
from perfgate.errors import ConfigError

BAD_FLOATS = (math.inf, -math.inf, math.nan, 1e308, -1e308, -1.0, -1)
BAD_INTS = (2**62, 10**30, -1)
#: keys where zero is a sensible value (a threshold of 0, seed 0, a free benchmark)
ZERO_VALID = {
    "default_threshold",
    "seed",
    "sim.tolerance",
    "sim.threshold",
    "thresholds.'^a'",
    "baseline[0].threshold",
    "scaling.efficiency_threshold",
    "costs.asv_overhead_s",
    "costs.parity_s",
    "costs.quick_parity_s",
    "costs.benchmarks.'b.x'",
}
_PAIR = {"param": "path", "variant": "a", "baseline": "b"}


def _numeric(cls: type) -> Iterator[tuple[str, type]]:
    """(field name, int or float) of each numeric field of a config dataclass."""
    hints = typing.get_type_hints(cls)
    for f in fields(cls):
        kinds = set(typing.get_args(hints[f.name])) or {hints[f.name]}
        if kinds & {int, float} and bool not in kinds:
            yield f.name, float if float in kinds else int


def _sections() -> Iterator[tuple[str, type, dict[str, Any], Any]]:
    """(the key as named in errors, its kind, a section with ``value`` at it, a setter)."""
    for name, kind in _numeric(GateConfig):
        if name in _TOP_KEYS:
            yield name, kind, {}, lambda s, v, n=name: s.__setitem__(n, v)
    for name, kind in _numeric(SimConfig):
        yield f"sim.{name}", kind, {}, lambda s, v, n=name: s.__setitem__("sim", {n: v})
    for name, kind in _numeric(ScalingConfig):
        yield f"scaling.{name}", kind, {}, lambda s, v, n=name: s.__setitem__("scaling", {n: v})
    for name, kind in _numeric(BaselinePair):
        yield (
            f"baseline[0].{name}",
            kind,
            {},
            lambda s, v, n=name: s.__setitem__("baseline", [{**_PAIR, n: v}]),
        )
    yield "thresholds.'^a'", float, {}, lambda s, v: s.__setitem__("thresholds", {"^a": v})
    for key in ("asv_overhead_s", "parity_s", "quick_parity_s"):
        yield f"costs.{key}", float, {}, lambda s, v, k=key: s.__setitem__("costs", {k: v})
    yield (
        "costs.benchmarks.'b.x'",
        float,
        {},
        lambda s, v: s.__setitem__("costs", {"benchmarks": {"b.x": v}}),
    )


def _cases() -> Iterator[tuple[str, Any]]:
    for key, kind, _section, _setter in _sections():
        values: tuple[Any, ...] = BAD_FLOATS if kind is float else (*BAD_INTS, *BAD_FLOATS)
        if key not in ZERO_VALID:
            values += (0, 0.0) if kind is float else (0,)
        for value in values:
            yield key, value


def test_the_sweep_sees_every_numeric_key() -> None:
    """The sweep is derived from the dataclasses: a new numeric key is swept too."""
    keys = {key for key, *_ in _sections()}
    assert {"budget_minutes", "quick_budget_minutes", "watch_budget_minutes"} <= keys
    assert {"min_samples", "max_rounds", "resamples", "pin_threads", "seed"} <= keys
    assert {"sim.threshold", "sim.tolerance", "scaling.max_efficiency_drop"} <= keys
    assert len(keys) >= 25


@pytest.mark.parametrize(("key", "value"), list(_cases()), ids=lambda x: repr(x))
def test_every_bad_number_is_a_one_line_error_naming_its_key(key: str, value: Any) -> None:
    setter = {k: s for k, _kind, _sec, s in _sections()}[key]
    section: dict[str, Any] = {}
    setter(section, value)
    with pytest.raises(ConfigError) as caught:
        parse_config(section)
    message = str(caught.value)
    assert "\n" not in message
    head = key.split(".")[0].split("[")[0]
    assert message.startswith(f"tool.perfgate.{head}"), message


@pytest.mark.parametrize("minutes", [1e308, 10081, math.inf])
def test_a_budget_beyond_a_week_is_refused_at_load(minutes: float) -> None:
    for key in ("budget_minutes", "quick_budget_minutes", "watch_budget_minutes"):
        with pytest.raises(ConfigError, match=rf"tool\.perfgate\.{key}: .*a week"):
            parse_config({key: minutes})
    assert parse_config({"budget_minutes": 10080}).budget_minutes == 10080


def _options() -> Iterator[tuple[str, str, Any]]:
    """(command, option, its type) of every option of every command that has a type."""

    def walk(parser: argparse.ArgumentParser, name: str) -> Iterator[tuple[str, str, Any]]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    yield from walk(subparser, f"{name} {sub}".strip())
            elif action.option_strings and action.type is not None:
                yield name, action.option_strings[-1], action.type

    yield from walk(cli.build_parser(), "")


def _numeric_options() -> list[tuple[str, str, Any]]:
    found = []
    for command, option, kind in _options():
        try:
            number = kind("12")
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            continue
        if isinstance(number, int | float):
            found.append((command, option, kind))
    return found


#: options where zero is a sensible value
ZERO_OPTIONS = {("parity-result", "--exit-code"), ("history append", "--retry-delay")}


def test_no_option_reads_a_bare_int_or_float() -> None:
    """argparse's int and float take nan, inf, 1e308 and negatives: every numeric option
    has a range-checking converter of `perfgate.cli_args`."""
    bare = [(c, o) for c, o, kind in _options() if kind in (int, float)]
    assert bare == []
    found = {(c, o) for c, o, _ in _numeric_options()}
    assert {("gate", "--budget-minutes"), ("calibrate", "--rounds")} <= found
    assert ("history append", "--retry-delay") in found


@pytest.mark.parametrize(
    ("command", "option", "kind"), _numeric_options(), ids=lambda x: getattr(x, "__name__", x)
)
def test_every_numeric_option_refuses_bad_numbers(command: str, option: str, kind: Any) -> None:
    bad = ["inf", "-inf", "nan", "1e308", "-1", "1" + "0" * 30]
    if (command, option) not in ZERO_OPTIONS:
        bad.append("0")
    for text in bad:
        with pytest.raises(argparse.ArgumentTypeError):
            kind(text)


@pytest.mark.parametrize("value", ["1e308", "inf", "nan"])
def test_gate_budget_1e308_is_a_clean_usage_error(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--plan", "--budget-minutes", value]
    assert cli.main(argv) == 3
    err = capsys.readouterr().err
    assert "--budget-minutes" in err and value in err
    assert "Traceback" not in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_tiny_cost_from_the_policy_plans_without_overflow() -> None:
    """A benchmark's cost is any finite number of seconds >= 0: one of 5e-324 (the
    smallest float) made budget / cost infinite in `blocking_rounds` (OverflowError)."""
    from perfgate.model import CaseKey
    from perfgate.wall.plan import blocking_rounds

    config = parse_config({"costs": {"benchmarks": {"b.x": 5e-324}}, "budget_minutes": 10080})
    assert config.costs is not None and config.budget_minutes is not None
    key = CaseKey("b.x")
    costs = config.costs.by_benchmark()
    rounds = blocking_rounds({key: costs["b.x"]}, [key], 6, config.budget_minutes * 60)
    assert rounds == 6
