"""The HTML report in a real browser (headless Chromium at 1280x800): the first screen's
layout is asserted from the rendered boxes, and a screenshot of each case is kept
(``PERFGATE_SCREENSHOTS=DIR`` keeps them there, else under pytest's tmp_path).

A PASS with blind spots, a REGRESSION and a PARITY failure (`report_cases`): the verdict
above what blocked, what the run could see and what changed, the chart below them and wholly
inside the window, no label cut or running into the plot.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import browser
import pytest
import report_cases

from perfgate.report.chart import chart_data
from perfgate.report.render import render_html, report_points

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]

BOXES = """
const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
const q = s => box(document.querySelector(s));
const all = s => Array.from(document.querySelectorAll(s)).map(box);
return {h1: q('h1'), blocked: q('#blocked'), seen: q('#seen'), changes: q('#changes'),
  chart: q('#chart svg'), caption: q('#chart figcaption'), labels: all('#chart text.label'),
  bands: all('#chart rect.band'), values: all('#chart text.value'),
  scrollWidth: document.documentElement.scrollWidth};
"""


@pytest.fixture(scope="module")
def chromium() -> Any:
    with browser.session(1280, 800) as b:
        yield b


def _open(chromium: browser.Browser, name: str, tmp_path: Path) -> dict[str, Any]:
    page = tmp_path / f"report_{name}.html"
    page.write_text(render_html(report_cases.REPORTS[name]()), encoding="utf-8")
    chromium.open(page.as_uri())
    chromium.screenshot(browser.screenshot_dir(tmp_path) / f"report_{name}.png")
    boxes: dict[str, Any] = chromium.run(BOXES)
    return boxes


@pytest.mark.parametrize("name", ["pass_blind", "regression", "sim_regression"])
def test_first_screen_answers_in_order_and_shows_the_whole_chart(
    chromium: browser.Browser, name: str, tmp_path: Path
) -> None:
    """Verdict, blocked, seen, changes, then the chart, all within 1280x800."""
    b = _open(chromium, name, tmp_path)
    width, height = chromium.viewport()
    assert (width, height) == (1280, 800)
    order = [b["h1"], b["blocked"], b["seen"], b["changes"], b["chart"]]
    assert all(box is not None for box in order)
    for upper, lower in itertools.pairwise(order):
        assert upper["bottom"] <= lower["top"] + 1, (upper, lower)
    chart = b["chart"]
    assert chart["left"] >= 0 and chart["right"] <= width
    assert chart["top"] >= 0 and chart["bottom"] <= height, "the chart is not wholly visible"
    assert b["scrollWidth"] <= width  # nothing wider than the window
    points = len(chart_data(report_points(report_cases.REPORTS[name]())).points)
    assert len(b["labels"]) == points and len(b["values"]) == points
    plot_left = min(band["left"] for band in b["bands"])
    for label in b["labels"]:
        assert label["left"] >= chart["left"], "a label is cut at the chart's left edge"
        assert label["right"] <= plot_left, "a label runs into the plot"
    for value in b["values"]:
        assert value["right"] <= chart["right"] + 1, "a value is cut at the right edge"


def test_parity_failure_report_has_its_answers_and_no_chart(
    chromium: browser.Browser, tmp_path: Path
) -> None:
    """What blocked (the parity failure) is on the first screen; nothing was charted."""
    b = _open(chromium, "parity_failure", tmp_path)
    _, height = chromium.viewport()
    assert b["chart"] is None
    assert b["h1"]["bottom"] <= b["blocked"]["top"] <= b["seen"]["top"]
    assert b["seen"]["bottom"] <= height
