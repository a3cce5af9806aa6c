"""perfgate.formats.samples: round trips, never overwritten, checkpoints never read."""

from __future__ import annotations

import json
from pathlib import Path

import pg_results_factory as f
import pytest

from perfgate.errors import ResultFileError, UserError
from perfgate.formats.samples import read_samples, write_samples_atomic
from perfgate.model import CaseKey


def _sample_data() -> dict[str, object]:
    return {
        "api_version": 1,
        "kind": "perfgate-samples",
        "created_at": "2026-11-29T18:00:00Z",
        "fingerprint": {"cpu": "x", "threading_layer": "omp"},
        "base": f.BASE_SHA,
        "head": f.HEAD_SHA,
        "unit": "seconds",
        "rounds": [
            {
                "order": ["base", "head"],
                "cases": [
                    {
                        "benchmark": "b",
                        "params": {"n": "8"},
                        "base": [1.0, 1.1],
                        "head": [1.2, 1.3],
                    }
                ],
            },
            {
                "order": ["head", "base"],
                "cases": [{"benchmark": "b", "params": {"n": "8"}, "base": [1.0], "head": None}],
            },
        ],
    }


def test_sample_file_round_trip_and_no_clobber(tmp_path: Path) -> None:
    """write_samples_atomic writes once, leaves no temp file, and refuses to overwrite."""
    path = tmp_path / "runs" / "samples-1.json"
    write_samples_atomic(path, _sample_data())
    assert [p.name for p in path.parent.iterdir()] == ["samples-1.json"]
    run = read_samples(path)
    case = run.cases[CaseKey("b", (("n", "8"),))]
    assert case.base_rounds == ((1.0, 1.1), (1.0,)) and case.head_rounds == ((1.2, 1.3), None)
    assert case.failed_head and not case.failed_base
    assert run.orders == (("base", "head"), ("head", "base"))
    before = path.read_text()
    with pytest.raises(UserError, match="already exists"):
        write_samples_atomic(path, _sample_data())
    assert path.read_text() == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"api_version": 2}, "not a perfgate sample file"),
        (
            {"rounds": [{"cases": [{"benchmark": "b", "base": [1.0]}]}]},
            "needs params, base and head",
        ),
        ({"rounds": [{"order": 5, "cases": []}]}, "order must be"),
        ({"rounds": [{"order": ["head", "head"], "cases": []}]}, "order must be"),
        ({"base": None}, "base: expected a commit hash"),
        (
            {
                "rounds": [
                    {"cases": [{"benchmark": "b", "params": {}, "base": ["x"], "head": None}]}
                ]
            },
            "expected numbers",
        ),
    ],
)
def test_invalid_sample_data_is_never_written(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    """Validation runs before writing: nothing appears on disk."""
    path = tmp_path / "s.json"
    with pytest.raises(ResultFileError, match=message):
        write_samples_atomic(path, {**_sample_data(), **change})
    assert list(tmp_path.iterdir()) == []


def test_truncated_sample_file(tmp_path: Path) -> None:
    """A truncated sample file names itself in the error."""
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_sample_data())[:50])
    with pytest.raises(ResultFileError, match="corrupt or truncated") as info:
        read_samples(path)
    assert "s.json" in str(info.value)


def test_a_checkpoint_is_not_read_as_a_sample_file(tmp_path: Path) -> None:
    """Checkpoints are written (complete: false) but never read back for a decision."""
    path = tmp_path / "main-progress-001.json"
    write_samples_atomic(path, {**_sample_data(), "complete": False})
    with pytest.raises(ResultFileError, match="a checkpoint of an unfinished run"):
        read_samples(path)
    done = tmp_path / "main-samples.json"
    write_samples_atomic(done, {**_sample_data(), "complete": True})
    assert read_samples(done).head == _sample_data()["head"]
