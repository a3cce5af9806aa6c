"""perfgate.sim.attribution.findings: the gate's sim cases beyond their threshold,
attributed from the two sides' kept functions tables and kernel code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from attr_kept import ASM_SCALAR, ASM_VECTOR, CASE, FAMILY, IR, write_side
from attr_profiles import KERNELS, dump

from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey
from perfgate.sim.attribution.findings import State, attribute_rows, attribute_twins, slug_of
from perfgate.sim.attribution.sides import KeptSide, load_side
from perfgate.sim.attribution.table import build
from perfgate.sim.face import Simulator
from perfgate.sim.phase import SimMeasured
from perfgate.verdict import CaseVerdict

KEY = CaseKey(f"{FAMILY}.track_cycles", (("task", "g1"), ("path", "assembled")))


def _row(verdict: CaseVerdict, key: CaseKey = KEY, instrument: str = "sim") -> CaseComparison:
    return CaseComparison(
        key, verdict, 0.01, True, instrument=instrument, figure="instructions", ratio=1.02
    )


def _sides(
    tmp_path: Path, base_ir: tuple[int, int], head_ir: tuple[int, int], head_asm: str = ASM_VECTOR
) -> tuple[KeptSide, KeptSide]:
    """Each side kept: the kernel's instructions and the reduction's, and its code."""
    out = []
    for name, (kernel, reduce), asm in (
        ("base", base_ir, ASM_VECTOR),
        ("head", head_ir, head_asm),
    ):
        table = build([dump(kernel, reduce_ir=reduce)], (1,), KERNELS)
        folder = write_side(tmp_path / name, {CASE: table}, {"motion_kernel": (asm, IR)})
        out.append(load_side(folder))
    return out[0], out[1]


def test_the_case_folder_is_named_from_the_rows_parameter_values() -> None:
    assert slug_of(KEY) == CASE


def test_an_a_a_run_has_no_attribution(tmp_path: Path) -> None:
    """No row beyond its threshold: the list is empty (nothing is attributed by default)."""
    base, head = _sides(tmp_path, (10_000_000, 0), (10_000_000, 0))
    rows = [_row(CaseVerdict.UNCHANGED), _row(CaseVerdict.UNCHANGED, instrument="wall")]
    assert attribute_rows(rows, base, head, 0.001) == []


def test_identical_tables_of_a_row_beyond_its_threshold_move_nothing(tmp_path: Path) -> None:
    base, head = _sides(tmp_path, (10_000_000, 0), (10_000_000, 0))
    (found,) = attribute_rows([_row(CaseVerdict.REGRESSED)], base, head, 0.001)
    assert found.state is State.NOTHING_MOVED and found.first is None
    assert found.attribution is not None and found.attribution.moved == ()


def test_work_added_around_the_kernel_names_that_function_first(tmp_path: Path) -> None:
    """A reduction after an unchanged kernel: the reduction's loop first, the kernel named
    unchanged, its machine code unchanged."""
    base, head = _sides(tmp_path, (10_000_000, 0), (10_000_000, 124_000))
    (found,) = attribute_rows([_row(CaseVerdict.REGRESSED)], base, head, 0.001)
    assert found.state is State.NAMED
    assert found.first is not None and found.first.label == "FLOAT_pairwise_sum"
    assert found.attribution is not None
    assert found.attribution.unchanged_kernels == ("motion_kernel",)
    assert [(c.kernel, c.changed) for c in found.code] == [("motion_kernel", False)]


def test_a_kernel_change_names_the_kernel_and_its_code_difference(tmp_path: Path) -> None:
    """The kernel grew by 3% and its code went scalar and allocating: the kernel is named
    first, and its code summary shows the difference."""
    base, head = _sides(tmp_path, (10_000_000, 0), (10_300_000, 0), head_asm=ASM_SCALAR)
    (found,) = attribute_rows([_row(CaseVerdict.REGRESSED)], base, head, 0.001)
    assert found.first is not None and found.first.kernel
    assert found.first.label.startswith("motion_kernel")
    (change,) = found.changed_code
    assert change.kernel == "motion_kernel"
    assert "packed 1 -> 0" in change.what() and "calls 0 -> 1" in change.what()
    names = [name for name, _text in found.diffs]
    assert names[0] == "motion_kernel.s.diff" and "+" in found.diffs[0][1]
    assert found.flame.startswith("<svg") and "motion_kernel" in found.flame


def test_a_side_without_the_case_is_missing_never_unchanged(tmp_path: Path) -> None:
    base, _head = _sides(tmp_path, (10_000_000, 0), (10_000_000, 0))
    (found,) = attribute_rows([_row(CaseVerdict.REGRESSED)], base, KeptSide(), 0.001)
    assert found.state is State.MISSING and found.attribution is None
    assert found.missing == "no functions table kept at head"


@pytest.mark.parametrize("verdict", [CaseVerdict.IMPROVED, CaseVerdict.REGRESSED])
def test_rows_beyond_the_threshold_either_way_are_attributed(
    tmp_path: Path, verdict: CaseVerdict
) -> None:
    base, head = _sides(tmp_path, (10_000_000, 0), (10_000_000, 124_000))
    rows = [_row(verdict), _row(CaseVerdict.REGRESSED, instrument="wall")]
    assert [f.verdict for f in attribute_rows(rows, base, head, 0.001)] == [verdict]


WALL = CaseKey("hot.T.time_compute", (("task", "g1"), ("path", "assembled"), ("threads", "1")))


def test_a_wall_clock_regression_is_attributed_from_its_sim_twins_counts(
    tmp_path: Path,
) -> None:
    """The wall clock found the case slower, its sim twin stayed within its threshold (the
    reduction added 0.5%): the twin's tables still say where the counts moved, marked as
    the wall case's, with its verdict; a wall row not slower, or a twin beyond its own
    threshold (attributed as itself), adds nothing."""
    base, head = _sides(tmp_path, (10_000_000, 0), (10_000_000, 50_000))
    wall = _row(CaseVerdict.REGRESSED, WALL, "wall")
    twin = _row(CaseVerdict.UNCHANGED)
    (found,) = attribute_twins([(wall, twin)], base, head, 0.001)
    assert (found.twin_of, found.verdict, found.key) == (WALL, CaseVerdict.REGRESSED, KEY)
    assert found.first is not None and found.first.label == "FLOAT_pairwise_sum"
    same = _row(CaseVerdict.UNCHANGED, WALL, "wall")
    assert attribute_twins([(same, twin)], base, head, 0.001) == []
    beyond = _row(CaseVerdict.REGRESSED)
    assert attribute_twins([(wall, beyond), (wall, None), (None, twin)], base, head, 0.001) == []


def test_the_simulators_face_attributes_the_wall_clocks_regressions_from_the_twins(
    tmp_path: Path,
) -> None:
    """``Simulator.attribute_others`` pairs the run's rows by `perfgate.twins` (the policy's
    ``[tool.perfgate.sim] wall``) and attributes the wall regression from the twin's kept
    tables; without a pairing in the policy, nothing."""
    base, head = _sides(tmp_path, (10_000_000, 0), (10_000_000, 50_000))
    measured = SimMeasured({}, {}, {}, 0.0, kept={"base": base, "head": head})
    rows = [_row(CaseVerdict.REGRESSED, WALL, "wall"), _row(CaseVerdict.UNCHANGED)]
    paired = replace(GateConfig(), sim=replace(GateConfig().sim, wall=WALL.benchmark))
    (found,) = Simulator().attribute_others(measured, rows, paired)
    assert found.twin_of == WALL
    assert Simulator().attribute_others(measured, rows, GateConfig()) == []
