"""perfgate.report.segments: a regressed case shown with its segments' own ratios."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_check import check_golden

from perfgate.config import GateConfig, SegmentsRule, parse_config
from perfgate.errors import ConfigError
from perfgate.gate.decide import decide
from perfgate.model import CaseComparison, CaseKey
from perfgate.report.render import Report, render_html, render_markdown
from perfgate.report.segments import segments_of, views
from perfgate.verdict import CaseVerdict

GOLDEN = Path(__file__).parent.parent / "golden"
RULE = SegmentsRule(
    "segments.AssembledSegments.track_segment",
    "hot_slice.HotSlice.time_compute",
    "segment",
    (("path", "assembled"), ("profile", "sac_default")),
)
CONFIG = GateConfig(segments=(RULE,), confirm=False)


def _hot(path: str, n: str, verdict: CaseVerdict) -> CaseComparison:
    params = (("task", "g1_walk"), ("profile", "sac_default"), ("path", path))
    key = CaseKey(RULE.of, (*params, ("num_envs", n), ("threads", "1")))
    return CaseComparison(
        key, verdict, 0.05, True, ratio=1.12, ci_low=1.08, ci_high=1.15, n_base=6, n_head=6,
        base_median=1e-3, head_median=1.12e-3, p=0.001, q=0.002,
    )  # fmt: skip


def _segment(segment: str, n: str, ratio: float, verdict: CaseVerdict) -> CaseComparison:
    params = (("task", "g1_walk"), ("segment", segment), ("num_envs", n), ("threads", "1"))
    return CaseComparison(
        CaseKey(RULE.benchmark, params), verdict, 0.05, False, ratio=ratio,
        ci_low=ratio - 0.02, ci_high=ratio + 0.03, n_base=6, n_head=6,
    )  # fmt: skip


ROWS = [
    _hot("assembled", "2048", CaseVerdict.REGRESSED),
    _hot("handwritten", "2048", CaseVerdict.REGRESSED),
    _hot("assembled", "65536", CaseVerdict.UNCHANGED),
    _segment("bind", "2048", 1.01, CaseVerdict.UNCHANGED),
    _segment("execute", "2048", 1.18, CaseVerdict.REGRESSED),
    _segment("log", "2048", 0.99, CaseVerdict.UNCHANGED),
    _segment("execute", "65536", 1.00, CaseVerdict.UNCHANGED),
]


def test_a_case_is_segmented_by_the_rows_that_share_its_other_params() -> None:
    """The assembled case at N=2048 has three segments; the N=65536 segment is another
    case's; the hand-written path is no case the rule segments."""
    found = segments_of(ROWS[0], ROWS, RULE)
    assert [r.key.param("segment") for r in found] == ["bind", "execute", "log"]
    assert segments_of(ROWS[1], ROWS, RULE) == []


def test_only_regressed_cases_are_shown_with_their_segments() -> None:
    (view,) = views(ROWS, CONFIG)
    assert view.case.startswith("hot_slice.HotSlice.time_compute(task=g1_walk")
    assert [(s.segment, s.ratio, s.ci) for s in view.segments] == [
        ("bind", "1.010", "0.990–1.040"),
        ("execute", "1.180", "1.160–1.210"),
        ("log", "0.990", "0.970–1.020"),
    ]
    assert views(ROWS, GateConfig()) == []


def test_golden_segments_section() -> None:
    """The report names the segment that moved next to the regressed case."""
    report = Report(
        decision=decide(ROWS, [], CONFIG), config=CONFIG, base="1" * 40, head="a" * 40,
        machine="m", command="perfgate gate", rows=ROWS,
    )  # fmt: skip
    text = render_markdown(report)
    start = text.index("#### Segments of the regressed cases")
    check_golden(GOLDEN / "segments_section.md", text[start : text.index("####", start + 4)])
    assert "<h2>Segments of the regressed cases (1)</h2>" in render_html(report)


def test_a_segments_rule_is_checked_key_by_key() -> None:
    rule = {"benchmark": RULE.benchmark, "of": RULE.of, "where": {"path": "assembled"}}
    (parsed,) = parse_config({"segments": [rule]}).segments
    assert parsed.where == (("path", "assembled"),) and parsed.param == "segment"
    with pytest.raises(ConfigError, match=r"segments\[0\].where: expected a table"):
        parse_config({"segments": [{**rule, "where": {"path": 1}}]})
    with pytest.raises(ConfigError, match=r"segments\[0\].of: expected a benchmark name"):
        parse_config({"segments": {"benchmark": RULE.benchmark}})
