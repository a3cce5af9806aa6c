"""Checked values of `[tool.perfgate]`: each returns the value or raises `ConfigError` naming
the key (``where``) and what was expected, so a typo never loosens the gate."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from perfgate.errors import ConfigError

#: The longest time a budget, limit or cost may name: a week (no CI job runs longer, and
#: a larger figure only overflows the planner's arithmetic).
WEEK_MINUTES = 7 * 24 * 60
#: The largest count a key holds unless it names a tighter bound of its own.
MAX_COUNT = 1_000_000


def check_keys(where: str, data: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(allowed)}")


def fraction(where: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}: expected a number, got {value!r}")
    if not low < float(value) < high:
        raise ConfigError(f"{where}: expected a value in ({low}, {high}), got {value!r}")
    return float(value)


def threshold(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 10:
        raise ConfigError(f"{where}: expected a relative threshold like 0.05, got {value!r}")
    return float(value)


def regex(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a regular expression string, got {value!r}")
    try:
        re.compile(value)
    except re.error as exc:
        raise ConfigError(f"{where}: invalid regular expression {value!r}: {exc}") from None
    return value


def typed(where: str, value: Any, kind: type) -> Any:
    if kind is int and isinstance(value, bool):
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    if not isinstance(value, kind):
        raise ConfigError(f"{where}: expected {kind.__name__}, got {value!r}")
    return value


def str_list(where: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(value)


def command(where: str, value: Any) -> tuple[str, ...]:
    """A command line as a list of strings (argv); it needs a program to run."""
    argv = str_list(where, value)
    if not argv or not argv[0]:
        raise ConfigError(
            f"{where}: expected a command such as ['make', 'test-all'], got {value!r}"
        )
    return argv


def optional_command(where: str, value: Any) -> tuple[str, ...] | None:
    return None if value is None else command(where, value)


def relative_paths(where: str, value: Any) -> tuple[str, ...]:
    """Folders relative to a commit's export: non-empty, no absolute path, no ``..`` (the
    gate puts them on ``PYTHONPATH``; nothing may point outside the export)."""
    paths = str_list(where, value)
    for i, text in enumerate(paths):
        parts = text.replace("\\", "/").split("/")
        if not text or text.startswith("/") or ".." in parts:
            raise ConfigError(
                f"{where}[{i}]: expected a folder inside the repository such as 'src', "
                f"got {text!r}"
            )
    if not paths:
        raise ConfigError(f"{where}: expected at least one folder such as 'src'")
    return paths


def optional_paths(where: str, value: Any) -> tuple[str, ...] | None:
    return None if value is None else relative_paths(where, value)


def regex_list(where: str, value: Any) -> tuple[str, ...]:
    patterns = str_list(where, value)
    for i, pattern in enumerate(patterns):
        regex(f"{where}[{i}]", pattern)
    return patterns


def optional_regexes(where: str, value: Any) -> tuple[str, ...] | None:
    return None if value is None else regex_list(where, value)


def choice(where: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ConfigError(f"{where}: expected one of {allowed}, got {value!r}")
    return str(value)


def at_least(
    where: str, value: Any, minimum: int, minimum_name: str = "", maximum: int = MAX_COUNT
) -> int:
    """An integer option with a lower bound (``minimum_name``: the option that sets it) and
    a sensible upper one."""
    number: int = typed(where, value, int)
    if number < minimum:
        bound = f"{minimum_name} ({minimum})" if minimum_name else str(minimum)
        raise ConfigError(f"{where}: must be at least {bound}, got {number}")
    if number > maximum:
        raise ConfigError(f"{where}: must be at most {maximum}, got {number}")
    return number


def minutes(where: str, value: Any) -> float:
    """A finite number of minutes > 0 and at most a week (`WEEK_MINUTES`)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}: expected a number of minutes, got {value!r}")
    if not (math.isfinite(value) and 0 < value <= WEEK_MINUTES):
        raise ConfigError(
            f"{where}: expected a finite number of minutes > 0 and at most a week "
            f"({WEEK_MINUTES}), got {value!r}"
        )
    return float(value)


def seconds(where: str, value: Any) -> float:
    """A finite number of seconds >= 0 and at most a week."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}: expected a number of seconds, got {value!r}")
    if not (math.isfinite(value) and 0 <= value <= WEEK_MINUTES * 60):
        raise ConfigError(
            f"{where}: expected a finite number of seconds >= 0 and at most a week "
            f"({WEEK_MINUTES * 60}), got {value!r}"
        )
    return float(value)
