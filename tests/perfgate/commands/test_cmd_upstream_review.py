"""The upstream PR #929 review as a test case.

Stored asv-style results are generated (fixed seeds) in the shape of the seed's tables: G1
walk assembled 1.2-2.5x slower than handwritten at N 16k-262k, Motion assembled faster from
N = 32k. As in the pull request, the assembled path is new at head, so the variant is held to
its absolute bar there. The head-vs-base comparison is clean; the variant-vs-baseline policy
must block.
"""

from __future__ import annotations

import json
from pathlib import Path

import pg_results_factory as f
import pytest

from perfgate import cli

REFERENCE = Path(__file__).parent.parent / "data" / "pyproject-perfgate.toml"


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, dict[str, object]]:
    tmp = tmp_path_factory.mktemp("pr929")
    new = f.new_at_head_in_upstream
    f.build_tree(tmp / "results", [f.HOT], f.upstream_median, seed=929, absent=new)
    f.build_tree(tmp / "confirm", [f.HOT], f.upstream_median, seed=930, absent=new)
    out = tmp / "report"
    argv = ["compare", str(tmp / "results"), "--base", f.BASE_SHA, "--head", f.HEAD_SHA]
    argv += ["--config", str(REFERENCE), "--confirm-results", str(tmp / "confirm")]
    code = cli.main([*argv, "--report-dir", str(out)])
    return code, (out / "report.md").read_text(), json.loads((out / "verdict.json").read_text())


def test_verdict_is_blocked_by_the_variant_policy(
    review: tuple[int, str, dict[str, object]],
) -> None:
    """Overall REGRESSION (exit 1) although head vs base changed nothing else: the new
    assembled path misses its absolute bar."""
    code, md, verdict = review
    assert code == 1 and verdict["verdict"] == "regression"
    cases = verdict["cases"]
    old = [c["verdict"] for c in cases if c["params"]["path"] != "assembled"]  # type: ignore[index, union-attr]
    new = [c["verdict"] for c in cases if c["params"]["path"] == "assembled"]  # type: ignore[index, union-attr]
    assert old and all(v == "unchanged" for v in old)
    assert len(new) == 2 * len(f.SIZES) and all(v == "new" for v in new)
    assert md.splitlines()[1].startswith("### ❌ perfgate REGRESSION")


def test_every_g1_row_is_named(review: tuple[int, str, dict[str, object]]) -> None:
    """Each G1 size is a confirmed regression named in the reasons and the table."""
    _, md, verdict = review
    rows = {
        v["params"]["num_envs"]: v  # type: ignore[index]
        for v in verdict["variants"]  # type: ignore[union-attr]
        if v["params"]["task"] == "g1_walk"  # type: ignore[index]
    }
    assert sorted(rows, key=int) == [str(n) for n in f.SIZES]
    for n, row in rows.items():
        old_tp, new_tp = f.G1_THROUGHPUT[int(n)]
        assert row["verdict"] == "regressed"
        assert row["ratio"] == pytest.approx(old_tp / new_tp, rel=0.03)
        assert f"hot\\_slice.HotSlice.time\\_compute(task=g1\\_walk, num\\_envs={n}): ratio" in md


def test_motion_improvements_are_listed(review: tuple[int, str, dict[str, object]]) -> None:
    """Motion at N >= 32k is a confirmed improvement, listed in the variant table."""
    _, md, verdict = review
    for v in verdict["variants"]:  # type: ignore[union-attr]
        if v["params"]["task"] == "motion_tracking" and int(v["params"]["num_envs"]) >= 32768:
            assert v["verdict"] == "improved", v
            line = next(
                line
                for line in md.splitlines()
                if f"task=motion\\_tracking, num\\_envs={v['params']['num_envs']} |" in line
            )
            assert "▼ faster" in line and "confirmed by re-run" in line
    assert "Variant vs baseline: 5 slower, 4 faster" in md
