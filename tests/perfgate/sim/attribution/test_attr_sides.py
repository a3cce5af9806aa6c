"""perfgate.sim.attribution.sides: a gate side's kept folder read back."""

from __future__ import annotations

from pathlib import Path

from attr_kept import ASM_VECTOR, CASE, FAMILY, IR, write_side
from attr_profiles import KERNELS, dump

from perfgate.sim.attribution.sides import load_side
from perfgate.sim.attribution.table import build


def test_a_side_reads_each_familys_tables_and_kernel_code(tmp_path: Path) -> None:
    table = build([dump(10_000)], (1,), KERNELS)
    write_side(tmp_path, {CASE: table}, {"motion_kernel": (ASM_VECTOR, IR)})
    side = load_side(tmp_path)
    assert side.tables[FAMILY][CASE] == table
    assert side.code[FAMILY] == {"motion_kernel": (ASM_VECTOR, IR)}
    assert side.problems == ()


def test_a_side_that_kept_nothing_is_empty(tmp_path: Path) -> None:
    side = load_side(tmp_path / "absent")
    assert (side.tables, side.code, side.problems) == ({}, {}, ())


def test_a_damaged_table_is_left_out_and_named(tmp_path: Path) -> None:
    """A table that cannot be read is not a table of zeros: the side says which file."""
    write_side(tmp_path, {CASE: build([dump(10_000)], (1,), KERNELS)})
    bad = tmp_path / FAMILY / "cases" / "other" / "functions.json"
    bad.parent.mkdir()
    bad.write_text("{")
    (tmp_path / FAMILY / "record_error.txt").write_text("Traceback ...\nOSError: no cache\n")
    side = load_side(tmp_path)
    assert set(side.tables[FAMILY]) == {CASE}
    assert any(str(bad) in p for p in side.problems)
    assert any("kernels were not recorded: OSError: no cache" in p for p in side.problems)
