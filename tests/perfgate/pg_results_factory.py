"""Build asv 0.6.6-style result trees for perfgate tests (fixed seeds, no asv run needed).

The layout and columns follow asv's `Results.save`: ``benchmarks.json`` at the root,
``<machine>/machine.json`` and ``<machine>/<hash8>-<env>.json`` with ``result_columns``.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

COLUMNS = [
    "result",
    "params",
    "version",
    "started_at",
    "duration",
    "stats_ci_99_a",
    "stats_ci_99_b",
    "stats_q_25",
    "stats_q_75",
    "stats_number",
    "stats_repeat",
    "samples",
    "profile",
]
MACHINE_INFO = {
    "machine": "perf-runner",
    "os": "Linux 6.8",
    "arch": "x86_64",
    "cpu": "AMD EPYC 9654",
    "num_cpu": "2",
    "ram": "8GB",
}
BASE_SHA = "1111111122222222333333334444444455555555"
HEAD_SHA = "aaaaaaaabbbbbbbbccccccccddddddddeeeeeeee"


@dataclass(frozen=True)
class Bench:
    """One asv benchmark: name and parameter grid (values as Python objects)."""

    name: str
    param_names: tuple[str, ...] = ()
    params: tuple[tuple[object, ...], ...] = ()
    unit: str = "seconds"
    kind: str = "time"
    version: str = "0f1e2d3c"

    def combos(self) -> list[tuple[object, ...]]:
        """Parameter combinations in asv order (last parameter fastest)."""
        return list(itertools.product(*self.params))


def write_benchmarks_json(root: Path, benches: Sequence[Bench]) -> None:
    """``benchmarks.json`` with params stored as reprs, as asv does."""
    data: dict[str, object] = {"version": 2}
    for b in benches:
        data[b.name] = {
            "name": b.name,
            "param_names": list(b.param_names),
            "params": [[repr(v) for v in p] for p in b.params],
            "type": b.kind,
            "unit": b.unit,
            "version": b.version,
        }
    root.mkdir(parents=True, exist_ok=True)
    (root / "benchmarks.json").write_text(json.dumps(data, indent=1))


def write_machine_json(root: Path, info: Mapping[str, str] = MACHINE_INFO) -> None:
    """``<machine>/machine.json`` (asv machine api version 1)."""
    folder = root / info["machine"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "machine.json").write_text(json.dumps({**info, "version": 1}))


def _row(bench: Bench, samples: Sequence[Sequence[float] | None]) -> list[object]:
    results, ci_a, ci_b, q25, q75, repeat, raw = [], [], [], [], [], [], []
    for s in samples:
        if s is None:
            for col in (results, ci_a, ci_b, q25, q75, repeat, raw):
                col.append(None)
            continue
        arr = np.asarray(s, dtype=float)
        finite = arr[np.isfinite(arr)] if np.isfinite(arr).any() else arr
        results.append(float(np.median(finite)))
        ci_a.append(float(np.min(finite)))
        ci_b.append(float(np.max(finite)))
        q25.append(float(np.percentile(finite, 25)))
        q75.append(float(np.percentile(finite, 75)))
        repeat.append(len(s))
        raw.append([float(x) for x in s])
    all_failed = all(r is None for r in results)
    return [
        None if all_failed else results,
        [[repr(v) for v in p] for p in bench.params],
        bench.version,
        1764400000000,
        12.5,
        None if all_failed else ci_a,
        None if all_failed else ci_b,
        None if all_failed else q25,
        None if all_failed else q75,
        None if all_failed else [1] * len(samples),
        None if all_failed else repeat,
        None if all_failed else raw,
    ]


def write_result(
    root: Path,
    commit: str,
    benches: Sequence[Bench],
    samples: Mapping[str, Sequence[Sequence[float] | None]],
    *,
    env: str = "existing-py_3.11",
    info: Mapping[str, str] = MACHINE_INFO,
) -> Path:
    """One result file; ``samples[name]`` holds one sample list (or None = failed) per combo."""
    results = {b.name: _row(b, samples[b.name]) for b in benches if b.name in samples}
    data = {
        "commit_hash": commit,
        "env_name": env,
        "date": 1764300000000,
        "params": {**info, "python": "3.11"},
        "python": "3.11",
        "requirements": {},
        "env_vars": {},
        "result_columns": COLUMNS,
        "results": results,
        "durations": {"<build>": 3.5},
        "version": 2,
    }
    path = root / info["machine"] / f"{commit[:8]}-{env}.json"
    path.write_text(json.dumps(data))
    return path


def noisy(rng: np.random.Generator, median: float, n: int = 12, cv: float = 0.02) -> list[float]:
    """*n* log-normal samples around *median* with relative spread *cv*."""
    return [float(x) for x in median * np.exp(rng.normal(0.0, cv, n))]


def build_tree(
    root: Path,
    benches: Sequence[Bench],
    medians: Callable[[str, str, tuple[object, ...]], float | None],
    *,
    seed: int = 0,
    n: int = 12,
    cv: float = 0.02,
    commits: Sequence[str] = (BASE_SHA, HEAD_SHA),
    absent: Callable[[str, str, tuple[object, ...]], bool] | None = None,
) -> None:
    """A whole results tree; ``medians(side, bench, combo)`` gives the true median or None
    (failed). side is "base" or "head"; NaN means skipped. ``absent(side, bench, combo)``
    marks cases skipped (NaN) after drawing their samples, so the other cases keep theirs."""
    write_benchmarks_json(root, benches)
    write_machine_json(root)
    rng = np.random.default_rng(seed)
    for side, commit in zip(("base", "head"), commits, strict=True):
        samples: dict[str, list[list[float] | None]] = {}
        for b in benches:
            per: list[list[float] | None] = []
            for combo in b.combos():
                m = medians(side, b.name, combo)
                if m is None:
                    per.append(None)
                elif math.isnan(m):
                    per.append([math.nan])
                else:
                    per.append(noisy(rng, m, n, cv))
                if absent is not None and absent(side, b.name, combo):
                    per[-1] = [math.nan]
            samples[b.name] = per
        write_result(root, commit, benches, samples)


# --------------------------------------------------------------------------------------------
# The upstream review (PR #929), shaped like the seed's tables
# --------------------------------------------------------------------------------------------

SIZES = (16384, 32768, 65536, 131072, 262144)
# 10.13.1.125: G1 hot slice throughput in M env/s, handwritten (old) vs assembled (new).
G1_THROUGHPUT = {
    16384: (73.14, 31.78),
    32768: (85.20, 34.36),
    65536: (80.30, 35.43),
    131072: (52.85, 35.30),
    262144: (36.96, 31.24),
}
# 10.13.1.125: Motion full update_state in ms, handwritten (old) vs assembled (new).
MOTION_MS = {
    16384: (0.896, 0.841),
    32768: (3.005, 1.673),
    65536: (7.035, 3.883),
    131072: (13.047, 8.911),
    262144: (29.572, 18.771),
}
HOT = Bench(
    "hot_slice.HotSlice.time_compute",
    ("task", "path", "num_envs"),
    (("g1_walk", "motion_tracking"), ("numpy", "handwritten", "assembled"), SIZES),
)


def upstream_median(side: str, name: str, combo: tuple[object, ...]) -> float:
    """Seconds per call for one (task, path, num_envs): same at base and head."""
    task, path, n = combo
    assert isinstance(n, int)
    if task == "g1_walk":
        old_tp, new_tp = G1_THROUGHPUT[n]
        hand, assembled = n / (old_tp * 1e6), n / (new_tp * 1e6)
        numpy_t = assembled * 11.0  # the seed: assembled ~10-12x faster than NumPy
    else:
        hand_ms, assembled_ms = MOTION_MS[n]
        hand, assembled = hand_ms * 1e-3, assembled_ms * 1e-3
        numpy_t = assembled * 5.0
    return {"numpy": numpy_t, "handwritten": hand, "assembled": assembled}[str(path)]


def new_at_head_in_upstream(side: str, name: str, combo: tuple[object, ...]) -> bool:
    """The pull request added the assembled path: at base it has no result."""
    return side == "base" and combo[1] == "assembled"
