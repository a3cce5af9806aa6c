"""Benchmarks broken before the change, and what asv said when a benchmark failed (pure).

A head vs base case that failed (or timed out) on both sides was broken before the pull
request: it is not a regression of it, and not a pass either (`CaseVerdict.BROKEN`; the
policy's ``broken`` says which exit it asks for, `perfgate.gate.decide`). Head vs base
only: a variant row's two sides both ran at head, so both failing there is a failure at
head (`CaseVerdict.FAILED`, side "both").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from perfgate.case_pairs import explained
from perfgate.model import CaseComparison, Reason
from perfgate.verdict import CaseVerdict

#: Verdicts whose rows get asv's error text appended to their note.
_FAILING = frozenset({CaseVerdict.BROKEN, CaseVerdict.FAILED})


def mark_broken(row: CaseComparison) -> CaseComparison:
    """``row`` (head vs base) as BROKEN when it failed on both sides, else unchanged."""
    if row.verdict is CaseVerdict.FAILED and row.failed_side == "both":
        return explained(row, CaseVerdict.BROKEN, Reason.BROKEN_ON_BOTH)
    return row


def with_failure_texts(
    rows: Iterable[CaseComparison], texts: Mapping[str, str]
) -> list[CaseComparison]:
    """``rows`` with asv's account of each failing benchmark (``texts``: benchmark name ->
    its error, already redacted) after the note of its BROKEN and FAILED rows, so the report
    says what broke rather than where to look."""
    out = []
    for row in rows:
        text = texts.get(row.key.benchmark) if row.verdict in _FAILING else None
        out.append(replace(row, note=f"{row.note}: {text}") if text else row)
    return out
