"""What a running parity command is doing, for the gate's progress lines (pure parsing).

Two sources, both optional:

* pytest's own progress output: ``collected N items`` or pytest-xdist's ``N workers
  [M items]``, then lines of result characters (``..F.s [ 41%]``), counted as they come;
* the events a test suite writes to the file named by ``PERFGATE_PROGRESS_FILE`` (one JSON
  object a line: ``{"worker": "gw0", "event": "compiling", "what": "<kernel>"}``, then
  ``{"worker": "gw0", "event": "compiled", "what": "<kernel>", "seconds": 12.5}``), so that
  a first run can say which kernel it is compiling. A line that is not such an object is
  ignored: the file is the measured code's, shown, never trusted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

#: The variable naming the events file given to the parity command.
PROGRESS_FILE_ENV = "PERFGATE_PROGRESS_FILE"
_TOTAL = re.compile(r"(?:collected (\d+) items?|\d+ workers? \[(\d+) items?\])")
_RESULTS = re.compile(r"^([.sSFEXxp]+)(?:\s+\[\s*\d+%\])?\s*$")
#: Longest kernel name shown (a name is the measured code's text).
MAX_NAME = 80


@dataclass
class PytestCount:
    """Tests done (and the total, once pytest said it) from pytest's output so far."""

    total: int | None = None
    done: int = 0
    failed: int = 0
    _partial: str = ""

    def feed(self, text: str) -> None:
        """Count the results in ``text`` (the output's next part)."""
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line.strip())

    def _line(self, line: str) -> None:
        found = _TOTAL.search(line)
        if found:
            self.total = int(found.group(1) or found.group(2))
            return
        results = _RESULTS.match(line)
        if results:
            self.done += len(results.group(1))
            self.failed += sum(results.group(1).count(c) for c in "FE")

    @property
    def text(self) -> str:
        """``41/97 tests`` (``, 2 failed``), or what is known before the first result."""
        shown = self.done + len(m.group(1)) if (m := _RESULTS.match(self._partial)) else self.done
        if self.total is None and not shown:
            return "starting (collecting tests)"
        text = f"{shown}/{self.total} tests" if self.total is not None else f"{shown} tests"
        return text + (f", {self.failed} failed" if self.failed else "")


@dataclass
class Compiles:
    """Kernels being compiled now, by worker, from the events file."""

    running: dict[str, str] = field(default_factory=dict)
    finished: int = 0

    def feed(self, text: str) -> None:
        """Apply the events of ``text`` (whole lines of the file)."""
        for line in text.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            worker = str(event.get("worker", ""))
            what = re.sub(r"[\x00-\x1f\x7f]+", " ", str(event.get("what", "")))[:MAX_NAME]
            if event.get("event") == "compiling":
                self.running[worker] = what
            elif event.get("event") == "compiled":
                self.running.pop(worker, None)
                self.finished += 1

    @property
    def text(self) -> str:
        """``compiling a, b (first run: ...)`` or empty."""
        if not self.running:
            return ""
        names = ", ".join(sorted(set(self.running.values())))
        return f"compiling {names} (first run: kernels are compiled once, then cached)"


def status(count: PytestCount, compiles: Compiles) -> str:
    """The parity stage's status line: tests done, then what is compiling."""
    return ", ".join(t for t in (count.text, compiles.text) if t)
