"""`perfgate compare`: where its policy comes from, report-dir misuse, secrets in its inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pg_results_factory as f
import pytest
from bad_dirs import BAD_KINDS, bad_output_dir
from test_cmd_compare import BENCH, CONFIG, _config, _tree

from perfgate import atomic, cli

TOKEN = "ghp_" + "Secret_Token*Value" * 2


def _argv(root: Path, *extra: str) -> list[str]:
    return ["compare", str(root), "--base", f.BASE_SHA[:8], "--head", f.HEAD_SHA[:12], *extra]


def _throughput_tree(tmp_path: Path) -> Path:
    """A ``track_`` throughput benchmark 30% lower at head (a loss, if higher is better)."""
    bench = f.Bench("hot.K.track_throughput", BENCH.param_names, BENCH.params, "ops", "track")

    def values(side: str, name: str, combo: tuple[object, ...]) -> float:
        return 700.0 if side == "head" else 1000.0

    root = tmp_path / "res"
    f.build_tree(root, [bench], values, seed=0)
    return root


def test_without_a_configuration_compare_refuses_and_names_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No pyproject.toml with [tool.perfgate] here: exit 3, not a silent built-in policy."""
    root = _tree(tmp_path)
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    assert cli.main(_argv(root)) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert str(workdir / "pyproject.toml") in captured.err and "--defaults" in captured.err
    (workdir / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    assert cli.main(_argv(root)) == 3
    assert "no [tool.perfgate] section" in capsys.readouterr().err


def test_defaults_opt_in_uses_the_built_in_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(_argv(root, "--defaults")) == 0
    out = capsys.readouterr().out
    assert "configuration: &lt;defaults&gt;" in out and "--defaults" in out


def test_a_throughput_loss_is_not_passed_by_default_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's case: without the project's higher-is-better rule, a 30% throughput loss
    read as an improvement; compare now refuses to guess the policy."""
    root = _throughput_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(_argv(root)) == 3
    rules = CONFIG.replace("[[", "higher_is_better = ['track_throughput']\n\n[[", 1)
    assert cli.main(_argv(root, "--config", _config(tmp_path, rules))) == 1


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_report_dir_misuse_is_a_clean_error_before_any_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """No PASS table and then a traceback: exit 3 naming the path, nothing on stdout (a
    dangling symbolic link passed the check and failed with FileExistsError at the write)."""
    target = bad_output_dir(tmp_path, kind, monkeypatch)
    root = _tree(tmp_path)
    assert cli.main(_argv(root, "--config", _config(tmp_path), "--report-dir", str(target))) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert str(target) in captured.err and "expected a directory" in captured.err
    assert "Traceback" not in captured.err


def test_a_report_dir_that_fails_at_the_write_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that passes the early check but cannot be written after all (full disk, a
    race): exit 3 naming it, no traceback, no report printed."""

    def full(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "write_new", full)
    out = tmp_path / "out"
    assert (
        cli.main(_argv(_tree(tmp_path), "--config", _config(tmp_path), "--report-dir", str(out)))
        == 3
    )
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert str(out) in captured.err and "No space left on device" in captured.err


def test_secrets_in_inputs_never_reach_the_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--parity-result`` text holding a token (raw, and as the report escapes it) is
    redacted from the printed report and from report.md, report.html and verdict.json."""
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    parity = tmp_path / "parity.json"
    summary = f"1 failed: token {TOKEN} leaked"
    parity.write_text(json.dumps({"status": "failed", "command": "make", "summary": summary}))
    out = tmp_path / "out"
    argv = _argv(_tree(tmp_path), "--config", _config(tmp_path), "--parity-result", str(parity))
    assert cli.main([*argv, "--report-dir", str(out)]) == 2
    printed = capsys.readouterr()
    texts = [printed.out, printed.err, *(p.read_text() for p in out.iterdir())]
    for text in texts:
        assert "Secret" not in text and "Token" not in text.replace("token ***", "")
    assert "token ***" in printed.out
