"""What ``perfgate doctor`` says: one line per finding, a problem always with its fix."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Level(enum.Enum):
    """How a finding counts: a problem makes ``perfgate doctor`` exit 1; a note does not
    (something that cannot be verified here, or advice); ok says what was checked."""

    OK = "ok"
    NOTE = "note"
    PROBLEM = "problem"


@dataclass(frozen=True)
class Finding:
    """One line of the doctor's report."""

    level: Level
    what: str
    fix: str = ""

    def line(self) -> str:
        """``problem: <what>; fix: <fix>`` (or ``ok: ...`` / ``note: ...``), one line."""
        text = " ".join(self.what.split())
        if self.level is Level.PROBLEM:
            return f"problem: {text}; fix: {' '.join(self.fix.split())}"
        return f"{self.level.value}: {text}"


def ok(what: str) -> Finding:
    return Finding(Level.OK, what)


def note(what: str) -> Finding:
    return Finding(Level.NOTE, what)


def problem(what: str, fix: str) -> Finding:
    return Finding(Level.PROBLEM, what, fix)
