"""Escaping and number formats of the reports (pure): markdown-safe text, ratios, CIs,
p-values, percentages, times and speed-ups, as the report templates print them (the
escaping itself: `perfgate.markdown`)."""

from __future__ import annotations

import math
import re

from perfgate.markdown import Raw


def code_block(text: str, language: str = "") -> Raw:
    """A fenced code block whose fence is longer than any backtick run inside *text*."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return Raw(f"{fence}{language}\n{text}\n{fence}")


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def fmt_ratio(value: float | None) -> str:
    """Ratio with three decimals (three significant digits below 0.1), or an en dash."""
    if not _finite(value):
        return "–"
    assert value is not None
    return f"{value:.3f}" if abs(value) >= 0.1 else f"{value:.3g}"


def fmt_ci(low: float | None, high: float | None) -> str:
    """``low–high`` (no brackets: nothing to escape); an open side shows as ``∞``."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "–"
    return f"{_open_ratio(low)}–{_open_ratio(high)}"


def _open_ratio(value: float) -> str:
    return fmt_ratio(value) if math.isfinite(value) else "∞"


def fmt_p(value: float | None) -> str:
    """p or q value in compact scientific style."""
    if not _finite(value):
        return "–"
    assert value is not None
    return f"{value:.2g}" if value >= 0.001 else f"{value:.1e}"


def fmt_pct(value: float | None) -> str:
    """Relative threshold or efficiency as a percentage."""
    return f"{100 * value:.1f}%" if _finite(value) else "–"  # type: ignore[operator]


def fmt_time(value: float | None, unit: str = "seconds") -> str:
    """Human time (ns/µs/ms/s) for unit seconds; plain number otherwise.

    The scale is chosen after rounding to three digits: 0.9996 s is ``1 s``, not ``1e+03 ms``.
    """
    if not _finite(value):
        return "–"
    assert value is not None
    if unit != "seconds":
        return f"{value:.4g} {unit}"
    for scale, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(float(f"{value:.3g}")) >= scale:
            return f"{value / scale:.3g} {name}"
    return f"{value / 1e-9:.3g} ns"


def fmt_speedup(value: float | None) -> str:
    """``12.3×`` or an en dash."""
    return f"{value:.2f}×" if _finite(value) else "–"


def short_sha(sha: str) -> str:
    """First 8 characters of a hash."""
    return sha[:8]


def fmt_minutes(seconds: float | None) -> str:
    """Seconds as minutes with one decimal (``–``: none)."""
    if not _finite(seconds):
        return "–"
    assert seconds is not None
    return f"{seconds / 60.0:.1f}"
