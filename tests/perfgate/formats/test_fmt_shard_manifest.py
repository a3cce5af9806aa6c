"""The shard manifest (``shard.json``): round trip, refusals naming the file, no overwrite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfgate.errors import ResultFileError, UserError
from perfgate.formats import samples
from perfgate.formats.shard_manifest import (
    OneSided,
    ShardManifest,
    one_sided_cases,
    read_manifest,
    write_manifest,
)
from perfgate.model import CaseKey, ParityResult, ParityStatus, Round

A = CaseKey("b", (("n", "8"),))
B = CaseKey("b", (("n", "16"),))


def _manifest() -> ShardManifest:
    return ShardManifest(
        shard=1, of=2, plan_digest="d" * 64, base="a" * 40, head="c" * 40, runner="r1",
        machine="perfgate-x", config_source="aaaa:pyproject.toml",
        fingerprint_start={"cpu_model": "X"}, fingerprint_end={"cpu_model": "X"},
        planned=(A, B), cases=(A,), parity=ParityResult(ParityStatus.PASSED, "make", "ok"),
        units={"b": "seconds"}, floors={A: 0.02}, samples=("main-samples.json",),
        one_sided=(OneSided("main", 0, "head", B, (1.0, 2.0)),), extra_rounds=1,
        notes=("grid: x",), created_at="now",
        environments={"base": ("existing-py_x",), "head": ("existing-py_x",)},
    )  # fmt: skip


def test_round_trip_and_never_overwritten(tmp_path: Path) -> None:
    write_manifest(tmp_path, _manifest())
    assert read_manifest(tmp_path) == _manifest()
    with pytest.raises(UserError):
        write_manifest(tmp_path, _manifest())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "other"}, "not a perfgate shard manifest"),
        ({"shard": "1"}, "shard: expected"),
        ({"one_sided": [{"phase": "main", "round": 0, "side": "left"}]}, "side must be"),
        ({"parity": {"status": "maybe"}}, "unknown status"),
        ({"asv_environments": {"head": "existing-py_x"}}, "asv_environments: expected"),
        ({"asv_environments": {"left": ["x"]}}, "asv_environments: expected"),
    ],
)
def test_bad_manifests_are_refused_naming_the_file(
    tmp_path: Path, change: dict, message: str
) -> None:
    write_manifest(tmp_path, _manifest())
    path = tmp_path / "shard.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    with pytest.raises(ResultFileError, match=message) as info:
        read_manifest(tmp_path)
    assert "shard.json" in str(info.value)


def test_rounds_of_a_sample_file_keep_index_phase_and_order(tmp_path: Path) -> None:
    rounds = [
        Round(0, "main", ("base", "head"), {A: (1.0,), B: (3.0,)}, {A: (2.0,)}),
        Round(1, "main", ("head", "base"), {A: None}, {A: (2.5,)}),
    ]
    doc = samples.samples_document(rounds, "a" * 40, "c" * 40, {}, "now", True)
    samples.write_samples_atomic(tmp_path / "s.json", doc)
    _, read = samples.read_rounds(tmp_path / "s.json")
    assert [(r.index, r.phase, r.order) for r in read] == [
        (0, "main", ("base", "head")),
        (1, "main", ("head", "base")),
    ]
    assert read[1].base == {A: None} and read[0].head == {A: (2.0,)}
    assert one_sided_cases("main", rounds) == [OneSided("main", 0, "base", B, (3.0,))]
