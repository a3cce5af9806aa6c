#!/usr/bin/env python3
"""Issue 37's fourteen holes, each reproduced again end to end: the probe's entry point.

The probe itself is the package ``ci/probe_holes/`` (its docstring says what each item does);
this script puts ``ci/`` and the tests' helpers (``tests/perfgate/github``, ``tests/perfgate``:
the fake GitHub API, stored-results factory) on ``sys.path`` and runs its ``main``. Exit 0 only
when every row is ok, 1 otherwise (docs/security.md).

    .venv/bin/python ci/probe-holes.py [--work DIR] [--only 1,5,12]
"""

from __future__ import annotations

import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(SOURCE / "tests" / "perfgate" / "github"),
    str(SOURCE / "tests" / "perfgate"),
    str(SOURCE / "ci"),
]
from probe_holes.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
