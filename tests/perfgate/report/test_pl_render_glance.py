"""The report's first screen (what blocked, what the run could see, what changed, the chart)
in markdown and HTML, golden-tested on a PASS with blind spots, a REGRESSION and a PARITY
failure (`report_cases`). Regenerate with ``pytest --update-golden`` and review the diff."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
import report_cases
from golden_check import check_golden

from perfgate.report.render import render_html, render_markdown

GOLDEN = Path(__file__).parent.parent / "golden"


@pytest.mark.parametrize("name", sorted(report_cases.REPORTS))
def test_golden_first_screen(name: str) -> None:
    """Markdown and HTML of each case match their golden files."""
    report = report_cases.REPORTS[name]()
    check_golden(GOLDEN / f"glance_{name}.md", render_markdown(report))
    check_golden(GOLDEN / f"glance_{name}.html", render_html(report))


def _first(md: str, *needles: str) -> list[int]:
    return [md.index(n) for n in needles]


def test_markdown_answers_in_order_before_any_table() -> None:
    """Verdict, what blocked, what the run could see, what changed, the chart; the reasons
    of passing cases and every table after them."""
    md = render_markdown(report_cases.pass_with_blind_spots())
    at = _first(
        md,
        "### ✅ perfgate PASS",
        "**Blocked by:** nothing.",
        "**Could see:** 6 blocking case(s) checked; 3 could only have caught a slowdown",
        "**Notable changes:**",
        "```diff",
        "Why the passing cases passed (3)",
        "**Blind spots (3)**",
        "#### Regressions",
    )
    assert at == sorted(at)
    assert "straddles" not in md[: md.index("Why the passing cases passed")]


def test_the_seen_line_names_the_smallest_blind_slowdown() -> None:
    """ "N cases checked; M could only have caught a slowdown >= X%": X is the smallest
    detectable slowdown among the blind spots, the largest follows."""
    md = render_markdown(report_cases.pass_with_blind_spots())
    line = next(ln for ln in md.splitlines() if ln.startswith("**Could see:**"))
    assert "3 could only have caught a slowdown ≥ 13% (up to 15%)" in line
    assert "the other 3 would have caught a slowdown ≥ 6.8%" in line


def test_regression_report_leads_with_what_blocked() -> None:
    """The blocking case is the first answer; the improvement is a notable change."""
    md = render_markdown(report_cases.regression())
    lines = md.splitlines()
    assert lines[1].startswith("### ❌ perfgate REGRESSION")
    assert lines[3] == "**Blocked by:**"
    assert lines[4].startswith("- REGRESSION: head vs base") and "g1\\_walk" in lines[4]
    changes = md[md.index("**Notable changes:**") : md.index("```diff")]
    assert "faster (head vs base)" in changes and "motion\\_tracking" in changes
    assert "faster (path: assembled vs handwritten)" in changes


def test_parity_failure_says_nothing_was_measured() -> None:
    """No chart, and the first screen says why nothing was compared."""
    md = render_markdown(report_cases.parity_failure())
    assert "- PARITY\\_FAILURE: parity failed" in md
    assert "**Could see:** nothing was measured." in md
    assert "```diff" not in md
    assert 'id="chart"' not in render_html(report_cases.parity_failure())


def test_chart_draws_every_compared_case_with_short_labels() -> None:
    """Every head-vs-base row, variant row and change-from-base row is one point; labels are
    the parameters that differ (task / path, here), the shared ones said once."""
    html = render_html(report_cases.regression())
    svg = re.search(r'<figure id="chart">\s*(<svg .*?</svg>)', html, flags=re.S)
    assert svg is not None
    ElementTree.fromstring(svg.group(1))
    labels = re.findall(r'<text class="label"[^>]*>([^<]*)</text>', svg.group(1))
    assert labels[:2] == ["g1_walk / assembled", "g1_walk / handwritten"]
    assert len(labels) == 6 + 2 + 2
    assert "Labels: task / path (every case: profile=sac_default, num_envs=2048, threads=1)" in (
        html
    )
    regressed = re.findall(r'<g class="case regressed">', svg.group(1))
    assert len(regressed) == 1


def test_with_the_simulator_the_first_screen_says_what_each_instrument_could_see() -> None:
    """The seen line counts the simulator's cases apart; the chart draws each sim point on
    the line after its wall-clock twin; the table of both instruments says which decided."""
    md = render_markdown(report_cases.sim_regression())
    line = next(ln for ln in md.splitlines() if ln.startswith("**Could see:**"))
    assert "6 counted by the simulator would have caught a slowdown ≥ 1.0%" in line
    # the wall clock's blind spots stay blind whatever the simulator counted (issue 37, 6)
    assert "3 could only have caught a slowdown ≥ 13%" in line
    assert "(3 of them also counted by the simulator)" in line
    chart = md[md.index("```diff") : md.index("```", md.index("```diff") + 3)]
    wall, sim = (i for i, ln in enumerate(chart.splitlines()) if "g1_walk / handwritten" in ln)
    assert sim == wall + 1 and "[sim]" in chart.splitlines()[sim]
    table = md[md.index("Both instruments, per case (6)") :]
    hand = next(ln for ln in table.splitlines() if "path=handwritten" in ln and "g1" in ln)
    assert hand.endswith("| sim |") and "instructions +1.52%" in hand
    assert "| sim (the wall clock could not exclude a slowdown) |" in table
    assert "Both instruments" not in render_markdown(report_cases.pass_with_blind_spots())
