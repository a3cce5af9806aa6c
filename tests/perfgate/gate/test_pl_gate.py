"""`perfgate gate` end to end with a fake side runner on a throwaway git repository."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest
from gate_fakes import CASES, FakeSides, commit_speed, fingerprint, hooks, make_repo

from perfgate import cli
from perfgate.asv.side_run import read_side
from perfgate.formats.report_files import check_digest, read_report
from perfgate.formats.samples import read_samples
from perfgate.formats.timeline import read_timeline
from perfgate.gate import run as gate
from perfgate.process import ProcessOutcome
from perfgate.settings import GateOptions

pytestmark = pytest.mark.subprocess


def _opts(repo: Path, base: str, head: str, **kw: object) -> GateOptions:
    return GateOptions(base=base, head=head, repo=repo, report_dir=repo / "out", **kw)  # type: ignore[arg-type]


def _verdict(repo: Path) -> dict:
    return json.loads((repo / "out" / "verdict.json").read_text())


def _run(repo: Path, base: str, head: str, sides: FakeSides | None = None, **kw: object) -> int:
    out: list[str] = []
    code = gate.run(_opts(repo, base, head, **kw), hooks(sides or FakeSides(), out))
    assert out and out[0].startswith("<!-- perfgate-report -->")
    return code


def test_aa_passes_and_writes_contract(tmp_path: Path) -> None:
    """HEAD against itself: exit 0; report files readable by `perfgate post`."""
    repo = make_repo(tmp_path)
    sides = FakeSides()
    assert _run(repo, "HEAD", "HEAD", sides) == 0
    posted = read_report(repo / "out")
    assert (posted.verdict, posted.exit_code) == ("pass", 0)
    verdict = _verdict(repo)
    assert verdict["command"].startswith("perfgate gate --base ")
    assert {c["verdict"] for c in verdict["cases"]} == {"unchanged"}
    assert [s for s, _ in sides.calls[:4]] == ["base", "head", "head", "base"]  # B,H / H,B


def test_sample_files_complete_and_checkpoints(tmp_path: Path) -> None:
    """Every round leaves a checkpoint marked incomplete; the final file is complete."""
    repo = make_repo(tmp_path)
    assert _run(repo, "HEAD", "HEAD") == 0
    run_dir = next((repo / ".perfgate" / "runs").iterdir())
    final = json.loads((run_dir / "main-samples.json").read_text())
    assert final["complete"] is True and len(final["rounds"]) == 6
    progress = sorted(run_dir.glob("main-progress-*.json"))
    assert len(progress) == 6
    assert json.loads(progress[0].read_text())["complete"] is False
    run = read_samples(run_dir / "main-samples.json")
    assert set(run.cases) == set(CASES.values())
    assert run.orders[:2] == (("base", "head"), ("head", "base"))
    times = read_timeline(run_dir)  # where the minutes went, for a later --plan
    assert times is not None and times.parity_s is not None and times.setup_s >= 0
    assert [(r.phase, r.index) for r in times.rounds] == [("main", i) for i in range(6)]
    assert all(r.asv_runs == 2 for r in times.rounds)


def test_stable_regression_blocks_and_names_case(tmp_path: Path) -> None:
    """A committed 20% slowdown of one case: exit 1, that case named, confirmed by a re-run."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "again")
    head = commit_speed(repo, {"b": {"factor": 1.2}}, "slow b")
    sides = FakeSides()
    assert _run(repo, base, head, sides) == 1
    verdict = _verdict(repo)
    regressed = [c for c in verdict["cases"] if c["verdict"] == "regressed"]
    assert [c["params"]["path"] for c in regressed] == ["handwritten"]
    assert regressed[0]["note"] == "confirmed by re-run"
    assert "path=handwritten" in verdict["reasons"][0]
    assert any(n == 1 for _, n in sides.calls)  # confirmation selected just that case


def test_a_pull_request_cannot_loosen_its_own_gate(tmp_path: Path) -> None:
    """The head commit slows b by 20% *and* raises default_threshold to 0.5 in its
    pyproject.toml: the gate reads [tool.perfgate] at the base commit, so it still blocks."""
    from gate_fakes import CONFIG

    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "again")
    (repo / "pyproject.toml").write_text(
        CONFIG.replace("default_threshold = 0.05", "default_threshold = 0.5")
    )
    head = commit_speed(repo, {"b": {"factor": 1.2}}, "slow b, loosen the gate")
    assert _run(repo, base, head) == 1
    assert f"configuration: {base[:12]}:pyproject.toml" in (repo / "out" / "report.md").read_text()


