"""What asv said about the benchmarks that failed in a run, put into its rows (I/O edge).

Each asv run of a gate leaves its output tail in ``asv-output.txt`` in its folder of the
run directory (`perfgate.asv.side_run`); the rows of the cases that failed (or broke on
both sides) get asv's error from there (`perfgate.formats.asv_output`), redacted, so the
report names the error instead of a path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from perfgate.formats import asv_output
from perfgate.gate.compare import Analysis
from perfgate.secrets import Redactor
from perfgate.wall.compare.broken import with_failure_texts


def explain_failures(analysis: Analysis, run_dirs: Iterable[Path]) -> Analysis:
    """``analysis`` with asv's error text after the note of each failing head vs base row
    (the asv runs saved in the folders of ``run_dirs``; secrets of this process's
    environment redacted)."""
    if not any(r.failed_side for r in analysis.rows):
        return analysis
    folders = [f for d in run_dirs for f in asv_output.run_folders(d)]
    names = {r.key.benchmark for r in analysis.rows}
    texts = asv_output.read_failure_texts(folders, Redactor.from_env(os.environ), names)
    return replace(analysis, rows=with_failure_texts(analysis.rows, texts))
