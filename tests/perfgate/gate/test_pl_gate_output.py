"""`perfgate gate`: what leaves the process (report folder checks, order, secrets)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bad_dirs import BAD_KINDS, bad_output_dir
from gate_fakes import FakeSides, commit_speed, hooks, make_repo
from test_pl_gate import make_repo_config

from perfgate import cli
from perfgate.errors import UserError
from perfgate.formats.report_files import read_report
from perfgate.gate import publish
from perfgate.gate import run as gate
from perfgate.settings import GateOptions
from perfgate.shards import merge, shard_set

pytestmark = pytest.mark.subprocess

TOKEN = "ghp_" + "Gate_Secret*Token" * 2


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_report_dir_misuse_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Refused before parity and measuring (a dangling symbolic link ran both, minutes of a
    full gate, and then failed to write the report); on the command line exit 3, naming the
    folder, with no traceback."""
    repo = make_repo(tmp_path)
    target = bad_output_dir(tmp_path, kind, monkeypatch)
    sides, out = FakeSides(), []
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo, report_dir=target)
    with pytest.raises(UserError, match="expected a directory"):
        gate.run(opts, hooks(sides, out))
    assert out == [] and sides.calls == [] and not (repo / ".perfgate").exists()
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(repo)]
    assert cli.main([*argv, "--report-dir", str(target)]) == 3
    captured = capsys.readouterr()
    assert captured.out == "" and str(target) in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_merge_refuses_a_bad_report_dir_before_merging(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """``perfgate merge`` read and merged the shards first, then failed at the write."""
    target = bad_output_dir(tmp_path, kind, monkeypatch)

    def never(*_args: object) -> None:
        raise AssertionError("the shards were read before the report folder was checked")

    monkeypatch.setattr(shard_set, "read_shards", never)
    with pytest.raises(UserError, match="expected a directory"):
        merge.run(merge.MergeOptions((tmp_path / "shard",), report_dir=target))
    assert cli.main(["merge", str(tmp_path / "shard"), "--report-dir", str(target)]) == 3
    captured = capsys.readouterr()
    assert captured.out == "" and str(target) in captured.err
    assert "Traceback" not in captured.err


def test_nothing_is_printed_when_the_report_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict is printed only once its files are written."""
    repo = make_repo(tmp_path)

    def refuse(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(publish, "replace_reports", refuse)
    out: list[str] = []
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out")
    assert gate.run(opts, hooks(FakeSides(), out)) == 3
    assert out == []


def test_a_secret_printed_by_the_parity_command_is_redacted_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_DEPLOY_KEY", TOKEN)
    script = f"import sys; print('FAILED t.py::test_x {TOKEN}'); sys.exit(1)"
    repo = make_repo(tmp_path, make_repo_config(f'["{{python}}", "-c", "{script}"]'))
    out: list[str] = []
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out")
    assert gate.run(opts, hooks(FakeSides(), out)) == 2
    texts = [*out, *(p.read_text() for p in (repo / "out").iterdir() if p.is_file())]
    assert any("***" in text for text in texts)
    for text in texts:
        assert "Secret" not in text


def test_calibrate_work_dir_that_is_a_file_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """calibrate writes no report; its one output folder, --work-dir, is checked the same way:
    a file there is exit 3 naming it, no traceback and nothing on stdout."""
    repo = make_repo(tmp_path)
    afile = tmp_path / "afile"
    afile.write_text("x\n")
    argv = ["calibrate", "--rounds", "8", "--repo", str(repo), "--work-dir", str(afile)]
    assert cli.main(argv) == 3
    captured = capsys.readouterr()
    assert captured.out == "" and str(afile) in captured.err
    assert "expected a directory" in captured.err and "Traceback" not in captured.err


def test_a_head_where_every_benchmark_fails_is_a_regression(tmp_path: Path) -> None:
    """Issue 30 item 4, end to end: every case fails at head. One failing case was exit 1,
    all of them exit 3 "could not decide" under 24 listed failures; now exit 1, and the
    headline, the status summary and the first reason say why."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "base")
    head = commit_speed(repo, {n: {"fail": True} for n in ("a", "b", "c")}, "all fail")
    out: list[str] = []
    opts = GateOptions(base=base, head=head, repo=repo, report_dir=repo / "out")
    assert gate.run(opts, hooks(FakeSides(), out)) == 1
    verdict = read_report(repo / "out")
    assert (verdict.verdict, verdict.exit_code) == ("regression", 1)
    assert verdict.summary.startswith("REGRESSION: every benchmark fails at head")
    assert "perfgate REGRESSION: every benchmark fails at head (merge blocked)" in out[0]
    html = (repo / "out" / "report.html").read_text()
    assert "every benchmark fails at head" in html