def test_a_base_that_moved_on_is_compared_at_the_merge_base(tmp_path: Path) -> None:
    """main got 40% faster after the branch forked: `--base main` compares the head with the
    fork point (the pull request changed nothing), and the report says so."""
    from gate_fakes import git

    repo = make_repo(tmp_path)
    fork = commit_speed(repo, {}, "fork point")
    git(repo, "checkout", "-qb", "feature")
    head = commit_speed(repo, {}, "no speed change")
    git(repo, "checkout", "-q", "main")
    commit_speed(repo, {"a": {"factor": 0.6}}, "main: a faster")
    assert _run(repo, "main", head) == 0
    verdict = _verdict(repo)
    assert verdict["base"] == fork
    report = (repo / "out" / "report.md").read_text()
    assert f"the merge base of --base main ({git(repo, 'rev-parse', 'main')[:12]})" in report
    assert _run(repo, fork, head) == 0  # an ancestor is used as given, with no note
    assert "merge base" not in (repo / "out" / "report.md").read_text()


def test_a_head_already_in_the_base_is_an_error(tmp_path: Path) -> None:
    """Arguments swapped (or the head merged long ago): refused, not a head-vs-head pass."""
    repo = make_repo(tmp_path)
    old = commit_speed(repo, {}, "old")
    commit_speed(repo, {"a": {"factor": 2.0}}, "newer")
    assert _run(repo, "HEAD", old) == 3
    assert "is an ancestor of --base" in _verdict(repo)["reasons"][0]


def test_a_base_with_no_common_history_is_an_error(tmp_path: Path) -> None:
    from gate_fakes import git

    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "--orphan", "other")
    other = commit_speed(repo, {}, "unrelated root")
    assert _run(repo, "main", other) == 3
    assert "share no history" in _verdict(repo)["reasons"][0]


def test_benchmarks_changed_since_the_base_are_named_in_the_report(tmp_path: Path) -> None:
    """Both sides run this checkout's suites; files that differ from the base's (committed
    or not, untracked too) are listed for the reviewer. Unchanged suites: no such line."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "again")
    assert _run(repo, base, "HEAD") == 0
    assert "suites:" not in (repo / "out" / "report.md").read_text()
    (repo / "benchmarks" / "__init__.py").write_text("# edited\n")
    head = commit_speed(repo, {}, "edit a suite")
    (repo / "benchmarks" / "bench_new.py").write_text("")  # untracked
    (repo / "unrelated.txt").write_text("")
    assert _run(repo, base, head) == 0
    report = (repo / "out" / "report.md").read_text().replace("\\_", "_")  # markdown escapes
    line = next(ln for ln in report.splitlines() if "differ from the base" in ln)
    assert "benchmarks/__init__.py" in line and "benchmarks/bench_new.py" in line
    assert "unrelated.txt" not in line


def test_the_head_commits_edits_to_the_suites_are_said_not_to_be_measured(
    tmp_path: Path,
) -> None:
    """Issue 37 item 14: run from the base's checkout (as CI runs), a pull request's edits
    to the suites are not measured, by design; the report said nothing of it."""
    from gate_fakes import git

    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "again")
    (repo / "benchmarks" / "__init__.py").write_text("# edited by the pull request\n")
    head = commit_speed(repo, {}, "edit a suite")
    git(repo, "checkout", "-q", base)
    assert _run(repo, base, head) == 0
    report = (repo / "out" / "report.md").read_text().replace("\\_", "_")
    (line,) = [ln for ln in report.splitlines() if "are not measured" in ln]
    assert "differ from the head commit's in benchmarks/__init__.py" in line
    assert "by design" in line
    git(repo, "checkout", "-q", head)  # a local run of the head: its own suites ran
    assert _run(repo, base, head) == 0
    assert "are not measured" not in (repo / "out" / "report.md").read_text()


def test_improvement_passes_and_is_reported(tmp_path: Path) -> None:
    """A faster head passes (exit 0) and the improvement is confirmed and reported."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {"b": {"factor": 1.3}}, "slow")
    head = commit_speed(repo, {}, "fast again")
    assert _run(repo, base, head) == 0
    improved = [c for c in _verdict(repo)["cases"] if c["verdict"] == "improved"]
    assert [c["params"]["path"] for c in improved] == ["handwritten"]


