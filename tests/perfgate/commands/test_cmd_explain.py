"""`perfgate explain`: a bad case name or figure is refused before anything runs (exit 3,
naming what was expected)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate import cli


@pytest.mark.parametrize(
    ("case", "figure", "says"),
    [
        ("sim_hot_slice.SimHotSlice", None, "expected a sim case as the report names it"),
        ("SimHotSlice(1, 2)", None, "no module and class"),
        ("SimHotSlice(task=g1_walk)", None, "no module and class"),
        ("sim_hot_slice.SimHotSlice(os.system('x'))", None, "or as asv does"),
        ("sim_hot_slice.SimHotSlice.track_cycles(1)", "seconds", "--figure 'seconds'"),
    ],
)
def test_a_bad_case_or_figure_exits_3_naming_it(
    case: str, figure: str | None, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing is exported or counted: the error names the input and what was expected."""
    argv = ["explain", case, "--base", "a", "--head", "b", "--out", str(tmp_path / "out")]
    assert cli.main(argv + (["--figure", figure] if figure else [])) == 3
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
