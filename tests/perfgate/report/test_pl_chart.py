"""perfgate.report.chart and chart_layout: chart points, generic labels, a second
instrument beside the wall clock, SVG geometry and the text chart."""

from __future__ import annotations

import dataclasses

import report_cases

from perfgate.model import CaseKey
from perfgate.report.chart import (
    EFFICIENCY,
    HEAD_VS_BASE,
    chart_data,
    label_fields,
    rows_points,
    variant_points,
)
from perfgate.report.chart_layout import TEXT_AXIS, svg_chart, text_chart
from perfgate.report.render import render_html, render_markdown, report_points
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.efficiency import EFFICIENCY_SUFFIX


def test_labels_keep_only_the_parameters_that_differ() -> None:
    """Parameter names are never assumed: whatever differs is shown, in parameter order."""
    keys = [
        CaseKey("m.C.time_a", (("size", "1"), ("mode", "x"), ("colour", "red"))),
        CaseKey("m.C.time_a", (("size", "2"), ("mode", "x"), ("colour", "red"))),
        CaseKey("m.C.time_b", (("size", "2"), ("mode", "y"), ("colour", "red"))),
    ]
    assert label_fields(keys) == (True, ("size", "mode"))
    points = rows_points(
        [report_cases.row(k, 1.0, (0.99, 1.01)) for k in keys], HEAD_VS_BASE
    )  # fmt: skip
    data = chart_data(points)
    assert [p.label for p in data.points] == ["time_a / 1 / x", "time_a / 2 / x", "time_b / 2 / y"]
    assert data.legend == "benchmark / size / mode" and data.shared == ("colour=red",)


def test_efficiency_rows_form_their_own_group_with_the_time_label() -> None:
    """A parallel-efficiency case is charted under its time benchmark's label."""
    time_key = report_cases.key("g1_walk", "handwritten", threads=2)
    eff = CaseKey(time_key.benchmark + EFFICIENCY_SUFFIX, time_key.params)
    rows = [report_cases.row(time_key, 1.0, (0.98, 1.02)), report_cases.row(eff, 1.0, (0.9, 1.1))]
    data = chart_data(rows_points(rows, HEAD_VS_BASE))
    assert data.groups == (HEAD_VS_BASE, EFFICIENCY)
    assert data.points[0].label == data.points[1].label


def test_a_second_instrument_is_drawn_beside_the_wall_clock() -> None:
    """Rows of another instrument (one measurement per side, no CI) become points next to
    the wall clock's point of the same case, in both charts, without template changes."""
    report = report_cases.regression()
    sim_rows = [
        dataclasses.replace(r, ci_low=None, ci_high=None, threshold=0.01, n_base=1, n_head=1)
        for r in report.rows
    ]
    points = report_points(report) + rows_points(sim_rows, HEAD_VS_BASE, instrument="sim")
    data = chart_data(points)
    first_two = data.points[:2]
    assert [p.instrument for p in first_two] == ["wall", "sim"]
    assert first_two[0].key == first_two[1].key
    chart = svg_chart(data)
    assert chart is not None and chart.tag_x is not None
    assert [r.marker for r in chart.rows[:2]] == ["circle", "diamond"]
    assert chart.rows[1].ci is None
    lines = text_chart(data)
    assert lines[2].rstrip().endswith("? undecided") and "[wall]" in lines[2]
    assert "[sim]" in lines[3] and "x" in lines[3]


def test_text_chart_marks_verdicts_for_diff_colouring() -> None:
    """Regressed rows start with "-" (red in a diff block), improved with "+"; the axis has
    the same width on every row."""
    report = report_cases.regression()
    data = chart_data(report_points(report))
    lines = text_chart(data)
    by_label = {ln[4:].split("  ")[0].strip(): ln for ln in lines if ln[:1] in "-+ "}
    assert by_label["g1_walk / handwritten"].startswith("-")
    assert by_label["motion_tracking / numpy"].startswith("+")
    rows = [ln for ln in lines[1:] if not ln.startswith("  ") or ln.startswith("    ")]
    starts = {ln.index("|") if "|" in ln else None for ln in rows if "|" in ln}
    assert len(starts) == 1  # the 1.0 line is one column on every row that shows it
    assert all(len(ln) >= TEXT_AXIS for ln in rows)


def test_svg_geometry_keeps_labels_clear_of_the_plot() -> None:
    """The label column ends before the plot starts and every x is inside the SVG."""
    chart = svg_chart(chart_data(report_points(report_cases.regression())))
    assert chart is not None
    assert chart.label_x < chart.axis.x0 < chart.axis.x1 < chart.value_x < chart.width
    for row in chart.rows:
        assert chart.axis.x0 <= row.band[0] < row.band[1] <= chart.axis.x1
        if row.x_ratio is not None:
            assert chart.axis.x0 <= row.x_ratio <= chart.axis.x1
    regressed = [r for r in chart.rows if r.css == CaseVerdict.REGRESSED.value]
    assert len(regressed) == 1 and regressed[0].x_ratio is not None
    assert regressed[0].x_ratio > regressed[0].band[1]  # beyond its threshold band


def test_variant_points_include_the_change_from_base() -> None:
    """Each variant pair gives its absolute row and, where it ran at base, its drift row."""
    report = report_cases.regression()
    groups = [p.group for p in variant_points(report.variants)]
    assert (
        groups
        == [
            "assembled vs handwritten",
            "assembled vs handwritten, change from base",
        ]
        * 2
    )


def test_reports_render_without_points() -> None:
    """A report with no compared case (parity failure) has no chart at all."""
    report = report_cases.parity_failure()
    assert chart_data(report_points(report)).points == ()
    assert "<svg" not in render_html(report) and "```diff" not in render_markdown(report)
