"""argparse ``type=`` converters shared by the subcommands (a bad value is a usage error,
exit 3, naming the option, instead of a traceback later)."""

from __future__ import annotations

import argparse
import math
import re


def regex(text: str) -> str:
    """A regular expression (``--bench``), compiled once here to check it."""
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
