"""The footprint recorder, inside a measured process: per case, every file whose Python code
ran and every file opened or imported while the case was built and called.

A profile hook (`sys.setprofile`, and `threading.setprofile` for threads started later) sees
each Python call and names its code's file (a module's own code runs as a call when it is
imported); an audit hook sees ``open`` and ``import`` events. Numba kernels run no Python
frame when called: their source files come from the static imports of the files whose code
called them (`perfgate.footprint.imports`). Audit hooks cannot be removed, so one is
installed per process and reports to whichever case is open; what the process read before
the first case (the suite's imports) belongs to every case (`Recorder.shared`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any


class Recorder:
    """Collects files for the open case (`case`), and before the first one (`shared`)."""

    def __init__(self) -> None:
        self.shared: set[str] = set()
        self._open: set[str] | None = None
        self._lock = threading.Lock()

    def _add(self, path: str) -> None:
        with self._lock:
            (self.shared if self._open is None else self._open).add(path)

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook: files opened, modules imported (with their file)."""
        if event == "open" and args and isinstance(args[0], str):
            self._add(args[0])
        elif event == "import" and len(args) > 1 and isinstance(args[1], str):
            self._add(args[1])

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        """The profile hook: the file of each Python call."""
        if event == "call":
            self._add(frame.f_code.co_filename)

    def install(self) -> None:
        """Hooks on for the rest of the process (the audit hook cannot be removed)."""
        sys.addaudithook(self.audit)
        sys.setprofile(self.profile)
        threading.setprofile(self.profile)

    @contextmanager
    def case(self) -> Iterator[set[str]]:
        """Collect the files of one case (its build and its calls) into the yielded set."""
        files: set[str] = set()
        with self._lock:
            self._open = files
        try:
            yield files
        finally:
            with self._lock:
                self._open = None
