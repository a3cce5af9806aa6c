"""perfgate.sim.attribution.keep: a run's dumps and tables kept beside its counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from attr_profiles import KERNELS

from perfgate.errors import UserError
from perfgate.sim.attribution import keep

DUMP = """\
desc: Trigger: Client Request: {name}
positions: line
events: Ir
ob=???
fn=0x0000000016c44000
0 {ir}
"""


def _work(folder: Path) -> Path:
    folder.mkdir()
    (folder / "callgrind.out.1").write_text(DUMP.format(name="case0000.0", ir=1000))
    (folder / "callgrind.out.2").write_text(DUMP.format(name="case0000.1", ir=3000))
    (folder / "callgrind.out").write_text("events: Ir\nfn=exit\n0 5\n")  # the dump at exit
    (folder / "kernels.json").write_text(json.dumps(KERNELS.to_json()))
    return folder


def test_a_case_is_kept_under_its_parameters_and_never_overwritten(tmp_path: Path) -> None:
    """Its dumps in call order, its weights, its table (the kernel named by the map the
    measured process wrote); a second run into the same folder is refused."""
    work, kept = _work(tmp_path / "work"), tmp_path / "kept"
    names = {"case0000": ["case0000.0", "case0000.1"]}
    (folder,) = keep.save(kept, work, [("case0000", ("motion", 2048))], names, (1, 3))
    assert folder == kept / "cases" / "motion-2048"
    assert (
        (folder / "callgrind.out.1")
        .read_text()
        .startswith("desc: Trigger: Client Request: case0000.1")
    )
    assert json.loads((folder / "case.json").read_text()) == {
        "params": ["motion", 2048],
        "weights": [1, 3],
    }
    assert keep.load_table(folder).own == {"motion_kernel": ((1000 + 3 * 3000) / 4,)}
    assert (kept / "kernels.json").is_file()
    with pytest.raises(UserError, match="already exists"):
        keep.save(kept, work, [("case0000", ("motion", 2048))], names, (1, 3))


def test_a_case_missing_a_dump_is_not_kept_and_a_bad_table_names_its_file(tmp_path: Path) -> None:
    """A failed case has no table; a damaged table is an error naming the file."""
    work, kept = _work(tmp_path / "work"), tmp_path / "kept"
    names = {"case0001": ["case0001.0"]}
    assert keep.save(kept, work, [("case0001", (1,))], names, (1,)) == []
    (kept / "cases" / "x").mkdir(parents=True)
    (kept / "cases" / "x" / "functions.json").write_text("{}")
    with pytest.raises(UserError, match="functions.json"):
        keep.load_table(kept / "cases" / "x")
