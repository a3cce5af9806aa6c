"""Regenerate tests/perfgate/data/asv066/ with asv 0.6.6's own writer (run once, by hand).

    .venv/bin/python tests/perfgate/data/make_asv066_fixture.py

The files are checked in so that perfgate's reader is tested against exactly what asv writes
(columns, trailing-None trimming, truncated floats, null = failure), not against our own
factory. Fixed seed; samples recorded as with ``asv run --record-samples``.
"""

from __future__ import annotations

import datetime
import itertools
import shutil
from pathlib import Path

import numpy as np
from asv import util
from asv.results import Results
from asv.runner import BenchmarkResult

ROOT = Path(__file__).parent / "asv066"
MACHINE = {
    "machine": "fixture-box",
    "os": "Linux",
    "arch": "x86_64",
    "cpu": "Zen 4",
    "num_cpu": "2",
    "ram": "8GB",
}
BENCH = {
    "name": "hot_slice.HotSlice.time_compute",
    "params": [["'handwritten'", "'assembled'"], ["8", "16"], ["1", "2"]],
    "param_names": ["path", "num_envs", "threads"],
    "version": "4c1f0e7a",
    "type": "time",
    "unit": "seconds",
}
TRACK = {
    "name": "compile_time.CompileTime.track_first_call",
    "params": [],
    "param_names": [],
    "version": "77aa",
    "type": "track",
    "unit": "seconds",
}
COMMITS = {
    "base": "0123456789abcdef0123456789abcdef01234567",
    "head": "fedcba9876543210fedcba9876543210fedcba98",
}


def _samples(rng: np.random.Generator, side: str) -> list[list[float] | None]:
    out: list[list[float] | None] = []
    for path, n, threads in itertools.product(*BENCH["params"]):
        if side == "head" and path == "'assembled'" and n == "16" and threads == "2":
            out.append(None)  # failed at head
            continue
        t = 1e-4 * int(n) / int(threads) * (1.3 if path == "'assembled'" else 1.0)
        out.append([float(x) for x in t * np.exp(rng.normal(0, 0.02, 10))])
    return out


def main() -> None:
    shutil.rmtree(ROOT, ignore_errors=True)
    (ROOT / "fixture-box").mkdir(parents=True)
    util.write_json(str(ROOT / "fixture-box" / "machine.json"), MACHINE, api_version=1)
    benchmarks = {b["name"]: b for b in (BENCH, TRACK)}
    util.write_json(str(ROOT / "benchmarks.json"), benchmarks, api_version=2)
    rng = np.random.default_rng(66)
    started = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.UTC)
    for side, sha in COMMITS.items():
        res = Results(
            {**MACHINE, "python": "3.11"}, {}, sha, 1764300000000, "3.11", "existing-py_3.11", {}
        )
        samples = _samples(rng, side)
        values = [None if s is None else float(np.median(s)) for s in samples]
        numbers = [None if s is None else 1 for s in samples]
        res.add_result(
            BENCH,
            BenchmarkResult(values, samples, numbers, 0, "", None),
            started_at=started,
            duration=4.2,
            record_samples=True,
        )
        compile_s = 2.0 if side == "base" else 2.6
        res.add_result(
            TRACK,
            BenchmarkResult([compile_s], [None], [None], 0, "", None),
            started_at=started,
            duration=3.0,
            record_samples=True,
        )
        res.save(str(ROOT))


if __name__ == "__main__":
    main()
