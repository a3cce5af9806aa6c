"""The probe's output: one markdown table, ``item | what was done | expected | observed |
ok``, one line per row, pipes escaped; a row that could not be run shows NOT RUN."""

from __future__ import annotations

from collections.abc import Sequence

from .harness import Row


def cell(text: str) -> str:
    """One table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def table(rows: Sequence[Row]) -> str:
    """The markdown table of ``rows``."""
    head = ["| item | what was done | expected | observed | ok |", "|---|---|---|---|---|"]
    verdict = {True: "ok", False: "FAIL", None: "NOT RUN"}
    body = [
        f"| {r.item} | {' | '.join(cell(t) for t in (r.done, r.expected, r.observed))} | "
        f"{verdict[r.ok]} |"
        for r in rows
    ]
    return "\n".join(head + body)
