"""Results of two asv environments are never compared: ``gate`` and ``merge`` refuse them
as ``compare`` does (exit 3 naming both), through the one environment check of the decide
stage (issue 30 item 1)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from gate_fakes import FakeSides, commit_speed, hooks, make_repo
from test_pl_merge import SeededSides, _commits, _merge, _shard

from perfgate.asv.side_run import SideRun
from perfgate.formats.shard_manifest import read_manifest
from perfgate.gate import run as gate
from perfgate.settings import GateOptions, GateSettings

pytestmark = pytest.mark.subprocess

SYSTEM = "existing-py_usr_bin_python3"
VENV = "virtualenv-py3.11"


class EnvSides(FakeSides):
    """`FakeSides` whose asv runs name the environment of each side."""

    def __init__(self, envs: Mapping[str, str]) -> None:
        super().__init__()
        self.envs = envs

    def __call__(
        self, settings: GateSettings, side: str, round_dir: Path, bench: Sequence[str]
    ) -> SideRun:
        run = super().__call__(settings, side, round_dir, bench)
        return dataclasses.replace(run, env_name=self.envs[side])


def _gate(tmp_path: Path, envs: Mapping[str, str]) -> tuple[int, dict]:
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "base")
    opts = GateOptions(base=base, head=base, repo=repo, report_dir=repo / "out")
    code = gate.run(opts, hooks(EnvSides(envs), []))
    return code, json.loads((repo / "out" / "verdict.json").read_text())


def test_the_gate_refuses_sides_measured_in_two_environments(tmp_path: Path) -> None:
    code, verdict = _gate(tmp_path, {"base": VENV, "head": SYSTEM})
    assert (code, verdict["verdict"]) == (3, "error")
    assert verdict["reasons"][0] == (
        "ERROR: comparison refused: base and head results come from different asv "
        f"environments (base '{VENV}', head '{SYSTEM}')"
    )


def test_the_gate_compares_sides_of_one_environment(tmp_path: Path) -> None:
    code, verdict = _gate(tmp_path, {"base": SYSTEM, "head": SYSTEM})
    assert (code, verdict["verdict"]) == (0, "pass")


class EnvSeededSides(SeededSides):
    """`SeededSides` whose asv runs name the environment of each side."""

    def __init__(self, envs: Mapping[str, str]) -> None:
        super().__init__()
        self.envs = envs

    def __call__(
        self, settings: GateSettings, side: str, round_dir: Path, bench: Sequence[str]
    ) -> SideRun:
        run = super().__call__(settings, side, round_dir, bench)
        return dataclasses.replace(run, env_name=self.envs[side])


def _sides(monkeypatch: pytest.MonkeyPatch, envs: Mapping[str, str]) -> None:
    """Make the merge tests' shards measure with ``envs``."""
    import test_pl_merge

    monkeypatch.setattr(test_pl_merge, "SeededSides", lambda: EnvSeededSides(envs))


def test_merge_refuses_shards_whose_sides_ran_in_two_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base, head = _commits(tmp_path, {})
    _sides(monkeypatch, {"base": SYSTEM, "head": SYSTEM})
    _, one = _shard(repo, base, head, "1/2", monkeypatch)
    _sides(monkeypatch, {"base": SYSTEM, "head": VENV})
    _, two = _shard(repo, base, head, "2/2", monkeypatch)
    assert read_manifest(two).environments == {"base": (SYSTEM,), "head": (VENV,)}
    code, verdict, report = _merge(repo, one, two)
    assert (code, verdict["verdict"]) == (3, "error")
    assert verdict["reasons"][0] == (
        "ERROR: comparison refused: base and head results come from different asv "
        f"environments (base '{SYSTEM}', head 'shard 1/2: {SYSTEM}; shard 2/2: {VENV}')"
    )
    assert "different asv environments" in report


def test_merge_refuses_shards_that_swapped_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both environments on both merged sides, yet each shard compared across them."""
    repo, base, head = _commits(tmp_path, {})
    _sides(monkeypatch, {"base": SYSTEM, "head": VENV})
    _, one = _shard(repo, base, head, "1/2", monkeypatch)
    _sides(monkeypatch, {"base": VENV, "head": SYSTEM})
    _, two = _shard(repo, base, head, "2/2", monkeypatch)
    code, verdict, _ = _merge(repo, one, two)
    assert (code, verdict["verdict"]) == (3, "error")
    assert "different asv environments" in verdict["reasons"][0]


def test_merge_takes_shards_each_of_one_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each shard compared its cases within one environment (its own runner's): the merged
    comparison is sound even when the runners' environments are named differently."""
    repo, base, head = _commits(tmp_path, {})
    _sides(monkeypatch, {"base": SYSTEM, "head": SYSTEM})
    _, one = _shard(repo, base, head, "1/2", monkeypatch)
    _sides(monkeypatch, {"base": VENV, "head": VENV})
    _, two = _shard(repo, base, head, "2/2", monkeypatch)
    code, verdict, _ = _merge(repo, one, two)
    assert (code, verdict["verdict"]) == (0, "pass")
