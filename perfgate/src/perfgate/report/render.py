"""The render stage: decided verdicts as a PR markdown comment, an HTML report and a JSON verdict.

Rendering never decides anything: it takes a `Report` whose verdicts were computed by the
compare and decide stages. Every value written into markdown passes through `md_escape` (via
the jinja2 ``finalize`` hook), so benchmark, branch and parameter names cannot break tables or
inject HTML; the HTML report uses jinja2 autoescaping. Chart geometry is computed in Python
(pure: `perfgate.report.chart`, `perfgate.report.chart_layout`) and the templates only
draw it.

Both reports open with the same first screen (`perfgate.report.glance`): what blocked, what
the run could see, what changed notably, then one chart of every compared case; the reasons
of passing cases, the blind spots and the tables come after.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from perfgate.config import GateConfig
from perfgate.formats.report_files import MARKER, VERDICT_API_VERSION
from perfgate.formats.timeline import Timeline
from perfgate.markdown import Raw, md_escape
from perfgate.model import (
    BROKEN_LABEL,
    CaseComparison,
    EnvironmentCheck,
    GateDecision,
    ParityResult,
    RunCause,
    VariantComparison,
)
from perfgate.report import attribution, labels, phase_times, segments, sim_scaling_chart
from perfgate.report.chart import HEAD_VS_BASE, ChartPoint, chart_data, rows_points, variant_points
from perfgate.report.chart_layout import svg_chart, text_chart
from perfgate.report.glance import glance
from perfgate.report.report_format import (
    code_block,
    fmt_ci,
    fmt_minutes,
    fmt_p,
    fmt_pct,
    fmt_ratio,
    fmt_speedup,
    fmt_time,
    short_sha,
)
from perfgate.report.thread_axis import HEIGHT, PAD, WIDTH, thread_x
from perfgate.sim.attribution.findings import CaseAttribution
from perfgate.twins import side_by_side, wall_key
from perfgate.verdict import CaseVerdict, GateVerdict
from perfgate.wall import visibility
from perfgate.wall.compare.compile_times import CompileRow
from perfgate.wall.compare.scaling import ScalingRow

__all__ = [
    "Raw",
    "Report",
    "code_block",
    "fmt_ci",
    "fmt_p",
    "fmt_pct",
    "fmt_ratio",
    "fmt_speedup",
    "fmt_time",
    "md_escape",
    "render_html",
    "render_markdown",
    "report_points",
    "short_sha",
    "summary_line",
    "verdict_json",
]

TEMPLATES = Path(__file__).parent / "templates"


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
    #: where each sim case beyond its threshold moved (decided by the compare stage)
    attribution: Sequence[CaseAttribution] = ()
    parity: ParityResult | None = None
    environment: EnvironmentCheck | None = None
    notes: Sequence[str] = field(default_factory=tuple)
    #: where this run's minutes went, and the newest earlier run's (what was planned)
    timeline: Timeline | None = None
    planned: Timeline | None = None

    def by_verdict(self, *verdicts: CaseVerdict) -> list[CaseComparison]:
        """Head-vs-base rows with one of *verdicts*, in order."""
        return [r for r in self.rows if r.verdict in verdicts]

    @property
    def others(self) -> list[CaseComparison]:
        """Rows that are neither regressions nor improvements (the collapsed table)."""
        return [
            r for r in self.rows if r.verdict not in (CaseVerdict.REGRESSED, CaseVerdict.IMPROVED)
        ]


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

    def xy(p: int, t: float) -> str:
        x = thread_x(p, p_lo, p_hi)
        y = PAD + (math.log(t) - t_lo) / ((t_hi - t_lo) or 1.0) * (HEIGHT - 2 * PAD)
        return f"{x:.1f},{y:.1f}"

    series = tuple(
        Series(c.label, " ".join(xy(p.threads, p.time) for p in c.points), css)
        for c, css in ((row.a, "side-a"), (row.b, "side-b"))
    )
    xticks = tuple((thread_x(p, p_lo, p_hi), str(p)) for p in threads)
    return LineChart(row.group.label(), int(WIDTH), int(HEIGHT), series, xticks)


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
    "label": labels.case_label,
    "variant_label": labels.variant_label,
    "relative_label": labels.relative_label,
    "minutes": fmt_minutes,
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


def report_points(report: Report) -> list[ChartPoint]:
    """Every compared case of ``report`` as a chart point: head vs base (parallel efficiency
    apart), variant vs baseline at head and its change from base. Rows of another instrument
    join here (`perfgate.report.chart.rows_points` with its name); the templates draw
    whatever points they get."""
    points = rows_points(report.rows, HEAD_VS_BASE) + variant_points(report.variants)
    return [_beside_wall(p, report.config) for p in points]


def _beside_wall(point: ChartPoint, config: GateConfig) -> ChartPoint:
    """A sim point keyed as its wall-clock twin, so the chart draws the two on adjacent
    lines under one label (`wall_key`)."""
    key = wall_key(point.key, config) if point.instrument == "sim" else None
    return replace(point, key=key) if key is not None else point


#: A markdown chart longer than this many cases is collapsed (the first screen stays short).
OPEN_CHART_POINTS = 40


def _chart(report: Report) -> dict[str, Any]:
    data = chart_data(report_points(report))
    lines = text_chart(data)
    return {
        "chart": data,
        "svg_chart": svg_chart(data),
        "text_chart": code_block("\n".join(lines), "diff") if lines else None,
        "chart_open": len(data.points) <= OPEN_CHART_POINTS,
    }


def _context(report: Report) -> dict[str, Any]:
    verdict = report.decision.verdict
    regressions = report.by_verdict(CaseVerdict.REGRESSED)
    improvements = report.by_verdict(CaseVerdict.IMPROVED)
    slower = [v for v in report.variants if v.row.verdict is CaseVerdict.REGRESSED]
    faster = [v for v in report.variants if v.row.verdict is CaseVerdict.IMPROVED]
    return {
        "r": report,
        "glance": glance(report.decision, report.rows, report.variants, report.config),
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
        "scaling_charts": [scaling_chart(s) for s in (*report.scaling, *report.variant_scaling)],
        "confidence": f"{100 * report.config.confidence:.0f}%",
        **_chart(report),
        **_visibility(report),
        "both": side_by_side(report.rows, report.config),
        "attribution": attribution.views(report.attribution, report.base, report.head),
        "segments": segments.views(report.rows, report.config),
        "sim_scaling": sim_scaling_chart.views(report.rows, report.config),
        "timeline": phase_times.views(report.timeline, report.planned, report.config.min_samples),
    }


def _visibility(report: Report) -> dict[str, Any]:
    """What the run could see (`perfgate.wall.plan`): every blocking case, blind spots."""
    seen = visibility.visibility(report.rows, report.config)
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
    } | ({"instrument": "sim", "figure": row.figure, "unit": row.unit} if row.figure else {})


#: How a run decided by benchmarks broken on both sides is blocked, by its verdict.
_BROKEN_BLOCKED = {
    GateVerdict.ERROR: "blocked: the gate cannot judge it",
    GateVerdict.REGRESSION: 'merge blocked by the policy\'s broken = "block"',
}


def headline(decision: GateDecision) -> str:
    """The verdict's headline, naming the run-wide cause the decision gives, if any; a run
    decided by benchmarks broken on both sides is named as such, never a regression."""
    if decision.cause is RunCause.BROKEN_ON_BOTH:
        how = _BROKEN_BLOCKED.get(decision.verdict, "blocked")
        cause = decision.cause.value
        return f"{BROKEN_LABEL}: {cause}, not a regression of this change ({how})"
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
        "visibility": [v.to_json() for v in visibility.visibility(report.rows, report.config)],
    }
