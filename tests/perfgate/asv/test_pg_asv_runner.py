"""perfgate.asv.runner: the asv command line and its environment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from perfgate.asv.runner import AsvInvocation, asv_command, asv_environment, ensure_asv_machine


def test_asv_command_and_env(tmp_path: Path) -> None:
    """The asv command pins the prefix first, records samples and sets the commit hash."""
    inv = AsvInvocation(
        config=tmp_path / "asv.conf.json",
        sha="a" * 40,
        source=tmp_path / "src-export",
        machine="m1",
        bench=("time_hot",),
        attributes={"repeat": "5"},
        prefix=("taskset", "-c", "1"),
        env={"NUMBA_NUM_THREADS": "2"},
    )
    cmd = asv_command(inv)
    assert cmd[:3] == ["taskset", "-c", "1"]
    for token in ("--python=same", "--record-samples", "a" * 40, "time_hot", "repeat=5"):
        assert token in cmd
    (tmp_path / "src-export" / "src").mkdir(parents=True)
    env = asv_environment(inv, {"PYTHONPATH": "/x"})
    assert env["PYTHONPATH"].split(":") == [str(tmp_path / "src-export" / "src"), "/x"]
    assert env["NUMBA_NUM_THREADS"] == "2"
    assert "--append-samples" not in cmd


def test_asv_environment_import_roots(tmp_path: Path) -> None:
    """A flat project is imported from its export's root; configured roots come first, in
    their order, and replace the default."""
    inv = AsvInvocation(tmp_path / "asv.conf.json", "a" * 40, tmp_path / "flat", "m1")
    assert asv_environment(inv, {})["PYTHONPATH"] == str(tmp_path / "flat")
    roots = (tmp_path / "flat" / "a" / "src", tmp_path / "flat" / "b")
    inv = AsvInvocation(tmp_path / "c.json", "a" * 40, tmp_path / "flat", "m1", import_roots=roots)
    env = asv_environment(inv, {"PYTHONPATH": "/x"})
    assert env["PYTHONPATH"].split(":") == [*(str(r) for r in roots), "/x"]
    assert env["ASV_PYTHONPATH"] == env["PYTHONPATH"]


def test_asv_command_appends_samples_when_asked(tmp_path: Path) -> None:
    """A further run of a stored commit adds its samples to that commit's result."""
    inv = AsvInvocation(tmp_path / "asv.conf.json", "b" * 40, tmp_path, "m1", append_samples=True)
    assert "--append-samples" in asv_command(inv)


@pytest.mark.subprocess
def test_a_machine_is_registered_outside_any_asv_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38's first hour: `perfgate init` from a project whose asv.conf.json is in
    benchmarks/ failed on a new host ("No `asv.conf` file found"): asv 0.6's `asv machine`
    reads a configuration in its working folder, and it ran in the caller's."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(tmp_path)  # no asv.conf.json here
    env = {**os.environ, "HOME": str(home)}
    ensure_asv_machine("perfgate-test-box", env)
    assert "perfgate-test-box" in json.loads((home / ".asv-machine.json").read_text())
    assert not (tmp_path / "asv.conf.json").exists()
