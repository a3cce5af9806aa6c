"""ci/gate-trials.py: the injected slowdowns are honest code (they parse, wait only where they
say) and a regional trial succeeds only when every case it names lies in its region."""

from __future__ import annotations

import ast
import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def load_trials() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gate_trials", REPO / "ci" / "gate-trials.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TRIALS = load_trials()
ORIGINAL = (REPO / TRIALS.SLOW_FILE).read_text()


def _added(patched: str) -> list[str]:
    """The lines ``patched`` has beyond ORIGINAL (which is itself a slowed file on a trial
    branch, where the gate's parity runs these tests too)."""
    left = Counter(line.strip() for line in ORIGINAL.splitlines())
    added = Counter(line.strip() for line in patched.splitlines()) - left
    return sorted(added.elements())


def test_a_regional_slowdown_waits_only_under_its_condition() -> None:
    patched = TRIALS.slow_patch(ORIGINAL, 1.08, "self.num_envs == 65536")
    ast.parse(patched)
    waits = [line for line in _added(patched) if "< 1.08 * _pg_kernel" in line]
    assert waits == ["while (self.num_envs == 65536) and _pg_time.perf_counter() - _pg_t0 "
                     "< 1.08 * _pg_kernel:"]  # fmt: skip
    everywhere = TRIALS.slow_patch(ORIGINAL, 1.05)
    ast.parse(everywhere)
    assert "while (True) and" in everywhere


def _case(n: int, threads: int, path: str = "handwritten") -> str:
    return (
        "hot_slice.HotSlice.time_compute(task=g1_walk, profile=sac_default, "
        f"path={path}, num_envs={n}, threads={threads})"
    )


def test_a_regional_trial_must_name_cases_of_its_region_only() -> None:
    def trial(kind: str, code: int, regressed: list[str]) -> dict:
        return {"kind": kind, "exit": code, "regressed": regressed}

    assert TRIALS.success(trial("n65536", 1, [_case(65536, 1), _case(65536, 2)]))
    assert not TRIALS.success(trial("n65536", 1, [_case(65536, 1), _case(2048, 1)]))
    assert not TRIALS.success(trial("n65536", 3, [_case(65536, 1)]))
    assert not TRIALS.success(trial("t2", 1, [_case(8192, 2, path="assembled")]))
    assert TRIALS.success(trial("t2", 1, [_case(8192, 2)]))
