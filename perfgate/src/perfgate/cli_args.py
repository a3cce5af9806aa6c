"""argparse pieces shared by the commands: ``type=`` converters (a bad value is a usage
error naming the option, instead of a traceback later) and the options of the measuring
commands (gate, calibrate)."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Any

from perfgate.case_label import selection_regex


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


def positive_number(text: str) -> float:
    """A finite number > 0 (``--budget-minutes``); 'nan' and 'inf' are refused."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (``--max-commits``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


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
