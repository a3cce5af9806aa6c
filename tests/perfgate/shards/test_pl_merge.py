"""Sharded gate runs (``perfgate gate --shard K/N``) and ``perfgate merge``, end to end with
a fake side runner whose samples depend only on the round, side and case (a fixed seed), so
an unsharded run and the shards of a sharded run measure the very same samples."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from gate_fakes import CONFIG, commit_speed, fingerprint, hooks, make_repo

from perfgate import cli
from perfgate.asv.side_run import SideRun
from perfgate.formats.benchmarks_json import Suite, case_names, parse_benchmarks
from perfgate.formats.shard_manifest import read_manifest
from perfgate.gate import run as gate
from perfgate.model import CaseComparison, CaseKey, Reason
from perfgate.settings import GateOptions, GateSettings, ShardSpec
from perfgate.shards import merge, shard
from perfgate.verdict import CaseVerdict

pytestmark = pytest.mark.subprocess

BENCH = "suite.Kernel.time_run"
PATHS = ("numpy", "handwritten", "assembled")
SIZES = ("8", "16", "32", "64")
SUITE = {
    "version": 2,
    BENCH: {
        "params": [[f"'{p}'" for p in PATHS], list(SIZES)],
        "param_names": ["path", "n"],
        "unit": "seconds",
        "type": "time",
        "version": "1",
    },
}


class SeededSides:
    """A side runner and discoverer over 12 cases (4 groups of 3 paths): the samples of a
    case are drawn from a generator seeded by the round folder (phase, round, side) and the
    case, around the ``factor`` that ``speed.json`` of the side's export gives it
    (``{"handwritten-16": {"factor": 1.2}}``)."""

    def __init__(self) -> None:
        self.cases: list[CaseKey] = []

    def discover(self, _settings: GateSettings, _side: str, folder: Path) -> Suite:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "benchmarks.json").write_text(json.dumps(SUITE))
        return parse_benchmarks(SUITE)

    def __call__(
        self, settings: GateSettings, side: str, round_dir: Path, bench: Sequence[str]
    ) -> SideRun:
        source = settings.base_source if side == "base" else settings.head_source
        speeds = json.loads((source / "speed.json").read_text())
        round_dir.mkdir(parents=True, exist_ok=True)
        (round_dir / "benchmarks.json").write_text(json.dumps(SUITE))
        suite = parse_benchmarks(SUITE)
        where = re.sub(r"-g\d+$", "", round_dir.name)  # attribute groups of one round
        out: dict[CaseKey, tuple[float, ...] | None] = {}
        for key, name in case_names(suite).items():
            if not any(re.search(b, name) for b in bench):
                continue
            self.cases.append(key)
            factor = float(
                speeds.get(f"{key.param('path')}-{key.param('n')}", {}).get("factor", 1)
            )
            digest = hashlib.sha256(f"{where}|{key.label()}".encode()).digest()
            rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
            out[key] = tuple(float(1e-3 * factor * (1 + e)) for e in rng.normal(0, 0.01, 5))
        return SideRun(out, suite)


def _commits(tmp_path: Path, speeds: dict[str, dict[str, float]]) -> tuple[Path, str, str]:
    repo = make_repo(tmp_path, CONFIG)
    base = commit_speed(repo, {}, "base")
    head = commit_speed(repo, speeds, "head")
    return repo, base, head


def _shard(
    repo: Path, base: str, head: str, spec: str, monkeypatch: pytest.MonkeyPatch, **fp: object
) -> tuple[int, Path]:
    k, n = (int(x) for x in spec.split("/"))
    folder = repo / "shards" / f"{head[:8]}-{k}-of-{n}"
    monkeypatch.setenv("RUNNER_NAME", f"runner-{k}")
    opts = GateOptions(base=base, head=head, repo=repo, report_dir=folder, shard=ShardSpec(k, n))
    prints = [fingerprint(**fp), fingerprint(**fp)]  # type: ignore[arg-type]
    return shard.run(opts, hooks(SeededSides(), [], prints)), folder  # type: ignore[arg-type]


def _merge(repo: Path, *folders: Path) -> tuple[int, dict, str]:
    out: list[str] = []
    report_dir = repo / "merged"
    opts = merge.MergeOptions(tuple(folders), report_dir=report_dir, repo=repo)
    code = merge.run(opts, write=out.append, log=lambda _t: None)
    verdict = json.loads((report_dir / "verdict.json").read_text())
    return code, verdict, (report_dir / "report.md").read_text()


def _unsharded(repo: Path, base: str, head: str) -> tuple[int, dict]:
    opts = GateOptions(base=base, head=head, repo=repo, report_dir=repo / "single")
    code = gate.run(opts, hooks(SeededSides(), []))  # type: ignore[arg-type]
    return code, json.loads((repo / "single" / "verdict.json").read_text())


def _decided(verdict: dict) -> dict:
    """verdict.json without what names the command that produced it."""
    return {k: v for k, v in verdict.items() if k != "command"}


def test_two_shards_give_the_verdicts_of_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's "done when": shard 1/2 + shard 2/2 + merge = an unsharded run on the same
    samples: the same rows, verdicts, ratios, CIs and q-values (one BH over all cases)."""
    repo, base, head = _commits(tmp_path, {"handwritten-16": {"factor": 1.2}})
    single_code, single = _unsharded(repo, base, head)
    results = [_shard(repo, base, head, spec, monkeypatch) for spec in ("1/2", "2/2")]
    assert [code for code, _ in results] == [0, 0]
    manifests = [read_manifest(folder) for _, folder in results]
    assert all(m.cases for m in manifests)  # 4 groups over 2 shards: both measure
    code, merged, report = _merge(repo, *(folder for _, folder in results))
    assert (code, single_code) == (1, 1)
    assert _decided(merged) == _decided(single)
    regressed = [c for c in merged["cases"] if c["verdict"] == "regressed"]
    assert [(c["params"]["path"], c["params"]["n"]) for c in regressed] == [("handwritten", "16")]
    assert regressed[0]["note"] == "confirmed by re-run"
    assert len(merged["cases"]) == 12 and all(c["q"] is not None for c in merged["cases"])
    for m in manifests:  # the report says which runner measured which case
        assert f"shard {m.shard}/2 (runner runner-{m.shard}" in report
        assert all(k.label().replace("_", "\\_") in report for k in m.cases)  # markdown
    assert merged["command"].startswith("perfgate merge ")


