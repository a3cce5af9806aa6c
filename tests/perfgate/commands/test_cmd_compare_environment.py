"""`perfgate compare` refuses results from differing environments: base vs head, and the
``--confirm-results`` re-run vs the compared results (exit 3, naming the key and values)."""

from __future__ import annotations

import json
from pathlib import Path

import pg_results_factory as f
import pytest
from test_cmd_compare import _config, _tree

from perfgate import cli


def _set_env_vars(root: Path, sha: str, env_vars: dict[str, str]) -> None:
    """Record ``env_vars`` (as asv does for its environment) in ``sha``'s result file."""
    (path,) = (root / "perf-runner").glob(f"{sha[:8]}-*.json")
    data = json.loads(path.read_text())
    data["env_vars"] = env_vars
    path.write_text(json.dumps(data))


def _compare(root: Path, cfg: str, *extra: str) -> int:
    argv = ["compare", str(root), "--base", f.BASE_SHA, "--head", f.HEAD_SHA, "--config", cfg]
    return cli.main([*argv, *extra])


def test_a_different_threading_layer_at_head_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: base built with the omp threading layer, head with tbb."""
    root = _tree(tmp_path)
    _set_env_vars(root, f.BASE_SHA, {"NUMBA_THREADING_LAYER": "omp"})
    _set_env_vars(root, f.HEAD_SHA, {"NUMBA_THREADING_LAYER": "tbb"})
    assert _compare(root, _config(tmp_path)) == 3
    out = capsys.readouterr().out
    assert "env\\_vars.NUMBA\\_THREADING\\_LAYER (base 'omp', head 'tbb')" in out


def test_unrelated_environment_variables_do_not_matter(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _set_env_vars(root, f.HEAD_SHA, {"NUMBA_CACHE_DIR": "/tmp/x", "MY_SETTING": "1"})
    assert _compare(root, _config(tmp_path)) == 0


def test_confirmation_results_from_another_environment_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    confirm = _tree(tmp_path, seed=5, name="confirm")
    _set_env_vars(confirm, f.HEAD_SHA, {"OMP_NUM_THREADS": "8"})
    assert _compare(root, _config(tmp_path), "--confirm-results", str(confirm)) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "env_vars.OMP_NUM_THREADS (compared None, confirmation '8')" in captured.err
    assert str(confirm) in captured.err


def _move_to_env(root: Path, sha: str, env: str) -> None:
    """Re-record ``sha``'s results as measured in the asv environment ``env`` (file name and
    ``env_name``), nothing else changed."""
    (path,) = (root / "perf-runner").glob(f"{sha[:8]}-*.json")
    data = json.loads(path.read_text())
    data["env_name"] = env
    path.unlink()
    (path.parent / f"{sha[:8]}-{env}.json").write_text(json.dumps(data))


def test_results_from_two_asv_environments_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30 item 1: two result sets identical but for ``env_name`` (head measured in the
    system interpreter's environment, base in a virtualenv) passed with exit 0. Refused:
    exit 3 naming both environments, in the report and in verdict.json."""
    root = _tree(tmp_path)
    _move_to_env(root, f.BASE_SHA, "virtualenv-py3.11")
    _move_to_env(root, f.HEAD_SHA, "existing-py_usr_bin_python3")
    out = tmp_path / "out"
    assert _compare(root, _config(tmp_path), "--report-dir", str(out)) == 3
    printed = capsys.readouterr().out
    assert "different asv environments" in printed
    assert "virtualenv-py3.11" in printed and "existing-py\\_usr\\_bin\\_python3" in printed
    reason = json.loads((out / "verdict.json").read_text())["reasons"][0]
    assert reason == (
        "ERROR: comparison refused: base and head results come from different asv "
        "environments (base 'virtualenv-py3.11', head 'existing-py_usr_bin_python3')"
    )
    _move_to_env(root, f.BASE_SHA, "existing-py_usr_bin_python3")  # one environment: compared
    assert _compare(root, _config(tmp_path)) == 0


def test_the_environment_is_never_ignored(tmp_path: Path) -> None:
    """``fingerprint_ignore`` loosens machine keys; results of two asv environments are
    never compared, whatever it lists."""
    root = _tree(tmp_path)
    _move_to_env(root, f.HEAD_SHA, "virtualenv-py3.11")
    text = Path(_config(tmp_path)).read_text()
    loose = tmp_path / "loose.toml"
    loose.write_text(
        text.replace(
            "[tool.perfgate]", "[tool.perfgate]\nfingerprint_ignore = ['asv_environment']", 1
        )
    )
    assert _compare(root, str(loose)) == 3