def test_variant_already_slower_at_base_does_not_block(tmp_path: Path) -> None:
    """assembled 30% slower than handwritten at base *and* head (upstream's G1): the pull
    request did not change the variant/baseline ratio, so it passes; the absolute row is
    still reported (its ratio; a row that cannot block gets no confirmation re-run), and
    the relative-to-base row is unchanged."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {"c": {"factor": 1.3}}, "slow variant")
    head = commit_speed(repo, {"c": {"factor": 1.3}, "x": {}}, "unrelated change")
    assert _run(repo, base, head) == 0
    (variant,) = _verdict(repo)["variants"]
    assert variant["ratio"] > 1.2 and variant["blocking"] is False  # reported, not confirmed
    assert variant["relative_to_base"]["verdict"] == "unchanged"
    report = (repo / "out" / "report.md").read_text()
    assert "#### Variant vs baseline, change from base" in report


def test_variant_absolute_block_keeps_the_absolute_bar(tmp_path: Path) -> None:
    """``variant_absolute = "block"``: a variant slower than its baseline blocks at head,
    whatever it was at base (the rule before relative rows)."""
    from gate_fakes import CONFIG

    repo = make_repo(
        tmp_path, CONFIG.replace("confirm = true", 'confirm = true\nvariant_absolute = "block"')
    )
    sha = commit_speed(repo, {"c": {"factor": 1.3}}, "slow variant at both sides")
    assert _run(repo, sha, sha) == 1
    variants = _verdict(repo)["variants"]
    assert [v["verdict"] for v in variants] == ["regressed"]


def test_a_pull_request_that_slows_the_variant_blocks(tmp_path: Path) -> None:
    """assembled as fast as handwritten at base, 30% slower at head: the variant/baseline
    ratio is stably worse than at base (and misses its bar at head): exit 1."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "base")
    head = commit_speed(repo, {"c": {"factor": 1.3}}, "slow the variant")
    assert _run(repo, base, head) == 1
    (variant,) = _verdict(repo)["variants"]
    assert variant["relative_to_base"]["verdict"] == "regressed"
    assert variant["relative_to_base"]["blocking"] is True
    assert any("change from base" in r for r in _verdict(repo)["reasons"])


def test_a_variant_new_at_head_is_judged_by_the_absolute_bar(tmp_path: Path) -> None:
    """No assembled path at base (the upstream pull request): nothing to compare with, so
    the absolute bar decides, as before: 30% slower than handwritten blocks."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {"c": {"absent": True}}, "no variant yet")
    head = commit_speed(repo, {"c": {"factor": 1.3}}, "add a slow variant")
    assert _run(repo, base, head) == 1
    (variant,) = _verdict(repo)["variants"]
    assert variant["verdict"] == "regressed" and variant["blocking"] is True
    assert "relative_to_base" not in variant


def test_failure_at_head_blocks(tmp_path: Path) -> None:
    """A benchmark failing at head is a regression (failed_blocks), named in the reasons."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "ok")
    head = commit_speed(repo, {"a": {"fail": True}}, "broken")
    assert _run(repo, base, head) == 1
    assert "path=numpy" in _verdict(repo)["reasons"][0]


