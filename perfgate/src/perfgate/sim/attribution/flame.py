"""A differential flame graph of one case: the head's call tree, each frame as wide as its
share of the head's cost and coloured by how its cost moved from the base (red: more, blue:
less, grey: within the tolerance). Pure: two functions tables in, SVG text out.

Callgrind keeps a call graph (who called whom, at what inclusive cost), not a tree; the
tree is unfolded from it as gprof-style tools do: a frame's callees get the edges' costs
scaled by the frame's share of what all callers paid for its function, a function already on the
path (recursion) is not entered again, and frames narrower than `MIN_SHARE` of the total
are left out. Frames are matched between base and head by their path of labels.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from perfgate.sim.attribution.table import FunctionsTable, metric

WIDTH = 1200
FRAME = 18
MIN_SHARE = 0.001
MAX_DEPTH = 40
_CHAR = 7.0  # pixels per character of the 12px monospace labels
ROOT = "all"


@dataclass
class Frame:
    """One frame of the unfolded tree: its label, value and children (by label)."""

    label: str
    value: float
    children: dict[str, Frame] = field(default_factory=dict)


def _callees(table: FunctionsTable, figure: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for (caller, callee), (_, cost) in table.calls.items():
        out.setdefault(caller, {})[callee] = metric(cost, table.events, figure)
    return out


def unfold(table: FunctionsTable, figure: str) -> Frame:
    """The call tree of ``table`` under one root frame holding its total. The root's
    children are the functions whose inclusive cost their recorded callers do not explain
    (the calls under way when the measured call began, as ``case.call`` itself)."""
    total = metric(table.total(), table.events, figure)
    callees = _callees(table, figure)
    inclusive = {k: metric(v, table.events, figure) for k, v in table.inclusive.items()}
    entered = dict.fromkeys(inclusive, 0.0)
    for (_, callee), (_, cost) in table.calls.items():
        entered[callee] += metric(cost, table.events, figure)
    floor = total * MIN_SHARE
    tops = {k: v - entered[k] for k, v in inclusive.items() if v - entered[k] >= floor}
    root = Frame(ROOT, total)
    # a frame's share of its function: of what its callers paid for it (the inclusive cost
    # counts a recursion's inner calls again), else of its inclusive cost (a top)
    paid = {k: entered[k] if entered[k] > 0 else v for k, v in inclusive.items()}
    _grow(root, tops, 1.0, callees, paid, (ROOT,), floor)
    return root


def _grow(
    frame: Frame,
    edges: dict[str, float],
    share: float,
    callees: dict[str, dict[str, float]],
    inclusive: dict[str, float],
    path: tuple[str, ...],
    floor: float,
) -> None:
    """Give ``frame`` its children: the costs of ``edges`` (callee -> cost) times
    ``share`` (the frame's part of its function), shrunk together where they would not
    fit in the frame (recursion counts inner calls twice)."""
    if len(path) > MAX_DEPTH:
        return
    wanted = {k: v * share for k, v in edges.items() if k not in path and v > 0}
    fit = min(1.0, frame.value / sum(wanted.values())) if wanted else 1.0
    for label in sorted(wanted):
        value = wanted[label] * fit
        if value < floor:
            continue
        child = Frame(label, value)
        frame.children[label] = child
        ratio = value / inclusive[label] if inclusive.get(label, 0.0) > 0 else 0.0
        _grow(child, callees.get(label, {}), ratio, callees, inclusive, (*path, label), floor)


def _values(frame: Frame, path: tuple[str, ...], into: dict[tuple[str, ...], float]) -> None:
    into[path] = frame.value
    for label, child in frame.children.items():
        _values(child, (*path, label), into)


def _colour(delta: float, limit: float, largest: float) -> str:
    if abs(delta) <= limit or largest <= 0:
        return "rgb(210,210,210)"
    strength = min(1.0, abs(delta) / largest)
    fade = int(220 - 170 * strength)
    return f"rgb(235,{fade},{fade})" if delta > 0 else f"rgb({fade},{fade},235)"


@dataclass
class _Canvas:
    """What every frame is drawn with: pixels per unit, the base's values and the changes
    by path, the tolerance and the largest change (colours), and the SVG rows so far."""

    scale: float
    before: dict[tuple[str, ...], float]
    deltas: dict[tuple[str, ...], float]
    limit: float
    largest: float
    rows: list[str] = field(default_factory=list)

    def draw(self, frame: Frame, path: tuple[str, ...], x: float, level: int) -> int:
        """Draw ``frame`` at ``x`` (icicle: the root on top) and its children; the deepest
        level drawn."""
        width, y = frame.value * self.scale, 24 + level * FRAME
        delta = self.deltas.get(path, 0.0)
        tip = (
            f"{frame.label}: head {frame.value:,.0f}, "
            f"base {self.before.get(path, 0.0):,.0f} ({delta:+,.0f})"
        )
        chars = int((width - 6) / _CHAR)
        label = frame.label if len(frame.label) <= chars else frame.label[: max(chars - 2, 0)]
        label += "" if len(frame.label) <= chars else ".."
        text = f'<text x="{x + 3:.1f}" y="{y + 13}">{html.escape(label)}</text>'
        self.rows.append(
            f'<g class="frame"><title>{html.escape(tip)}</title>'
            f'<rect x="{x:.1f}" y="{y}" width="{max(width - 0.5, 0.5):.1f}" '
            f'height="{FRAME - 1}" fill="{_colour(delta, self.limit, self.largest)}"/>'
            f"{text if chars >= 3 else ''}</g>"
        )
        deepest, at = level, x
        for name, child in frame.children.items():
            deepest = max(deepest, self.draw(child, (*path, name), at, level + 1))
            at += child.value * self.scale
        return deepest


def render(
    base: FunctionsTable, head: FunctionsTable, figure: str, tolerance: float = 0.001
) -> str:
    """The differential flame graph of ``figure`` from base to head as SVG text."""
    tree = unfold(head, figure)
    before: dict[tuple[str, ...], float] = {}
    _values(unfold(base, figure), (ROOT,), before)
    after: dict[tuple[str, ...], float] = {}
    _values(tree, (ROOT,), after)
    deltas = {p: v - before.get(p, 0.0) for p, v in after.items()}
    limit = tolerance * (before.get((ROOT,), 0.0) or tree.value)
    largest = max((abs(d) for p, d in deltas.items() if p != (ROOT,)), default=0.0)
    canvas = _Canvas(WIDTH / tree.value if tree.value > 0 else 0.0, before, deltas, limit, largest)
    height = (canvas.draw(tree, (ROOT,), 0.0, 0) + 1) * FRAME + 30
    title = (
        f'<text x="4" y="16" class="title">{html.escape(figure)} per call: base '
        f"{before.get((ROOT,), 0.0):,.0f}, head {tree.value:,.0f} (red: more, blue: less)</text>"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="flame" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="monospace" '
        f'font-size="12">\n{title}\n' + "\n".join(canvas.rows) + "\n</svg>\n"
    )
