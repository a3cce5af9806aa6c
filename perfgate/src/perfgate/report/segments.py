"""The segments of each regressed case (pure): where a suite times segments of a case
(``[[tool.perfgate.segments]]``: this repository's assembled hot slice in bind, execute and
log), a regressed case is shown with each of its segments' own ratio, CI and verdict, so a
reviewer sees which segment moved without asking for segment timings by hand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfgate.config import GateConfig, SegmentsRule
from perfgate.model import CaseComparison
from perfgate.report.labels import case_label
from perfgate.report.report_format import fmt_ci, fmt_ratio
from perfgate.verdict import CaseVerdict


@dataclass(frozen=True)
class SegmentLine:
    """One segment of a regressed case, compared head vs base."""

    segment: str
    ratio: str
    ci: str
    verdict: str


@dataclass(frozen=True)
class SegmentsView:
    """A regressed case and its segments, in the order the run compared them."""

    case: str
    segments: tuple[SegmentLine, ...]


def _segments_case(rule: SegmentsRule, row: CaseComparison) -> bool:
    return row.key.benchmark == rule.of and all(row.key.param(k) == v for k, v in rule.where)


def segments_of(
    row: CaseComparison, rows: Sequence[CaseComparison], rule: SegmentsRule
) -> list[CaseComparison]:
    """The rows of ``rule``'s benchmark that segment ``row``'s case: every param but the
    segment's equal to ``row``'s (none where ``row`` is not a case the rule segments)."""
    if not _segments_case(rule, row):
        return []
    return [
        r
        for r in rows
        if r.key.benchmark == rule.benchmark
        and r.key.param(rule.param) is not None
        and all(row.key.param(n) == v for n, v in r.key.params if n != rule.param)
    ]


def _line(row: CaseComparison, rule: SegmentsRule) -> SegmentLine:
    """A segment's row, formatted and labelled as the report's case tables do."""
    return SegmentLine(
        row.key.param(rule.param) or "",
        fmt_ratio(row.ratio),
        fmt_ci(row.ci_low, row.ci_high),
        case_label(row),
    )


def views(rows: Sequence[CaseComparison], config: GateConfig) -> list[SegmentsView]:
    """Each regressed case that has segments in the run, with them."""
    out = []
    for row in rows:
        if row.verdict is not CaseVerdict.REGRESSED:
            continue
        for rule in config.segments:
            found = segments_of(row, rows, rule)
            if found:
                lines = tuple(_line(r, rule) for r in found)
                out.append(SegmentsView(row.key.label(), lines))
    return out
