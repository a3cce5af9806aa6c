"""perfgate.sim.attribution.table: one case's functions table from its calls' dumps."""

from __future__ import annotations

import json

import pytest
from attr_profiles import KERNELS, NP, PY, dump

from perfgate.sim.attribution.kernels import KernelMap
from perfgate.sim.attribution.table import FunctionsTable, build, metric


def test_kernel_blocks_are_one_kernel_and_calls_are_weighted_per_call() -> None:
    """The kernel's two entry blocks are one ``motion_kernel`` (their call between them
    dropped); a call weighted 3 counts three times the other in the mean per call."""
    table = build([dump(1000), dump(2000)], (1, 3), KERNELS)
    assert table.own["motion_kernel"][0] == pytest.approx((1000 + 3 * 2000) / 4)
    assert table.kernels == frozenset({"motion_kernel"})
    assert ("motion_kernel", "motion_kernel") not in table.calls
    assert table.inclusive["Dispatcher_call"][0] == pytest.approx(300 + 1750)
    assert table.objects["motion_kernel"] == "???"
    assert table.objects["Dispatcher_call"].endswith("_dispatcher.so")
    assert metric(table.total(), table.events, "instructions") == pytest.approx(5000 + 300 + 1750)


def test_without_a_kernel_map_jit_code_keeps_its_address() -> None:
    """Code no recorded kernel holds is named by its object and entry address."""
    table = build([dump(1000)], (1,), KernelMap(()))
    assert "???:0x0000000016c44000" in table.own and not table.kernels


def test_inclusive_costs_and_the_table_file() -> None:
    """Inclusive = own + calls out; the table survives its JSON file."""
    table = build([dump(1000, reduce_ir=9000)], (1,), KERNELS)
    assert table.inclusive["ufunc_reduce"][0] == 120 + 80 + 9000
    assert table.calls[("reduce_loop", "FLOAT_pairwise_sum")][0] == 3
    assert (
        table.objects["FLOAT_pairwise_sum"] == NP
        and table.objects["_PyEval_EvalFrameDefault"] == PY
    )
    again = FunctionsTable.from_json(json.loads(json.dumps(table.to_json())))
    assert again == table
    with pytest.raises(ValueError, match="functions table"):
        FunctionsTable.from_json({"events": ["Ir"]})


def test_figures_of_a_cost() -> None:
    """Cycles by the cost model (Ir + 10 L1 misses + 100 LL misses), misses by level."""
    events = ("Ir", "D1mr", "DLmr")
    assert metric((100.0, 3.0, 1.0), events, "cycles") == 100 + 30 + 100
    assert metric((100.0, 3.0, 1.0), events, "l1_misses") == 3
    with pytest.raises(ValueError, match="unknown figure 'seconds'"):
        metric((1.0, 0.0, 0.0), events, "seconds")
