"""A small SVG plot of a case's history around one change, written by hand (no plotting
library): one dot per measured commit at its first-parent position, the regime levels before
and after the change as horizontal lines, and the unmeasured range between the last good and
the first bad commit shaded. Deterministic text, so a golden file can hold it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from perfgate.watch.changes.series import HistoryPoint, Series
from perfgate.watch.records.state import WatchedChange

WIDTH, HEIGHT = 480, 180
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 12, 24, 28
#: Measured commits shown on each side of the change.
CONTEXT = 12


def _fmt(value: float) -> str:
    return f"{value:.4g}"


@dataclass(frozen=True)
class _Frame:
    """The plot area: positions first..last across, values lo..hi up."""

    first: int
    last: int
    lo: float
    hi: float

    @property
    def height(self) -> int:
        return HEIGHT - _TOP - _BOTTOM

    def x(self, position: float) -> float:
        span = max(self.last - self.first, 1)
        return _LEFT + (position - self.first) / span * (WIDTH - _LEFT - _RIGHT)

    def y(self, value: float) -> float:
        return _TOP + (self.hi - value) / (self.hi - self.lo) * self.height


def _frame(shown: Sequence[HistoryPoint], change: WatchedChange) -> _Frame:
    lo = min(min(p.value for p in shown), change.before, change.after)
    hi = max(max(p.value for p in shown), change.before, change.after)
    pad = (hi - lo) * 0.1 or abs(hi) * 0.05 or 1.0
    return _Frame(shown[0].position, shown[-1].position, lo - pad, hi + pad)


def history_svg(series: Series, change: WatchedChange, unit: str = "") -> str:
    """The plot of ``series`` around ``change`` (up to `CONTEXT` points each side) as SVG text."""
    index = next(i for i, p in enumerate(series.points) if p.commit == change.commit)
    shown = series.points[max(0, index - CONTEXT) : index + CONTEXT]
    f = _frame(shown, change)
    good, bad = series.points[index - 1].position, series.points[index].position
    title = f"{series.label}: {change.direction.value} {change.ratio:.3f}x"
    bottom = _TOP + f.height
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="10">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{f.x(good):.1f}" y="{_TOP}" width="{f.x(bad) - f.x(good):.1f}" '
        f'height="{f.height}" fill="#f6d5d5"/>',
        f'<line x1="{_LEFT}" y1="{bottom}" x2="{WIDTH - _RIGHT}" y2="{bottom}" stroke="#888"/>',
        f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{bottom}" stroke="#888"/>',
        f'<text x="{_LEFT - 4}" y="{_TOP + 4}" text-anchor="end">{_fmt(f.hi)}</text>',
        f'<text x="{_LEFT - 4}" y="{bottom}" text-anchor="end">{_fmt(f.lo)}</text>',
        f'<text x="{_LEFT}" y="{_TOP - 8}">{escape(series.label)}'
        f"{escape(f' [{unit}]' if unit else '')}</text>",
        _level(f.x(f.first), f.x(good), f.y(change.before)),
        _level(f.x(bad), f.x(f.last), f.y(change.after)),
    ]
    for point in shown:
        colour = "#c03030" if point.position >= bad else "#3050a0"
        lines.append(
            f'<circle cx="{f.x(point.position):.1f}" cy="{f.y(point.value):.1f}" r="2.5" '
            f'fill="{colour}"><title>{point.commit[:10]}: {_fmt(point.value)}</title></circle>'
        )
    lines.append(
        f'<text x="{f.x(bad):.1f}" y="{HEIGHT - 10}" text-anchor="middle">'
        f"{change.commit[:8]}</text>"
    )
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def _level(x1: float, x2: float, y: float) -> str:
    return (
        f'<line x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}" stroke="#555" '
        'stroke-dasharray="4 3"/>'
    )
