"""docs/architecture.md's example instrument, run as written: its block is taken from the
page, the registry extended by it, and a whole gate run (fake asv sides) judges with it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from gate_fakes import CONFIG, FakeSides, commit_speed, hooks, make_repo

from perfgate.gate import instruments
from perfgate.gate import run as gate
from perfgate.settings import GateOptions

pytestmark = pytest.mark.subprocess

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _example() -> ModuleType:
    """The python block after the page's ``<!-- example-instrument -->`` marker, imported."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- example-instrument -->\n```python\n(.*?)```", text, re.S)
    assert found, f"{DOC}: no example instrument block"
    source = found.group(1)
    assert len(source.splitlines()) <= 40, "the example stays short enough to read at once"
    module = ModuleType("example_instrument")
    exec(compile(source, str(DOC), "exec"), module.__dict__)
    return module


def _gate(repo: Path, base: str, head: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """One gate run with the example in the registry; verdict.json and the exit code."""
    footprint = _example().Footprint()
    monkeypatch.setattr(instruments, "REGISTRY", (*instruments.REGISTRY, footprint))
    opts = GateOptions(base=base, head=head, repo=repo, report_dir=repo / "out")
    code = gate.run(opts, hooks(FakeSides(), []))
    verdict = json.loads((repo / "out" / "verdict.json").read_text())
    return {"code": code, **verdict}


def _doubled(repo: Path) -> tuple[str, str]:
    """A base with 300 bytes of Python source and a head with 660: (base, head)."""
    (repo / "pkg.py").write_text("X = 1\n" * 50)
    base = commit_speed(repo, {}, "a package")
    (repo / "more.py").write_text("Y = 2\n" * 60)
    return base, commit_speed(repo, {}, "twice the source")


def _rows(verdict: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in verdict["cases"] if c["benchmark"] == "footprint.source_bytes"]


def test_the_example_instrument_passes_an_aa_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    (repo / "pkg.py").write_text("X = 1\n" * 50)
    head = commit_speed(repo, {}, "a package")
    verdict = _gate(repo, head, head, monkeypatch)
    assert verdict["code"] == 0
    (row,) = _rows(verdict)
    assert row["verdict"] == "unchanged"


#: the fakes' policy with the example's family among those that block
BLOCKING = CONFIG.replace("'^suite\\.']", "'^suite\\.', '^footprint\\.']")


def test_the_example_instrument_blocks_a_head_that_doubles_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert BLOCKING != CONFIG
    repo = make_repo(tmp_path, BLOCKING)
    base, head = _doubled(repo)
    verdict = _gate(repo, base, head, monkeypatch)
    assert verdict["code"] == 1, verdict["reasons"]
    (row,) = _rows(verdict)
    assert row["verdict"] == "regressed"
    reason = "REGRESSION: head vs base footprint.source_bytes: ratio 2.200 (300 -> 660 bytes)"
    assert reason in verdict["reasons"]


def test_the_example_instruments_regression_outside_the_blocking_families_is_reported_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    base, head = _doubled(repo)
    verdict = _gate(repo, base, head, monkeypatch)
    assert verdict["code"] == 0
    (row,) = _rows(verdict)
    assert (row["verdict"], row["blocking"]) == ("regressed", False)
