"""What the run could see in the report: blind spots first, a table per blocking case."""

from __future__ import annotations

from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey, GateDecision
from perfgate.report.render import Report, render_html, render_markdown, verdict_json
from perfgate.verdict import CaseVerdict, GateVerdict

WIDE = CaseKey("hot_slice.T.time_run", (("n", "2048"),))
NARROW = CaseKey("hot_slice.T.time_run", (("n", "65536"),))
ONLY = CaseKey("compile_time.T.track_s")


def _report() -> Report:
    rows = (
        CaseComparison(WIDE, CaseVerdict.INCONCLUSIVE, 0.03, True, 6, 6, 1.0, 1.0, 1.02, 0.936,
                       1.12, note="CI straddles"),
        CaseComparison(NARROW, CaseVerdict.UNCHANGED, 0.03, True, 6, 6, 1.0, 1.0, 1.0, 0.995,
                       1.005),
        CaseComparison(ONLY, CaseVerdict.INCONCLUSIVE, 0.05, False, 1, 1),
    )  # fmt: skip
    return Report(
        decision=GateDecision(GateVerdict.PASS, ()),
        config=GateConfig(blocking=(r"^hot_slice\.",)),
        base="b" * 40,
        head="h" * 40,
        machine="m",
        command="perfgate gate",
        rows=rows,
    )


def test_a_pass_lists_its_blind_spots_before_anything_else() -> None:
    """The wide case (1.03 * 1.02 / 0.936 - 1 = 12.2%) is named at the top of a PASS; the
    narrow one and the report-only case are not."""
    text = render_markdown(_report())
    top = text.split("#### ")[0]
    assert "**Blind spots (1)**" in top
    assert "n=2048" in top and "n=65536" not in top and "compile" not in top
    assert "only a slowdown of 12.2% or more was detectable" in top


def test_every_blocking_case_states_its_detectable_slowdown() -> None:
    """The collapsed table has one line per blocking case, the report-only case has none."""
    text = render_markdown(_report())
    table = text.split("What this run could see")[1]
    assert "(2 blocking case(s), 1 blind spot(s))" in table
    assert "| 6/6 | 0.995–1.005 | 3.0% | 3.5% | 5.0% | yes |" in table
    assert "compile" not in table.split("</details>")[0]


def test_html_and_json_carry_the_blind_spots() -> None:
    """The HTML report lists the blind spot; verdict.json has every blocking case."""
    assert "Blind spots (1)" in render_html(_report())
    seen = verdict_json(_report())["visibility"]
    assert [v["blind_spot"] for v in seen] == [True, False]
    assert seen[1]["detectable_slowdown"] is not None
