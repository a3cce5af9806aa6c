"""The per-function data of a real sim run: a toy family with a Numba kernel counted under
callgrind, its kernel named from the measured process's code ranges (the kernel loaded
from its on-disk cache, as the gate's counting runs load it)."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from perfgate.sim import harness
from perfgate.sim.attribution import keep, profile
from perfgate.sim.attribution.kernels import read_map
from perfgate.sim.attribution.table import metric

pytestmark = [pytest.mark.subprocess, pytest.mark.numba]

SUITE = textwrap.dedent(
    """
    import numba
    import numpy as np

    from perfgate.sim.suite import SimBenchmark


    @numba.njit(cache=True)
    def toy_kernel(a):
        total = 0.0
        for i in range(a.shape[0]):
            total += a[i] * a[i]
        return total


    class SimToyKernel(SimBenchmark):
        params = [[20000]]
        param_names = ["n"]
        sim_weights = (1, 3)

        def setup_cache(self):
            return self.measure_cases()

        @staticmethod
        def sim_case(n):
            data = np.arange(n, dtype=np.float64)
            toy_kernel(data)

            def call():
                return toy_kernel(data) + float(data[: n // 4].sum())

            return call
    """
)


def test_a_counted_case_keeps_its_dumps_and_names_its_kernel(tmp_path: Path) -> None:
    """With ``PERFGATE_SIM_PROFILES`` set, the case's dumps, functions table and the kernel
    map are kept; the kernel's loop (2 to 6 instructions per element) is named
    ``toy_kernel`` and holds most of the case's instructions; the own costs add up to the
    counts the figures are made of; NumPy's reduction is named as NumPy names it; the
    kernel's assembly and IR are written by the native pass."""
    package = tmp_path / "toybench"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sim_toy_kernel.py").write_text(SUITE)
    kept = tmp_path / "kept"
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"),
        keep.PROFILES_VARIABLE: str(kept),
    }
    spec = harness.SimSpec(
        "toybench", str(package), "toybench.sim_toy_kernel", "SimToyKernel",
        (harness.SimCase("case0000", (20000,)),), (1, 3), 1,
    )  # fmt: skip
    outcome = harness.measure(spec, env=env, python=sys.executable)
    assert not outcome.failed, outcome.failed
    assert [p.name for p in kept.iterdir()] == ["sim_toy_kernel.SimToyKernel"]
    kept = kept / "sim_toy_kernel.SimToyKernel"  # each family keeps into its own folder
    folder = kept / "cases" / "20000"
    assert sorted(p.name for p in folder.iterdir()) == [
        "callgrind.out.0", "callgrind.out.1", "case.json", "functions.json",
    ]  # fmt: skip
    table = keep.load_table(folder)
    instructions = {k: metric(v, table.events, "instructions") for k, v in table.own.items()}
    assert "toy_kernel" in table.kernels
    assert 2 * 20000 < instructions["toy_kernel"] < 6 * 20000
    assert max(instructions, key=instructions.__getitem__) == "toy_kernel"
    for i in range(2):  # the own costs add up to callgrind's totals line, every event
        dump = profile.parse((folder / f"callgrind.out.{i}").read_text())
        assert dump.totals is not None and dump.trigger == f"case0000.{i}"
    counted = (outcome.events["case0000"][0].ir + 3 * outcome.events["case0000"][1].ir) / 4
    assert sum(instructions.values()) == pytest.approx(counted, rel=0.01)
    assert any("pairwise_sum" in k for k in instructions)
    kernels = read_map((kept / "kernels.json").read_text())
    assert all(r.size > 0 for r in kernels.ranges if r.kernel == "toy_kernel")
    index = json.loads((kept / "code" / "index.json").read_text())
    assert "toy_kernel" in index.values()
    assert "ret" in (kept / "code" / "toy_kernel.s").read_text()
