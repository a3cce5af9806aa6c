"""The watch's probe cases of issue 36: a bad stored point costs that point, never the
series; a commit stored in two environments is kept apart, never pooled; results that are
not there are "no results stored", never "no change points"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pg_results_factory import COLUMNS, write_result
from watch_history import BENCH, MACHINE, ScriptedHistory, scripted_history, slowdown

from perfgate.cli import main
from perfgate.watch.changes.load import load_series

pytestmark = pytest.mark.subprocess

#: a 15% step at commit 8 of 12, every commit stored
STEP = slowdown(8, factor=1.15)


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_SERVER_URL"):
        monkeypatch.delenv(key, raising=False)


def _stored(tmp_path: Path) -> ScriptedHistory:
    history = scripted_history(tmp_path)
    history.measure(range(1, 13), STEP)
    return history


def _result_path(history: ScriptedHistory, k: int) -> Path:
    (path,) = (history.results / MACHINE).glob(f"{history.commits[k - 1][:8]}-*.json")
    return path


def _set_sample(path: Path, value: float) -> None:
    """Sample 3 of the stored case becomes ``value`` (asv's JSON writes inf as Infinity)."""
    data = json.loads(path.read_text())
    data["results"][BENCH.name][COLUMNS.index("samples")][0][3] = value
    path.write_text(json.dumps(data))


def _watch(tmp_path: Path, history: ScriptedHistory) -> int:
    argv = ["watch", "--results", str(history.results), "--repo", str(history.repo)]
    argv += ["--config", str(tmp_path / "none.toml"), "--no-state", "--dry-run", "--json"]
    return main(argv)


def _regressions(out: str) -> list[dict[str, object]]:
    return [r for r in json.loads(out) if r["direction"] == "regression"]


@pytest.mark.parametrize("bad", [-1.0, 0.0, float("inf")])
def test_one_bad_sample_costs_its_point_and_the_step_is_still_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: float
) -> None:
    """Before the fix the whole series was skipped: ``[]``, exit 0."""
    history = _stored(tmp_path)
    damaged = _result_path(history, 3)
    _set_sample(damaged, bad)
    assert _watch(tmp_path, history) == 0
    captured = capsys.readouterr()
    (reg,) = _regressions(captured.out)
    assert reg["commit"] == history.commits[7]
    (warning,) = [line for line in captured.err.splitlines() if "warning" in line]
    assert str(damaged) in warning and history.commits[2][:12] in warning
    assert BENCH.name in warning and "not a finite number > 0" in warning
    (series,) = load_series(history.results, history.commits, lambda _: False).series
    assert len(series.points) == 11 and history.commits[2] not in [p.commit for p in series.points]


def test_a_truncated_result_file_costs_its_points_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before the fix watch exited 3 on such an export, for good (the branch is append-only)."""
    history = _stored(tmp_path)
    damaged = _result_path(history, 5)
    damaged.write_text(damaged.read_text()[:40])
    assert _watch(tmp_path, history) == 0
    captured = capsys.readouterr()
    (reg,) = _regressions(captured.out)
    assert reg["commit"] == history.commits[7]
    (warning,) = [line for line in captured.err.splitlines() if "warning" in line]
    assert str(damaged) in warning and "unreadable" in warning


def test_a_commit_stored_in_two_environments_is_kept_apart_not_pooled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before the fix the other environment's samples were pooled into the point silently."""
    history = _stored(tmp_path)
    commit = history.commits[5]
    other = write_result(
        history.results, commit, [BENCH], {BENCH.name: [[5.0] * 20]}, env="other-env"
    )
    (series,) = load_series(history.results, history.commits, lambda _: False).series
    (point,) = [p for p in series.points if p.commit == commit]
    assert 5.0 not in point.samples and len(point.samples) == 20
    assert _watch(tmp_path, history) == 0
    captured = capsys.readouterr()
    (reg,) = _regressions(captured.out)
    assert reg["commit"] == history.commits[7]
    (warning,) = [line for line in captured.err.splitlines() if "warning" in line]
    assert str(other) in warning and commit[:12] in warning and BENCH.name in warning
    assert "kept apart" in warning


def test_no_results_stored_is_an_error_not_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """benchmarks.json and machine.json only. Before the fix: "no change points", exit 0."""
    history = scripted_history(tmp_path)
    assert _watch(tmp_path, history) == 3
    err = capsys.readouterr().err
    assert "no results stored" in err and str(history.results) in err
    assert "Traceback" not in err


def test_an_export_of_machine_json_alone_is_no_results_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the probe's export held (asv stopped at discovery): machine.json, no suite.
    Before the fix: "benchmarks.json: file does not exist"."""
    history = scripted_history(tmp_path)
    (history.results / "benchmarks.json").unlink()
    assert _watch(tmp_path, history) == 3
    err = capsys.readouterr().err
    assert "no results stored" in err and "benchmarks.json" in err
