"""perfgate.sim.attribution.diff: where a case's change went, largest first."""

from __future__ import annotations

import pytest
from attr_profiles import KERNELS, dump

from perfgate.sim.attribution.diff import attribute, compact
from perfgate.sim.attribution.table import FunctionsTable, build


def test_an_a_a_comparison_lists_nothing() -> None:
    """The same counts on both sides: nothing moved, and the sentence says so."""
    base = build([dump(10_000_000)], (1,), KERNELS)
    head = build([dump(10_000_000, python_ir=5100)], (1,), KERNELS)  # 100 Ir: within 0.1%
    found = attribute(base, head)
    assert found.moved == ()
    assert found.sentence() == ("+0.00% instructions: no function moved beyond 0.10% of the total")


def test_a_reduction_added_after_the_kernel_is_named_first_and_the_kernel_unchanged() -> None:
    """The head adds ``add.reduce`` (124k instructions) after an unchanged kernel: the
    reduction's loop is named first, with the caller whose calls moved and the operation
    Python called; the kernel is named as unchanged."""
    base = build([dump(10_000_000)], (1,), KERNELS)
    head = build([dump(10_000_000, reduce_ir=124_000)], (1,), KERNELS)
    found = attribute(base, head)
    assert [m.label for m in found.moved] == ["FLOAT_pairwise_sum"]
    first = found.moved[0]
    assert (first.caller, first.entry, first.kernel) == ("reduce_loop", "ufunc_reduce", False)
    assert found.unchanged_kernels == ("motion_kernel",)
    assert found.sentence() == (
        "+1.24% instructions: +124k in `FLOAT_pairwise_sum` called from `reduce_loop` "
        "(from Python via `ufunc_reduce`); `motion_kernel` unchanged"
    )


def test_work_added_in_the_kernel_names_the_kernel_largest_first() -> None:
    """A kernel that grew by 2% is named first, before a smaller change elsewhere, with the
    Python-facing function that called it."""
    base = build([dump(10_000_000)], (1,), KERNELS)
    head = build([dump(10_200_000, reduce_ir=30_000)], (1,), KERNELS)
    found = attribute(base, head)
    assert [m.label for m in found.moved] == ["motion_kernel", "FLOAT_pairwise_sum"]
    assert found.moved[0].kernel and found.moved[0].caller == "Dispatcher_call"
    assert found.unchanged_kernels == ()
    assert found.sentence(limit=1).endswith("1 more")


def test_cycles_count_the_misses_and_a_faster_head_is_named_too() -> None:
    """The figure is chosen; a function that got cheaper is listed with its negative change."""
    base = build([dump(10_000_000, reduce_ir=124_000)], (1,), KERNELS)
    head = build([dump(10_000_000)], (1,), KERNELS)
    found = attribute(base, head, figure="cycles")
    assert found.moved[0].label == "FLOAT_pairwise_sum"
    assert found.moved[0].delta == pytest.approx(-(124_000 + 10 * 40))  # 40 L1 data-read misses
    with pytest.raises(ValueError, match="different events"):
        attribute(base, FunctionsTable(events=("Ir",)))


def test_what_a_kernel_calls_is_charged_to_the_kernel_named_first() -> None:
    """The head adds sines inside the kernel's loop (libm's ``__sin_fma`` through Numba's
    ``numba_sin``): the sine is the largest single function, but the kernel whose code
    called it is named first, with the sine as its part; the kernel is not "unchanged"."""
    base = build([dump(10_000_000)], (1,), KERNELS)
    head = build([dump(10_030_000, sin_ir=400_000)], (1,), KERNELS)
    found = attribute(base, head)
    assert found.moved[0].label == "__sin_fma"
    assert {m.label: m.charged_to for m in found.moved} == {
        "__sin_fma": "motion_kernel",
        "motion_kernel": "motion_kernel",
    }
    (charge,) = found.charges
    assert (charge.label, charge.kernel) == ("motion_kernel", True)
    assert charge.delta == pytest.approx(400_000 + 30_000)  # the kernel's two blocks: +30k
    assert found.unchanged_kernels == ()
    assert found.sentence() == (
        "+4.30% instructions: +430k in `motion_kernel` "
        "(Numba kernel: +400k in `__sin_fma`, +30.0k in `motion_kernel`)"
    )


def test_work_python_adds_around_a_kernel_is_charged_to_no_kernel() -> None:
    """A reduction Python calls after the kernel stays its own charge, not the kernel's."""
    base = build([dump(10_000_000)], (1,), KERNELS)
    head = build([dump(10_000_000, reduce_ir=124_000)], (1,), KERNELS)
    (charge,) = attribute(base, head).charges
    assert (charge.label, charge.kernel) == ("FLOAT_pairwise_sum", False)
    assert charge.parts[0].charged_to is None


@pytest.mark.parametrize(
    ("value", "text"),
    [(124_000, "+124k"), (-1_530_000, "-1.5M"), (950, "+950"), (12_345, "+12.3k")],
)
def test_counts_are_written_short(value: float, text: str) -> None:
    """Three significant digits or fewer, with the sign."""
    assert compact(value) == text


def _parts(loop: float) -> FunctionsTable:
    """A parallel kernel's functions: its own, its gufunc wrapper and parfor loop."""
    own: dict[str, tuple[float, ...]] = {
        "motion_kernel": (3_000.0,),
        "motion_kernel (gufunc wrapper)": (1_000.0,),
        "motion_kernel (parfor loop)": (loop,),
        "NRT_decref (Numba runtime)": (10.0,),
        "main": (5_000.0,),
    }
    return FunctionsTable(("Ir",), own, own, {}, frozenset(own) - {"main"})


def test_a_kernel_is_unchanged_only_when_none_of_its_functions_moved() -> None:
    """Its parts are named once, by the kernel; a kernel whose parfor loop moved is not."""
    same = attribute(_parts(1_000_000.0), _parts(1_000_000.0))
    assert same.unchanged_kernels == ("motion_kernel",)
    grown = attribute(_parts(1_000_000.0), _parts(1_020_000.0))
    assert [m.label for m in grown.moved] == ["motion_kernel (parfor loop)"]
    assert grown.unchanged_kernels == ()
