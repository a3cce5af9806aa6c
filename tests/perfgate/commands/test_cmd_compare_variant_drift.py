"""`perfgate compare`: variant vs baseline relative to base, by the gate's rule.

The assembled path is already 30% slower than the handwritten one on the base commit (as
upstream's G1 kernel was). A pull request that changes nothing must not be blocked for it;
one that makes the variant slower relative to its baseline must be; a variant new at head
is held to its absolute bar. ``--samples`` (the gate's sample file) gives the paired rounds
that these rows need; stored results alone hold one run per commit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pg_results_factory as f
import pytest

from perfgate import cli
from perfgate.formats.samples import write_samples_atomic

BENCH = f.Bench("hot.K.time_k", ("path", "n"), (("handwritten", "assembled"), (8, 16)))
CONFIG = """
[tool.perfgate]
confirm = false
resamples = 500
blocking = ['^hot\\.']

[[tool.perfgate.baseline]]
param = "path"
variant = "assembled"
baseline = "handwritten"
"""
#: The variant's time over its baseline's on the base commit.
AT_BASE = 1.3
ROUNDS = 10


def _median(side: str, path: object, drift: float) -> float:
    factor = AT_BASE * (drift if side == "head" else 1.0)
    return 1e-3 * (factor if path == "assembled" else 1.0)


def _tree(tmp_path: Path, drift: float, new_at_head: bool = False) -> Path:
    """Stored results: the variant AT_BASE slower at base, times ``drift`` more at head."""

    def absent(side: str, bench: str, combo: tuple[object, ...]) -> bool:
        return new_at_head and side == "base" and combo[0] == "assembled"

    root = tmp_path / "results"
    f.build_tree(
        root, [BENCH], lambda side, _b, combo: _median(side, combo[0], drift), absent=absent
    )
    return root


def _samples(tmp_path: Path, drift: float) -> Path:
    """The gate's sample file of the same two commits: ROUNDS rounds of every case."""
    rng = np.random.default_rng(7)

    def draw(side: str, path: str) -> list[float]:
        return [float(x) for x in _median(side, path, drift) * np.exp(rng.normal(0, 0.01, 3))]

    rounds: list[dict[str, Any]] = []
    for _ in range(ROUNDS):
        cases = [
            {
                "benchmark": BENCH.name,
                "params": {"path": path, "n": str(n)},
                "base": draw("base", path),
                "head": draw("head", path),
            }
            for path in ("handwritten", "assembled")
            for n in (8, 16)
        ]
        rounds.append({"cases": cases})
    path = tmp_path / "samples.json"
    doc = {"api_version": 1, "kind": "perfgate-samples", "fingerprint": {}, "rounds": rounds}
    write_samples_atomic(path, doc | {"base": f.BASE_SHA, "head": f.HEAD_SHA})
    return path


def _compare(tmp_path: Path, root: Path, *extra: str) -> tuple[int, str, dict[str, Any]]:
    config = tmp_path / "pyproject.toml"
    config.write_text(CONFIG)
    out = tmp_path / "out"
    argv = ["compare", str(root), "--base", f.BASE_SHA, "--head", f.HEAD_SHA]
    code = cli.main([*argv, "--config", str(config), "--report-dir", str(out), *extra])
    verdict = json.loads((out / "verdict.json").read_text())
    return code, (out / "report.md").read_text(), verdict


def test_a_variant_already_slower_at_base_does_not_block(tmp_path: Path) -> None:
    """Nothing changed: the rows relative to base are unchanged and decide; the absolute
    rows (30% slower) are reported without blocking. PASS, as the gate would say."""
    code, md, verdict = _compare(
        tmp_path, _tree(tmp_path, 1.0), "--samples", str(_samples(tmp_path, 1.0))
    )
    assert code == 0, md
    assert "#### Variant vs baseline, change from base 11111111" in md
    variants = verdict["variants"]
    assert len(variants) == 2
    for v in variants:
        assert v["verdict"] == "regressed" and not v["blocking"]
        assert v["relative_to_base"]["verdict"] == "unchanged"
        assert v["relative_to_base"]["ratio"] == pytest.approx(1.0, abs=0.02)


def test_a_pull_request_that_slows_the_variant_blocks(tmp_path: Path) -> None:
    """The head makes the variant 20% slower relative to its baseline: REGRESSION, named as
    the change from base."""
    drift = 1.2
    code, md, verdict = _compare(
        tmp_path, _tree(tmp_path, drift), "--samples", str(_samples(tmp_path, drift))
    )
    assert code == 1, md
    assert any("change from base" in r for r in verdict["reasons"])
    for v in verdict["variants"]:
        relative = v["relative_to_base"]
        assert relative["verdict"] == "regressed" and relative["blocking"]
        assert relative["ratio"] == pytest.approx(drift, rel=0.03)


def test_a_variant_new_at_head_is_held_to_its_absolute_bar(tmp_path: Path) -> None:
    """No variant at base: no row relative to base; the absolute row blocks, as before."""
    code, md, verdict = _compare(tmp_path, _tree(tmp_path, 1.0, new_at_head=True))
    assert code == 1, md
    assert "change from base" not in md
    for v in verdict["variants"]:
        assert "relative_to_base" not in v
        assert v["verdict"] == "regressed" and v["blocking"]


def test_stored_results_alone_cannot_clear_a_variant_slower_at_base(tmp_path: Path) -> None:
    """One stored run per commit is one round: the change from base has too few samples to
    decide, so the run is an error (exit 3) that says where paired rounds come from, never a
    block on the absolute bar nor a pass."""
    code, md, verdict = _compare(tmp_path, _tree(tmp_path, 1.0))
    assert code == 3, md
    for v in verdict["variants"]:
        assert v["relative_to_base"]["verdict"] == "inconclusive"
        assert not v["blocking"]
    assert "--samples gives the gate's paired rounds" in md