def test_a_shard_measures_only_its_cases_and_decides_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base, head = _commits(tmp_path, {})
    code, folder = _shard(repo, base, head, "1/2", monkeypatch)
    assert code == 0
    m = read_manifest(folder)
    assert (m.shard, m.of, m.runner, m.base, m.head) == (1, 2, "runner-1", base, head)
    assert len(m.planned) == 12 and 0 < len(m.cases) < 12
    assert m.fingerprint_start["cpu_model"] == "Test CPU"
    assert sorted(p.name for p in folder.iterdir()) == ["main-samples.json", "shard.json"]
    again, _ = _shard(repo, base, head, "1/2", monkeypatch)
    assert again == 3, "a shard folder is never overwritten"


def test_shards_on_machines_that_differ_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base, head = _commits(tmp_path, {})
    _, one = _shard(repo, base, head, "1/2", monkeypatch)
    _, two = _shard(repo, base, head, "2/2", monkeypatch, cpu_model="Other CPU")
    code, verdict, _ = _merge(repo, one, two)
    assert (code, verdict["verdict"]) == (3, "error")
    reason = verdict["reasons"][0]
    assert "shard 2/2 (runner runner-2" in reason and "shard 1/2 (runner runner-1" in reason
    assert "cpu_model" in reason and "Other CPU" in reason
    assert verdict["head"] == head and verdict["cases"] == []


