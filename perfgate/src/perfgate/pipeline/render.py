"""The render stage: decided verdicts as a PR markdown comment, an HTML report and a JSON verdict.

Rendering never decides anything: it takes a `Report` whose verdicts were computed by the
compare and decide stages. Every value written into markdown passes through `md_escape` (via
the jinja2 ``finalize`` hook), so benchmark, branch and parameter names cannot break tables or
inject HTML; the HTML report uses jinja2 autoescaping. Chart geometry is computed here in
Python (pure) and the templates only draw it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from perfgate.config import GateConfig
from perfgate.formats.report_files import MARKER, VERDICT_API_VERSION
from perfgate.model import (
    CaseComparison,
    EnvironmentCheck,
    GateDecision,
    ParityResult,
    VariantComparison,
)
from perfgate.pipeline import plan
from perfgate.pipeline.compare.compile_times import CompileRow
from perfgate.pipeline.compare.scaling import ScalingRow
from perfgate.verdict import CaseVerdict, GateVerdict

TEMPLATES = Path(__file__).parent.parent / "templates"


@dataclass(frozen=True)
class Report:
    """Everything a report shows; all verdicts are already decided."""

    decision: GateDecision
    config: GateConfig
    base: str
    head: str
    machine: str
    command: str
    rows: Sequence[CaseComparison] = ()
    variants: Sequence[VariantComparison] = ()
    scaling: Sequence[ScalingRow] = ()
    variant_scaling: Sequence[ScalingRow] = ()
    compile_rows: Sequence[CompileRow] = ()
    parity: ParityResult | None = None
    environment: EnvironmentCheck | None = None
    notes: Sequence[str] = field(default_factory=tuple)

    def by_verdict(self, *verdicts: CaseVerdict) -> list[CaseComparison]:
        """Head-vs-base rows with one of *verdicts*, in order."""
        return [r for r in self.rows if r.verdict in verdicts]

    @property
    def others(self) -> list[CaseComparison]:
        """Rows that are neither regressions nor improvements (the collapsed table)."""
        return [
            r for r in self.rows if r.verdict not in (CaseVerdict.REGRESSED, CaseVerdict.IMPROVED)
        ]


# --------------------------------------------------------------------------------------------
# Escaping and formatting
# --------------------------------------------------------------------------------------------


class Raw(str):
    """Text already made safe for markdown (e.g. a fenced code block); not escaped again."""


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#])")


def md_escape(value: object) -> str:
    """Escape *value* for a markdown table cell or inline text.

    Newlines become spaces (a newline ends a table row), ``& < >`` become entities (no raw
    HTML such as ``<script>``), markdown punctuation (``| ` * _ [ ] # \\``) gets a backslash
    (``|`` would split a cell, backticks open code spans, brackets make links) and ``@`` a
    word joiner (no mentions).
    """
    if isinstance(value, Raw):
        return str(value)
    if value is None:
        return ""
    text = re.sub(r"[\r\n\t\x0b\x0c]+", " ", str(value))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # "@" + word joiner: GitHub shows "@name" but does not notify anyone (a parameter, a
    # note or a pytest line such as "@njit" must never ping a user or a team)
    text = text.replace("@", "@\u2060")
    return _MD_SPECIAL.sub(r"\\\1", text)


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


_HEADLINES = {
    GateVerdict.PASS: "PASS: no stable regression",
    GateVerdict.REGRESSION: "REGRESSION: merge blocked",
    GateVerdict.PARITY_FAILURE: "PARITY FAILURE: merge blocked",
    GateVerdict.ERROR: "ERROR: the gate could not decide (blocked)",
}
_ICONS = {
    GateVerdict.PASS: "✅",
    GateVerdict.REGRESSION: "❌",
    GateVerdict.PARITY_FAILURE: "❌",
    GateVerdict.ERROR: "⚠️",
}


# --------------------------------------------------------------------------------------------
# Chart geometry (pure)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CiBar:
    """One horizontal CI bar of a ratio chart, in SVG coordinates."""

    label: str
    y: float
    x_low: float
    x_high: float
    x_mid: float
    css: str


@dataclass(frozen=True)
class RatioChart:
    """Ratio CIs on a log axis with the 1.0 line."""

    width: int
    height: int
    x_one: float
    bars: tuple[CiBar, ...]
    ticks: tuple[tuple[float, str], ...]


def ratio_chart(rows: Sequence[CaseComparison], labels: Sequence[str]) -> RatioChart | None:
    """Geometry for the CI chart of *rows* that have a CI (None when there is none)."""
    items = [(r, lab) for r, lab in zip(rows, labels, strict=True) if r.ci_low and r.ci_high]
    if not items:
        return None
    lows = [math.log(min(r.ci_low or 1.0, 1.0)) for r, _ in items]
    highs = [math.log(max(r.ci_high or 1.0, 1.0)) for r, _ in items]
    lo, hi = min(lows) - 0.05, max(highs) + 0.05
    left, width, row_h = 260.0, 420.0, 18.0

    def x(value: float) -> float:
        return round(left + (math.log(value) - lo) / (hi - lo) * width, 1)

    bars = tuple(
        CiBar(
            lab,
            20 + i * row_h,
            x(r.ci_low or 1.0),
            x(r.ci_high or 1.0),
            x(r.ratio or 1.0),
            r.verdict.value,
        )
        for i, (r, lab) in enumerate(items)
    )
    tick_values = [
        v for v in (0.25, 0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0) if lo <= math.log(v) <= hi
    ]
    ticks = tuple((x(v), f"{v:g}×") for v in tick_values)
    return RatioChart(int(left + width + 20), int(40 + len(items) * row_h), x(1.0), bars, ticks)


@dataclass(frozen=True)
class Series:
    """One polyline of a line chart."""

    label: str
    points: str
    css: str


@dataclass(frozen=True)
class LineChart:
    """Time vs thread count for the two sides of one scaling row (log-log)."""

    title: str
    width: int
    height: int
    series: tuple[Series, ...]
    xticks: tuple[tuple[float, str], ...]


def scaling_chart(row: ScalingRow) -> LineChart:
    """Geometry of one thread-scaling chart: x = log2(threads), y = log(time), faster is lower."""
    times = [p.time for c in (row.a, row.b) for p in c.points]
    threads = sorted({p.threads for p in row.a.points})
    t_lo, t_hi = math.log(min(times)), math.log(max(times))
    p_lo, p_hi = math.log2(threads[0]), math.log2(threads[-1])
    w, h, pad = 260.0, 140.0, 24.0

    def xy(p: int, t: float) -> str:
        x = pad + (math.log2(p) - p_lo) / ((p_hi - p_lo) or 1.0) * (w - 2 * pad)
        y = pad + (math.log(t) - t_lo) / ((t_hi - t_lo) or 1.0) * (h - 2 * pad)
        return f"{x:.1f},{y:.1f}"

    series = tuple(
        Series(c.label, " ".join(xy(p.threads, p.time) for p in c.points), css)
        for c, css in ((row.a, "side-a"), (row.b, "side-b"))
    )
    xticks = tuple(
        (pad + (math.log2(p) - p_lo) / ((p_hi - p_lo) or 1.0) * (w - 2 * pad), str(p))
        for p in threads
    )
    return LineChart(row.group.label(), int(w), int(h), series, xticks)


# --------------------------------------------------------------------------------------------
# Environments and entry points
# --------------------------------------------------------------------------------------------


def row_note(row: CaseComparison) -> str:
    """A row's note, plus why a regression or failure does not block when it does not.

    Families outside ``blocking`` (and variant pairs with ``block_if_slower = false``) are
    compared and reported like the others; without this a PASS report listed a stable
    regression with nothing saying why it did not block.
    """
    if row.blocking or row.verdict not in (CaseVerdict.REGRESSED, CaseVerdict.FAILED):
        return row.note
    extra = "reported only: this benchmark does not block"
    return f"{row.note}; {extra}" if row.note else extra


_FILTERS = {
    "ratio": fmt_ratio,
    "ci": fmt_ci,
    "pv": fmt_p,
    "pct": fmt_pct,
    "time": fmt_time,
    "speedup": fmt_speedup,
    "sha": short_sha,
    "code_block": code_block,
    "note": row_note,
}


@cache
def _environment(markdown: bool) -> jinja2.Environment:
    if markdown:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            autoescape=False,
            finalize=md_escape,
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    else:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    env.filters.update(_FILTERS)
    env.filters["md"] = md_escape
    return env


def _context(report: Report) -> dict[str, Any]:
    verdict = report.decision.verdict
    regressions = report.by_verdict(CaseVerdict.REGRESSED)
    improvements = report.by_verdict(CaseVerdict.IMPROVED)
    chart_rows = regressions + improvements + [v.row for v in report.variants]
    chart_labels = [r.key.label() for r in regressions + improvements] + [
        f"{v.pair.variant}/{v.pair.baseline} {v.row.key.label()}" for v in report.variants
    ]
    slower = [v for v in report.variants if v.row.verdict is CaseVerdict.REGRESSED]
    faster = [v for v in report.variants if v.row.verdict is CaseVerdict.IMPROVED]
    return {
        "r": report,
        "variants_slower": slower,
        "variants_faster": faster,
        "relative": [v for v in report.variants if v.relative is not None],
        "marker": Raw(MARKER),
        "headline": headline(report.decision),
        "icon": Raw(_ICONS[verdict]),
        "exit_code": verdict.exit_code,
        "regressions": regressions,
        "regressions_reported_only": [r for r in regressions if not r.blocking],
        "improvements": improvements,
        "others": report.others,
        "ratio_chart": ratio_chart(chart_rows, chart_labels),
        "scaling_charts": [scaling_chart(s) for s in (*report.scaling, *report.variant_scaling)],
        "confidence": f"{100 * report.config.confidence:.0f}%",
        **_visibility(report),
    }


def _visibility(report: Report) -> dict[str, Any]:
    """What the run could see (`perfgate.pipeline.plan`): every blocking case, blind spots."""
    seen = plan.visibility(report.rows, report.config)
    return {"visibility": seen, "blind_spots": [v for v in seen if v.blind]}


def render_markdown(report: Report) -> str:
    """The PR comment; its first line is the hidden marker used to find and update it."""
    text = _environment(True).get_template("report.md.j2").render(_context(report))
    return re.sub(r"\n{3,}", "\n\n", text)


def render_html(report: Report) -> str:
    """A standalone HTML report with inline SVG charts (no external assets)."""
    return _environment(False).get_template("report.html.j2").render(_context(report))


def _row_json(row: CaseComparison) -> dict[str, Any]:
    return {
        "benchmark": row.key.benchmark,
        "params": dict(row.key.params),
        "verdict": row.verdict.value,
        "blocking": row.blocking,
        "n_base": row.n_base,
        "n_head": row.n_head,
        "base_median": row.base_median,
        "head_median": row.head_median,
        "ratio": row.ratio,
        "ci_low": row.ci_low,
        "ci_high": row.ci_high,
        "p": row.p,
        "q": row.q,
        "threshold": row.threshold,
        "noise_floor": row.noise_floor,
        "paired": row.paired,
        "note": row.note,
    }


def headline(decision: GateDecision) -> str:
    """The verdict's headline, naming the run-wide cause the decision gives, if any."""
    name, _, rest = _HEADLINES[decision.verdict].partition(": ")
    return f"{name}: {decision.cause.value} ({rest})" if decision.cause else f"{name}: {rest}"


def summary_line(decision: GateDecision) -> str:
    """One line for a commit status: the headline and the first (most severe) reason."""
    head = headline(decision)
    if not decision.findings:
        return head
    return f"{head} ({len(decision.findings)} finding(s); first: {decision.findings[0].text})"


def verdict_json(report: Report) -> dict[str, Any]:
    """Machine-readable verdict (``verdict.json``); read by ``perfgate post``."""
    return {
        "api_version": VERDICT_API_VERSION,
        "verdict": report.decision.verdict.json_name,
        "summary": summary_line(report.decision),
        "exit_code": report.decision.exit_code,
        "reasons": list(report.decision.reasons),
        "base": report.base,
        "head": report.head,
        "machine": report.machine,
        "command": report.command,
        "cases": [_row_json(r) for r in report.rows],
        "variants": [
            {
                "pair": v.pair.label,
                **_row_json(v.row),
                "speedup_vs_reference": v.speedup_variant,
                **({"relative_to_base": _row_json(v.relative)} if v.relative else {}),
            }
            for v in report.variants
        ],
        "visibility": [v.to_json() for v in plan.visibility(report.rows, report.config)],
    }
