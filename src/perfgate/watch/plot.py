"""A small SVG plot of a case's history around one change, written by hand (no plotting
library): one dot per measured commit at its first-parent position, the regime levels before
and after the change as horizontal lines, and the unmeasured range between the last good and
the first bad commit shaded. Deterministic text, so a golden file can hold it.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from perfgate.watch.series import Series
from perfgate.watch.state import WatchedChange

WIDTH, HEIGHT = 480, 180
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 12, 24, 28
#: Measured commits shown on each side of the change.
CONTEXT = 12


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def history_svg(series: Series, change: WatchedChange, unit: str = "") -> str:
    """The plot of ``series`` around ``change`` (up to `CONTEXT` points each side) as SVG text."""
    index = next(i for i, p in enumerate(series.points) if p.commit == change.commit)
    shown = series.points[max(0, index - CONTEXT) : index + CONTEXT]
    lo = min(min(p.value for p in shown), change.before, change.after)
    hi = max(max(p.value for p in shown), change.before, change.after)
    pad = (hi - lo) * 0.1 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    first, last = shown[0].position, shown[-1].position
    span = max(last - first, 1)
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def x(position: float) -> float:
        return _LEFT + (position - first) / span * plot_w

    def y(value: float) -> float:
        return _TOP + (hi - value) / (hi - lo) * plot_h

    good = series.points[index - 1].position
    bad = series.points[index].position
    title = f"{series.label}: {change.direction.value} {change.ratio:.3f}x"
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="10">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{x(good):.1f}" y="{_TOP}" width="{x(bad) - x(good):.1f}" '
        f'height="{plot_h}" fill="#f6d5d5"/>',
        f'<line x1="{_LEFT}" y1="{_TOP + plot_h}" x2="{WIDTH - _RIGHT}" y2="{_TOP + plot_h}" '
        'stroke="#888"/>',
        f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_TOP + plot_h}" stroke="#888"/>',
        f'<text x="{_LEFT - 4}" y="{_TOP + 4}" text-anchor="end">{_fmt(hi)}</text>',
        f'<text x="{_LEFT - 4}" y="{_TOP + plot_h}" text-anchor="end">{_fmt(lo)}</text>',
        f'<text x="{_LEFT}" y="{_TOP - 8}">{escape(series.label)}'
        f"{escape(f' [{unit}]' if unit else '')}</text>",
        _level(x(first), x(good), y(change.before)),
        _level(x(bad), x(last), y(change.after)),
    ]
    for point in shown:
        colour = "#c03030" if point.position >= bad else "#3050a0"
        lines.append(
            f'<circle cx="{x(point.position):.1f}" cy="{y(point.value):.1f}" r="2.5" '
            f'fill="{colour}"><title>{point.commit[:10]}: {_fmt(point.value)}</title></circle>'
        )
    lines.append(
        f'<text x="{x(bad):.1f}" y="{HEIGHT - 10}" text-anchor="middle">{change.commit[:8]}</text>'
    )
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def _level(x1: float, x2: float, y: float) -> str:
    return (
        f'<line x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}" stroke="#555" '
        'stroke-dasharray="4 3"/>'
    )
