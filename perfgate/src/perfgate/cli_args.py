"""argparse pieces shared by the commands: ``type=`` converters (a bad value is a usage
error naming the option, instead of a traceback later) and the options of the measuring
commands (gate, calibrate)."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfgate.case_label import selection_regex
from perfgate.config_values import WEEK_MINUTES


def regex(text: str) -> str:
    """A regular expression (``--bench``), compiled once here to check it; a case named as
    the report or asv names it selects exactly that case (`perfgate.case_label`)."""
    case = selection_regex(text)
    if case is not None:
        return case
    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"invalid regular expression {text!r}: {exc}") from None
    return text


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def minutes(text: str) -> float:
    """A finite number of minutes > 0, at most a week (``--budget-minutes``); 'nan', 'inf'
    and 1e308 are refused (a week's worth is more than any job may run)."""
    value = _number(text)
    if not (math.isfinite(value) and 0 < value <= WEEK_MINUTES):
        raise argparse.ArgumentTypeError(
            f"expected a finite number of minutes > 0 and at most a week ({WEEK_MINUTES}), "
            f"got {text!r}"
        )
    return value


def share(text: str) -> float:
    """A fraction in (0, 1] (``--headroom``)."""
    value = _number(text)
    if not (math.isfinite(value) and 0 < value <= 1):
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], got {text!r}")
    return value


def delay_seconds(text: str) -> float:
    """A finite number of seconds in [0, 3600] (``--retry-delay``)."""
    value = _number(text)
    if not (math.isfinite(value) and 0 <= value <= 3600):
        raise argparse.ArgumentTypeError(f"expected seconds in [0, 3600], got {text!r}")
    return value


def int_in(low: int, high: int, name: str) -> Callable[[str], int]:
    """A converter of integers in [low, high], named ``name`` (argparse names a converter
    by its ``__name__`` when it raises ValueError)."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected an integer in [{low}, {high}], got {text!r}"
            )
        return value

    convert.__name__ = name
    return convert


#: An integer >= 1 (``--max-commits``, ``--max-steps``, ``--pr``), below a billion.
positive_int = int_in(1, 10**9, "positive_int")
#: A process's exit code as a shell reports it.
exit_code = int_in(0, 255, "exit_code")


def add_measurement_args(p: argparse.ArgumentParser, quick_help: str) -> None:
    """Options of every command that measures with the gate's rounds (gate, calibrate)."""
    p.add_argument(
        "--bench",
        action="append",
        type=regex,
        help="asv --bench regex, or one case as the report or asv names it (repeatable)",
    )
    p.add_argument("--quick", action="store_true", help=quick_help)
    p.add_argument("--config", help="pyproject.toml with [tool.perfgate] (default: repo's)")
    p.add_argument("--repo", default=".", help="git repository (default: current directory)")
    p.add_argument("--work-dir", help="exports, rounds, noise floors (default: REPO/.perfgate)")
    p.add_argument("--machine", help="asv machine name (default: from the fingerprint)")


def measurement_options(args: argparse.Namespace) -> dict[str, Any]:
    """The `GateOptions` fields that :func:`add_measurement_args` parsed."""
    return {
        "bench": tuple(args.bench or ()),
        "quick": args.quick,
        "config": Path(args.config) if args.config else None,
        "repo": Path(args.repo),
        "work_dir": Path(args.work_dir) if args.work_dir else None,
        "machine": args.machine,
    }
