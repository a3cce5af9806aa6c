"""perfgate.gate.failure_texts: a failing row gets asv's error from the run's asv output,
also when asv printed the benchmark's name cut short."""

from __future__ import annotations

from pathlib import Path

from perfgate.formats import asv_output
from perfgate.gate.compare import Analysis
from perfgate.gate.failure_texts import explain_failures
from perfgate.model import CaseComparison, CaseKey, Reason
from perfgate.verdict import CaseVerdict

LONG = "benchmarks.ColorSuiteCached.time_downgrade_to_eight_bit"


def _broken(name: str) -> CaseComparison:
    return CaseComparison(
        CaseKey(name, ()),
        CaseVerdict.BROKEN,
        0.05,
        True,
        failed_side="both",
        reason=Reason.BROKEN_ON_BOTH,
        note=Reason.BROKEN_ON_BOTH.value,
    )


def test_a_broken_benchmark_asv_printed_cut_short_gets_its_error(tmp_path: Path) -> None:
    """asv printed ``...ColorSuiteCached.time_downgrade_to_eight_bit`` (its column is
    narrower than the name): the report used to name no error for it."""
    folder = tmp_path / "main-r000-base"
    folder.mkdir()
    (folder / asv_output.OUTPUT_FILE).write_text(
        "[ 50.00%] ··· ...ColorSuiteCached.time_downgrade_to_eight_bit           failed\n"
        "[ 50.00%] ···· Traceback (most recent call last):\n"
        '                 File "/x/benchmarks.py", line 9, in time_downgrade_to_eight_bit\n'
        "                   raise ValueError('lengths differ')\n"
        "               ValueError: lengths differ\n"
    )
    analysis = Analysis([_broken(LONG), _broken("benchmarks.Other.time_x")], [], [], [], [])
    rows = explain_failures(analysis, [tmp_path]).rows
    assert rows[0].note == (
        f"{Reason.BROKEN_ON_BOTH.value}: ValueError: lengths differ "
        "(benchmarks.py, line 9, in time_downgrade_to_eight_bit)"
    )
    assert rows[1].note == Reason.BROKEN_ON_BOTH.value