def test_unknown_revision_is_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown revision: exit 3, the revision named, an error verdict written."""
    repo = make_repo(tmp_path)
    assert _run(repo, "HEAD", "no-such-rev") == 3
    verdict = _verdict(repo)
    assert verdict["verdict"] == "error" and "no-such-rev" in verdict["reasons"][0]


def test_parity_failure_exit_2_with_failing_tests(tmp_path: Path) -> None:
    """A failing parity command blocks before measuring (exit 2) and names the failing test."""
    failing = '["{python}", "-c", "import sys; print(\'FAILED tests/t.py::test_x\'); sys.exit(1)"]'
    config = make_repo_config(failing)
    repo = make_repo(tmp_path, config)
    sides = FakeSides()
    assert _run(repo, "HEAD", "HEAD", sides) == 2
    assert not sides.calls
    assert "tests/t.py::test_x" in _verdict(repo)["reasons"][0]


def make_repo_config(parity: str) -> str:
    """The fake config with another parity command."""
    from gate_fakes import CONFIG

    return CONFIG.replace(
        'parity_command = ["{python}", "-c", "pass"]', f"parity_command = {parity}"
    )


def test_fingerprint_change_is_refused(tmp_path: Path) -> None:
    """A changed machine fingerprint during the run: exit 3 naming the key."""
    repo = make_repo(tmp_path)
    out: list[str] = []
    prints = [fingerprint(), fingerprint(governor="powersave")]
    code = gate.run(_opts(repo, "HEAD", "HEAD"), hooks(FakeSides(), out, prints))
    assert code == 3
    assert "governor" in _verdict(repo)["reasons"][0]


def test_asv_failing_is_error(tmp_path: Path) -> None:
    """asv leaving no results (here: an empty round directory) is exit 3 with a message."""
    repo = make_repo(tmp_path)

    def broken(settings, side, round_dir, bench):  # type: ignore[no-untyped-def]
        round_dir.mkdir(parents=True)
        return read_side(round_dir, settings.machine, settings.base, ProcessOutcome(1, "boom"))

    out: list[str] = []
    code = gate.run(_opts(repo, "HEAD", "HEAD"), hooks(broken, out))  # type: ignore[arg-type]
    assert code == 3
    reason = _verdict(repo)["reasons"][0]
    assert "asv produced no usable results" in reason and "boom" in reason


def test_killed_run_leaves_no_complete_file(tmp_path: Path) -> None:
    """Killed after 5 side runs: checkpoints exist, none reads as complete, no final file."""
    repo = make_repo(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        _run(repo, "HEAD", "HEAD", FakeSides(kill_after=5))
    run_dir = next((repo / ".perfgate" / "runs").iterdir())
    assert not (run_dir / "main-samples.json").exists()
    docs = [json.loads(p.read_text()) for p in run_dir.glob("main-progress-*.json")]
    assert len(docs) == 2 and all(d["complete"] is False for d in docs)
    assert not list(run_dir.glob("*.tmp"))


def test_second_run_archives_previous_report(tmp_path: Path) -> None:
    """Reports are never overwritten: the earlier one moves to previous/<time>/."""
    repo = make_repo(tmp_path)
    assert _run(repo, "HEAD", "HEAD") == 0
    assert _run(repo, "HEAD", "HEAD") == 0
    previous = list((repo / "out" / "previous").iterdir())
    assert len(previous) == 1 and (previous[0] / "verdict.json").is_file()


def test_crash_is_an_error_report_and_no_earlier_pass_survives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unexpected exception mid-run (here a ValueError from a side) is an ERROR report
    (exit 3) that replaces the earlier pass, and the token in its text is redacted."""
    token = "ghp_" + "x" * 36
    monkeypatch.setenv("GITHUB_TOKEN", token)
    repo = make_repo(tmp_path)
    assert _run(repo, "HEAD", "HEAD") == 0

    def corrupt(settings, side, round_dir, bench):  # type: ignore[no-untyped-def]
        raise ValueError(f"could not convert string to float: 'n/a' ({token})")

    out: list[str] = []
    assert gate.run(_opts(repo, "HEAD", "HEAD"), hooks(corrupt, out)) == 3  # type: ignore[arg-type]
    verdict = _verdict(repo)
    assert verdict["verdict"] == "error" and "internal error: ValueError" in verdict["reasons"][0]
    for name in ("verdict.json", "report.md", "report.html"):
        assert token not in (repo / "out" / name).read_text()
    assert len(list((repo / "out" / "previous").iterdir())) == 1


def test_killed_run_leaves_no_earlier_report_to_post(tmp_path: Path) -> None:
    """A run killed before it decides leaves no verdict.json behind (the earlier one is in
    previous/), so `perfgate post` of the same head cannot post the old pass."""
    repo = make_repo(tmp_path)
    assert _run(repo, "HEAD", "HEAD") == 0
    with pytest.raises(KeyboardInterrupt):
        _run(repo, "HEAD", "HEAD", FakeSides(kill_after=1))
    assert not (repo / "out" / "verdict.json").exists()
    with pytest.raises(ValueError, match="report dir"):
        read_report(repo / "out")


def test_cli_usage_errors_exit_3(tmp_path: Path) -> None:
    """Missing --head, a bad budget or --post without --pr are errors (3), never 2."""
    assert cli.main(["gate", "--base", "HEAD"]) == 3
    assert cli.main(["gate", "--base", "HEAD", "--head", "HEAD", "--post"]) == 3
    repo = make_repo(tmp_path)
    assert _run(repo, "HEAD", "HEAD", budget_minutes=-1.0) == 3
    assert _run(repo, "HEAD", "HEAD", budget_minutes=float("nan")) == 3
    for bad in (["--budget-minutes", "nan"], ["--budget-minutes", "0"], ["--bench", "("]):
        assert cli.main(["gate", "--base", "HEAD", "--head", "HEAD", *bad]) == 3


