"""ci/sim-trials.py: the injected work is honest code (real arithmetic in the hand-written
path's compute, only where the trial says) and a trial passes only when it names exactly the
cases it slowed."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sim_trials", REPO / "ci" / "sim-trials.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SIM = _load()
ORIGINAL = (REPO / SIM.HANDWRITTEN).read_text()


def test_the_extra_work_is_arithmetic_after_the_kernel_under_its_condition() -> None:
    patched = SIM.work_patch(ORIGINAL, 2 / 1.3, "self.num_envs == 65536")
    ast.parse(patched)
    added = [ln.strip() for ln in patched.splitlines() if ln not in ORIGINAL.splitlines()]
    assert "if self.num_envs == 65536:  # trial: extra arithmetic" in added
    assert "np.sin(self._pg_extra, out=self._pg_extra)" in added
    assert not any("sleep" in ln or "perf_counter" in ln for ln in added)


def _result(exit_code: int, named: list[str]) -> dict[str, object]:
    labels = [f"task={t}, profile=sac_default, path={p}, num_envs={n}"
              for t in ("g1_walk", "motion_tracking") for p in ("numpy", "handwritten")
              for n in (2048, 65536)]  # fmt: skip
    return {"exit": exit_code, "regressed": named, "ratios": dict.fromkeys(labels, 1.0)}


def test_a_trial_must_name_exactly_its_slowed_cases() -> None:
    g1 = "task=g1_walk, profile=sac_default, path=handwritten, num_envs="
    assert SIM.check("work1", _result(1, [g1 + "2048", g1 + "65536"])) == []
    assert SIM.check("work1", _result(1, [g1 + "2048"])) == ["named 1 of the 2 slowed cases"]
    assert SIM.check("work2", _result(1, [g1 + "65536"])) == []
    assert "outside N=65536" in " ".join(SIM.check("work2", _result(1, [g1 + "2048"])))
    other = "task=motion_tracking, profile=sac_default, path=numpy, num_envs=2048"
    assert "did not slow" in " ".join(SIM.check("work1", _result(1, [other])))
    assert SIM.check("aa", _result(0, [])) == [] and SIM.check("readme", _result(1, []))


KERNEL_SOURCE = (REPO / SIM.KERNEL).read_text()


def test_the_kernel_trials_change_the_kernel_itself() -> None:
    """``kernel`` adds real sines inside the ``prange`` lane loop; ``alloc`` a zeroed
    temporary each call, read after the loop; both parse, neither waits."""
    for kind, wanted in (
        ("kernel", "extra += math.sin(lv[3 * i] + k)"),
        ("alloc", "tmp = np.zeros(32 * n)  # trial: a temporary each call"),
    ):
        patched = SIM.kernel_patch(KERNEL_SOURCE, kind)
        ast.parse(patched)
        added = [ln.strip() for ln in patched.splitlines() if ln not in KERNEL_SOURCE.splitlines()]
        assert wanted in added
        assert not any("sleep" in ln or "perf_counter" in ln for ln in added)


def test_a_kernel_trial_must_name_the_kernel_first() -> None:
    """The first screen's line of a kernel trial names the kernel; of work1, not."""
    g1 = "task=g1_walk, profile=sac_default, path=handwritten, num_envs=2048"
    named = {**_result(1, [g1]), "ratios": {g1: 1.02}}
    kernel = f"{g1}: **g1\\_walk\\_kernel** (Numba kernel) +2.4M cycles"  # as in report.md
    sine = f"{g1}: **\\_\\_sin\\_fma** +25.3k cycles"
    assert SIM.check("kernel", {**named, "where": [kernel]}) == []
    assert SIM.check("alloc", {**named, "where": [sine]}) == [f"first named '__sin_fma': {sine}"]
    assert SIM.check("work1", {**named, "where": [sine]}) == []
    assert SIM.check("work1", {**named, "where": [kernel]}) != []