def test_missing_and_duplicate_shards_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base, head = _commits(tmp_path, {})
    _, one = _shard(repo, base, head, "1/2", monkeypatch)
    code, verdict, _ = _merge(repo, one)
    assert code == 3 and "missing shard(s) 2/2" in verdict["reasons"][0]
    code, verdict, _ = _merge(repo, one, one)
    assert code == 3 and "duplicate shards" in verdict["reasons"][0]
    code, verdict, _ = _merge(repo, one, repo / "no-such-shard")
    assert code == 3 and "shard.json" in verdict["reasons"][0]


def test_shards_of_other_commits_or_plans_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base, head = _commits(tmp_path, {})
    _, one = _shard(repo, base, head, "1/2", monkeypatch)
    other = commit_speed(repo, {}, "another head")
    _, two = _shard(repo, base, other, "2/2", monkeypatch)
    code, verdict, _ = _merge(repo, one, two)
    assert code == 3 and "has head" in verdict["reasons"][0]
    _, three = _shard(repo, base, head, "2/3", monkeypatch)
    code, verdict, _ = _merge(repo, one, three)
    assert code == 3 and "split the run differently" in verdict["reasons"][0]


def test_a_parity_failure_in_a_shard_is_the_merged_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard whose parity fails measures nothing, exits 2 and says so; the merge is exit 2
    naming the failing test, whatever the other shards measured."""
    failing = '["{python}", "-c", "import sys; print(\'FAILED tests/t.py::test_x\'); sys.exit(1)"]'
    config = CONFIG.replace(
        'parity_command = ["{python}", "-c", "pass"]', f"parity_command = {failing}"
    )
    repo = make_repo(tmp_path, config)
    base = commit_speed(repo, {}, "base")
    head = commit_speed(repo, {}, "head")
    codes = [_shard(repo, base, head, spec, monkeypatch) for spec in ("1/2", "2/2")]
    assert [code for code, _ in codes] == [2, 2]
    assert sorted(p.name for p in codes[0][1].iterdir()) == ["shard.json"]
    code, verdict, _ = _merge(repo, *(folder for _, folder in codes))
    assert (code, verdict["verdict"]) == (2, "parity_failure")
    assert "tests/t.py::test_x" in verdict["reasons"][0]


def test_a_flag_no_shard_re_ran_needs_confirmation() -> None:
    """A case the merged test flags that its shard's own test did not (so nothing re-ran it)
    is not "disagreed with": it needs a confirmation run (INCONCLUSIVE, exit 3)."""
    key = CaseKey(BENCH, (("path", "handwritten"), ("n", "16")))
    row = CaseComparison(key, CaseVerdict.INCONCLUSIVE, 0.05, True, reason=Reason.RERUN_DISAGREES)
    from perfgate.config_files import config_from_text

    config = config_from_text(CONFIG, "test")
    sibling = CaseKey(BENCH, (("path", "assembled"), ("n", "16")))
    rows, _ = merge.unconfirmed([row], [], [], config)
    assert rows[0].reason is Reason.NEEDS_CONFIRMATION
    assert rows[0].note == "flagged regressed; needs a confirmation run"
    rows, _ = merge.unconfirmed([row], [], [sibling], config)
    assert rows[0].reason is Reason.RERUN_DISAGREES


def test_cli_shard_and_merge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--shard`` is checked as K/N; ``perfgate merge`` of nothing usable is exit 3."""
    assert cli.main(["gate", "--base", "HEAD", "--head", "HEAD", "--shard", "3/2"]) == 3
    monkeypatch.chdir(tmp_path)
    assert cli.main(["merge", str(tmp_path / "none"), "--report-dir", "out"]) == 3
    assert json.loads((tmp_path / "out" / "verdict.json").read_text())["verdict"] == "error"
