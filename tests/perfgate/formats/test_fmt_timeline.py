"""The run timeline (``timeline.json``): round trip, refusals naming the file, no overwrite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfgate.errors import ResultFileError, UserError
from perfgate.formats import timeline
from perfgate.formats.timeline import FamilyTime, PhaseTime, RoundTime, Timeline

RECORD = Timeline(
    parity_command="make test-all",
    parity_s=118.5,
    setup_s=6.0,
    rounds=(RoundTime("main", 0, 600.0, 570.0, 2), RoundTime("main", 1, 130.0, 120.0, 4)),
    created_at="2026-12-02T00:00:00+00:00",
)


def test_round_trip_and_never_overwritten(tmp_path: Path) -> None:
    assert timeline.read_timeline(tmp_path) is None
    timeline.write_timeline(tmp_path, RECORD)
    assert timeline.read_timeline(tmp_path) == RECORD
    with pytest.raises(UserError):
        timeline.write_timeline(tmp_path, RECORD)
    assert RECORD.rounds[0].overhead_s == 30.0
    assert RoundTime("main", 2, 5.0, 6.0, 2).overhead_s == 0.0  # never negative


def test_parity_from_ci_has_no_seconds(tmp_path: Path) -> None:
    from dataclasses import replace

    record = replace(RECORD, parity_s=None)
    timeline.write_timeline(tmp_path, record)
    assert timeline.read_timeline(tmp_path) == record


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "other"}, "not a perfgate timeline"),
        ({"api_version": 2}, "unsupported api_version"),
        ({"setup_s": -1}, "setup_s: expected finite seconds"),
        ({"parity_s": "fast"}, "parity_s: expected seconds"),
        ({"rounds": {}}, "rounds: expected a list"),
        ({"rounds": [{"phase": "main", "index": 0, "seconds": 1.0, "case_seconds": 1.0}]},
         r"rounds\[0\].asv_runs: expected a count"),
        ({"rounds": [{"phase": "", "index": 0}]}, r"rounds\[0\].phase"),
        ({"phases": {}}, "phases: expected a list"),
        ({"phases": [{"instrument": "sim", "seconds": -2}]}, r"phases\[0\].seconds"),
        ({"phases": [{"instrument": "sim", "seconds": 1, "families": [{"family": "x"}]}]},
         r"phases\[0\].families\[0\].cases: expected a count"),
    ],
)  # fmt: skip
def test_bad_timelines_are_refused_naming_the_file(
    tmp_path: Path, change: dict, message: str
) -> None:
    timeline.write_timeline(tmp_path, RECORD)
    path = tmp_path / timeline.TIMELINE
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    with pytest.raises(ResultFileError, match=message) as info:
        timeline.read_timeline(tmp_path)
    assert str(path) in str(info.value)


SIM = PhaseTime(
    "sim",
    402.0,
    (FamilyTime("sim_hot_slice", 36, 3, 12.0), FamilyTime("sim_scaling", 24, 3, 390.0)),
)


def test_the_sim_phase_and_its_families_round_trip(tmp_path: Path) -> None:
    """The sim phase's seconds per family, for a later plan's sim cases."""
    from dataclasses import replace

    record = replace(RECORD, phases=(SIM,))
    timeline.write_timeline(tmp_path, record)
    got = timeline.read_timeline(tmp_path)
    assert got == record and got.phase("sim") == SIM and got.phase("wall") is None
    assert SIM.families[1].per_count_s == pytest.approx(390.0 / 72)
    assert FamilyTime("sim_scaling", 0, 3, 0.0).per_count_s is None


def test_a_timeline_of_an_older_run_has_no_phases(tmp_path: Path) -> None:
    """Files written before the phases were recorded read as none (not an error)."""
    timeline.write_timeline(tmp_path, RECORD)
    path = tmp_path / timeline.TIMELINE
    doc = json.loads(path.read_text())
    del doc["phases"]
    path.write_text(json.dumps(doc))
    got = timeline.read_timeline(tmp_path)
    assert got is not None and got.phases == ()
