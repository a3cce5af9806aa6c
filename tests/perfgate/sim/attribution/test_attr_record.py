"""perfgate.sim.attribution.record in this process: a compiled kernel's code ranges and
code, and what the measured process is told (or not told) about keeping them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfgate.sim import harness
from perfgate.sim.attribution import keep, record


@pytest.mark.numba
def test_a_compiled_kernel_is_placed_by_its_object_code(tmp_path: Path) -> None:
    """The kernel's entry address lies in its own range (sizes read from the object code
    held after a compile), its wrappers in theirs; its code is written as asm and IR."""
    import numba
    import numpy as np

    @numba.njit
    def attr_probe_kernel(a: np.ndarray) -> float:
        return float(a.sum() * 2.0)

    attr_probe_kernel(np.ones(8))
    ((_, cres),) = attr_probe_kernel.overloads.items()  # a CompileResult
    library: Any = getattr(cres, "library")  # noqa: B009 (not in numba's stubs)
    entry = library.get_pointer_to_function(getattr(cres, "fndesc").llvm_func_name)  # noqa: B009
    ranges = record.kernel_map()
    found = ranges.find(entry)
    assert found is not None and found.label.endswith("attr_probe_kernel") and found.size > 0
    assert found.start == entry
    labels = {r.label for r in ranges.ranges if r.kernel == found.kernel}
    assert f"{found.kernel} (Python wrapper)" in labels
    written = record.write_code(tmp_path / "code")
    assert found.kernel in written


def test_the_profiles_folder_never_reaches_the_measured_process() -> None:
    """Its path's length differs by side and would move the measured process's stack."""
    env = {keep.PROFILES_VARIABLE: "/tmp/run/head", "PATH": "/usr/bin"}
    assert keep.PROFILES_VARIABLE not in harness.child_environment(env)
    assert keep.folder(env) == Path("/tmp/run/head") and keep.folder({}) is None


def test_case_folders_are_named_by_parameters() -> None:
    """The same case has the same folder on both sides, whatever its id in the run."""
    params = ("motion_tracking", "sac_default", "handwritten", 2048)
    assert keep.case_slug(params) == "motion_tracking-sac_default-handwritten-2048"
    assert keep.case_slug(("a/b", 1.5)) == "a_b-1.5"


def test_a_failing_record_costs_the_counts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The measured process still writes every case's status when recording its kernels
    fails; the failure is in the status, for the harness to keep beside the tables."""
    import json
    import sys

    from perfgate.sim import child

    package = tmp_path / "recbench"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sim_rec.py").write_text(
        "class SimRec:\n    @staticmethod\n    def sim_case(n):\n        return lambda: n * 2\n"
    )
    spec = {
        "root_name": "recbench", "root_path": str(package), "module": "recbench.sim_rec",
        "class": "SimRec", "cases": [{"id": "case0000", "params": [3]}], "calls": 1,
        "warmup": 0, "status": str(tmp_path / "status.json"),
        "kernels": str(tmp_path / "kernels.json"), "code": str(tmp_path / "code"),
    }  # fmt: skip
    (tmp_path / "spec.json").write_text(json.dumps(spec))

    def broken(folder: Path) -> list[str]:
        raise RuntimeError("numba internals moved")

    monkeypatch.setattr(record, "write_code", broken)
    try:
        assert child.main([str(tmp_path / "spec.json")]) == 0
    finally:
        sys.modules.pop("recbench.sim_rec", None)
        sys.modules.pop("recbench", None)
    status = json.loads((tmp_path / "status.json").read_text())
    assert status["cases"]["case0000"]["state"] == "ok"
    assert "numba internals moved" in status["record_error"]


@pytest.mark.numba
def test_a_dead_weak_proxy_among_the_live_objects_does_not_stop_the_search() -> None:
    """gc.get_objects() can hold a weak proxy whose object is gone (seen in a full test run):
    asking it its class raises ReferenceError, which must not cost the kernel map."""
    import gc
    import weakref

    import numba

    class Referent:
        pass

    target = Referent()
    holder = [weakref.proxy(target)]
    del target
    gc.collect()
    assert any(type(o) is weakref.ProxyType for o in gc.get_objects())
    numba.njit(lambda x: x + 1)(1)
    assert record._dispatchers(), "the compiled lambda's dispatcher is found"
    del holder