def test_post_failure_turns_pass_into_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--post --pr N without GitHub credentials: the report is written, exit 3 (not 0)."""
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(name, raising=False)
    repo = make_repo(tmp_path)
    assert _run(repo, "HEAD", "HEAD", post=True, pr=7) == 3
    assert _verdict(repo)["verdict"] == "pass"


def test_variant_rows_use_every_round_that_ran_both_sides(tmp_path: Path) -> None:
    """Extra rounds (handwritten and assembled both 5% slower against a 5% threshold: their
    CIs straddle it) also feed the variant row: it pairs assembled with handwritten over
    every round that ran both, not just the first min_samples ones, so its p can shrink.
    (Rounds that ran only one side are dropped: tests/perfgate/wall/test_pl_rounds.py.)"""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "base")
    head = commit_speed(repo, {"b": {"factor": 1.05}, "c": {"factor": 1.05}}, "b, c slower")
    _run(repo, base, head, FakeSides())
    run_dir = next((repo / ".perfgate" / "runs").iterdir())
    rounds = json.loads((run_dir / "main-samples.json").read_text())["rounds"]
    ran = [{c["params"]["path"] for c in r["cases"]} for r in rounds]
    both = sum(1 for r in ran if {"handwritten", "assembled"} <= r)
    assert both > 6
    (variant,) = _verdict(repo)["variants"]
    assert variant["n_base"] == variant["n_head"] == both
    assert variant["paired"] is True


def test_every_run_measures_fresh_exports_and_deletes_them(tmp_path: Path) -> None:
    """An export left in the (persistent) work folder, edited by another run's code, is never
    measured: each run exports both commits into its own run folder and deletes them after."""
    repo = make_repo(tmp_path)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    stale = repo / ".perfgate" / "exports" / head
    stale.mkdir(parents=True)
    (stale / ".perfgate-export-complete").write_text(head + "\n")
    (stale / "speed.json").write_text('{"a": {"fail": true}}')  # would fail every case
    assert _run(repo, "HEAD", "HEAD") == 0
    runs = list((repo / ".perfgate" / "runs").iterdir())
    assert len(runs) == 1 and not (runs[0] / "exports").exists()


#: A parity command of the head that detaches a sleeper (double fork, setsid) which, once
#: the gate has finished, would rewrite its verdict.
DETACHED_REWRITER = """
import os, sys, time
target = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # let go of the output: the gate does not wait for it
            os.dup2(null, fd)
        time.sleep(2.0)
        with open(target, "w") as f:
            f.write('{"verdict": "pass", "exit_code": 0, "summary": "forged"}')
        os._exit(0)
    os._exit(0)
os.wait()
"""


def test_code_of_the_head_cannot_rewrite_the_report_after_the_gate(tmp_path: Path) -> None:
    """A detached process started by the head's parity command is killed before the report
    is written, and the report says so; the verdict file stays the gate's."""
    import time

    script = tmp_path / "rewriter.py"
    script.write_text(DETACHED_REWRITER)
    target = tmp_path / "repo" / "out" / "verdict.json"
    repo = make_repo(tmp_path, make_repo_config(f'["{{python}}", "{script}", "{target}"]'))
    assert _run(repo, "HEAD", "HEAD") == 0
    written = target.read_text()
    assert "contained: 1 process(es)" in (repo / "out" / "report.md").read_text()
    time.sleep(3.0)  # past the moment the sleeper would have rewritten the verdict
    assert target.read_text() == written


def test_the_report_digest_is_logged_and_recorded_for_the_post_job(tmp_path: Path) -> None:
    """--digest-output gets report-digest=sha256:... of the files as written (appended, as
    GitHub's step-output file takes it); the log shows it too."""
    repo = make_repo(tmp_path)
    output = tmp_path / "github_output"
    output.write_text("earlier=1\n")
    out: list[str] = []
    logged: list[str] = []
    run_hooks = dataclasses.replace(hooks(FakeSides(), out), log=logged.append)
    assert gate.run(_opts(repo, "HEAD", "HEAD", digest_output=output), run_hooks) == 0
    lines = output.read_text().splitlines()
    assert lines[0] == "earlier=1" and lines[1].startswith("report-digest=sha256:")
    digest = lines[1].removeprefix("report-digest=")
    check_digest(repo / "out", digest)
    assert any(digest in line for line in logged)
