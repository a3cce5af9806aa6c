"""Timing summaries shared by the benchmark commands."""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Sequence


def summarize_ms(samples_ms: Sequence[float]) -> dict[str, float]:
    """Median, p95 (nearest rank), min, mean and sample std of per-call times in ms."""
    if not samples_ms:
        raise ValueError("samples_ms: expected at least one sample, got none")
    ordered = sorted(samples_ms)
    rank = max(0, math.ceil(0.95 * len(ordered)) - 1)  # nearest rank: the ceil, 1-based
    return {
        "median_ms": statistics.median(ordered),
        "p95_ms": ordered[rank],
        "min_ms": ordered[0],
        "mean_ms": statistics.fmean(ordered),
        "std_ms": statistics.stdev(ordered) if len(ordered) > 1 else 0.0,
    }


def seed_arg(text: str) -> int:
    """``--seed``: an integer >= 0 (NumPy's generators refuse negative seeds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def parse_int_list(text: str, name: str) -> list[int]:
    """Parse ``"2048,65536"`` into ints; a bad item is a ValueError naming the option."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"{name}: expected comma-separated integers, got {text!r}") from None
    if not values or any(v <= 0 for v in values):
        raise ValueError(f"{name}: expected positive integers, got {text!r}")
    return values
