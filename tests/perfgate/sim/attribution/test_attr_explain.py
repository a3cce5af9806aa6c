"""`perfgate explain` end to end on a throwaway project: two commits exported, one sim case
counted under callgrind on each side, the added work named and the kernel unchanged."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from git_project import run_git

from perfgate.commands import explain

pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.numba]

KERNEL = textwrap.dedent(
    """
    import numba


    @numba.njit(cache=True)
    def toy_kernel(a):
        total = 0.0
        for i in range(a.shape[0]):
            total += a[i] * a[i]
        return total
    """
)
FAMILY = textwrap.dedent(
    """
    import numpy as np

    from perfgate.sim.suite import SimBenchmark


    class SimToy(SimBenchmark):
        params = [[20000]]
        param_names = ["n"]
        sim_weights = (1, 3)

        def setup_cache(self):
            return self.measure_cases()

        @staticmethod
        def sim_case(n):
            from toypkg.work import step

            data = np.arange(n, dtype=np.float64)
            step(data)
            return lambda: step(data)
    """
)
STEP = "from toypkg.kern import toy_kernel\n\n\ndef step(data):\n    return toy_kernel(data){}\n"


def _project(root: Path) -> tuple[str, str]:
    """A repository whose head also sums a quarter of the data after the kernel."""
    (root / "src" / "toypkg").mkdir(parents=True)
    (root / "benchmarks").mkdir()
    (root / "src" / "toypkg" / "__init__.py").write_text("")
    (root / "src" / "toypkg" / "kern.py").write_text(KERNEL)
    (root / "src" / "toypkg" / "work.py").write_text(STEP.format(""))
    (root / "benchmarks" / "__init__.py").write_text("")
    (root / "benchmarks" / "sim_toy.py").write_text(FAMILY)
    (root / "asv.conf.json").write_text(json.dumps({"version": 1, "project": "toy"}))
    (root / "pyproject.toml").write_text('[tool.perfgate]\n[tool.perfgate.sim]\ntarget = "host"\n')
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", ".")
    run_git(root, "commit", "-qm", "base")
    base = run_git(root, "rev-parse", "HEAD").strip()
    (root / "src" / "toypkg" / "work.py").write_text(STEP.format(" + float(data[::4].sum())"))
    run_git(root, "commit", "-qam", "head: a reduction after the kernel")
    return base, run_git(root, "rev-parse", "HEAD").strip()


def test_explain_names_the_added_reduction_and_the_kernel_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 0; the sentence names NumPy's pairwise sum first, entered from Python by the
    reduction, and ``toy_kernel`` unchanged, its machine code too; the files are written."""
    root = tmp_path / "repo"
    base, head = _project(root)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))
    printed: list[str] = []
    out = tmp_path / "out"
    case = "sim_toy.SimToy.track_instructions(20000)"
    assert explain.run(case, base, head, str(root), str(out), write=printed.append) == 0
    text = printed[0]
    where = next(line for line in text.splitlines() if line.startswith("**Where it moved**"))
    assert "pairwise_sum" in where.split(";")[0] and "`toy_kernel` unchanged" in where
    assert "- `toy_kernel`: machine code unchanged" in text
    assert (out / "explain.md").read_text() == text
    assert (out / "flame.svg").read_text().startswith("<svg")
    assert (out / "base" / "sim_toy.SimToy" / "cases" / "20000" / "callgrind.out.0").is_file()
    assert (out / "head" / "sim_toy.SimToy" / "kernels.json").is_file()
