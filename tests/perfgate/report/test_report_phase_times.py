"""perfgate.report.phase_times and the report's "Where the minutes went": each phase,
the sim phase by family, planned (the newest earlier run's timeline) against actual."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from golden_check import check_golden
from report_cases import regression

from perfgate.formats.timeline import FamilyTime, PhaseTime, RoundTime, Timeline
from perfgate.report.phase_times import views
from perfgate.report.render import render_html, render_markdown

GOLDEN = Path(__file__).parent.parent / "golden"


def _timeline(main: int, confirm: int, sim_s: float, scaling_cases: int) -> Timeline:
    rounds = [RoundTime("main", 0, 300.0, 290.0, 2)]
    rounds += [RoundTime("main", i, 120.0, 110.0, 2) for i in range(1, main)]
    rounds += [RoundTime("confirm", i, 60.0, 55.0, 2) for i in range(confirm)]
    families = (
        FamilyTime("sim_hot_slice", 36, 3, 300.0),
        FamilyTime("sim_scaling", scaling_cases, 3, sim_s - 300.0),
    )
    phase = PhaseTime("sim", sim_s, families)
    return Timeline("make test-all", 90.0, 12.0, tuple(rounds), phases=(phase,))


EARLIER = _timeline(main=8, confirm=0, sim_s=690.0, scaling_cases=24)
ACTUAL = _timeline(main=10, confirm=6, sim_s=500.0, scaling_cases=12)


def test_each_phase_planned_against_actual() -> None:
    """The sim phase is planned at the earlier run's seconds per count for this run's
    counts (12 scaling cases, half the earlier 24); main rounds up to min_samples, extra
    rounds and the confirmation apart; a phase the earlier run did not have is planned 0."""
    rows = {r.phase: r for r in views(ACTUAL, EARLIER, 6)}
    assert rows["set-up"].planned_s == 12.0 and rows["parity"].actual_s == 90.0
    assert rows["sim"].planned_s == pytest.approx(300.0 + 390.0 / 2)
    assert rows["sim"].actual_s == 500.0
    assert "sim_scaling 12 case(s) x 3 count(s)" in rows["sim"].detail
    assert rows["wall: main rounds"].planned_s == rows["wall: main rounds"].actual_s == 900.0
    assert (rows["wall: extra rounds"].planned_s, rows["wall: extra rounds"].actual_s) == (
        240.0,
        480.0,
    )
    assert (rows["wall: confirmation"].planned_s, rows["wall: confirmation"].actual_s) == (
        0.0,
        360.0,
    )
    total = rows["total"]
    assert total.actual_s == pytest.approx(12 + 90 + 500 + 900 + 480 + 360)


def test_without_an_earlier_run_nothing_is_planned() -> None:
    rows = views(ACTUAL, None, 6)
    assert all(r.planned_s is None for r in rows) and rows[-1].phase == "total"
    assert views(None, EARLIER, 6) == []


def test_another_parity_command_is_not_planned_from() -> None:
    rows = {r.phase: r for r in views(ACTUAL, replace(EARLIER, parity_command="pytest"), 6)}
    assert rows["parity"].planned_s is None and rows["total"].planned_s is None


def test_golden_timeline_section() -> None:
    """The report's table of where the minutes went; HTML carries the same section."""
    report = replace(regression(), timeline=ACTUAL, planned=EARLIER)
    text = render_markdown(report)
    start = text.index("#### Where the minutes went")
    check_golden(GOLDEN / "timeline_section.md", text[start : text.index("####", start + 4)])
    assert "<h2>Where the minutes went</h2>" in render_html(report)
    assert "Where the minutes went" not in render_markdown(regression())


def test_parity_taken_from_ci_is_planned_and_taken_as_nothing() -> None:
    rows = {r.phase: r for r in views(replace(ACTUAL, parity_s=None), EARLIER, 6)}
    assert (rows["parity"].planned_s, rows["parity"].actual_s) == (0.0, 0.0)
    assert rows["parity"].detail == "from CI"
