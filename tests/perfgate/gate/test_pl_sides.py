"""The sides' trees: resolving a run exports nothing; `sides.prepared` exports both commits
where the settings say and removes them (and any build) on every way out, a failed build too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_fakes import CONFIG, FakeSides, commit_speed, fingerprint, hooks, make_repo

from perfgate.errors import UserError
from perfgate.gate import context, sides
from perfgate.gate import run as gate
from perfgate.settings import GateOptions, GateSettings

pytestmark = pytest.mark.subprocess

#: A policy that builds each side with pip, in a project whose build backend does not
#: exist: pip fails at once, and needs no package index (nothing to install first).
PIP_CONFIG = '[build-system]\nrequires = []\nbuild-backend = "no_such_backend"\n' + CONFIG.replace(
    "[tool.perfgate]\n", '[tool.perfgate]\nbuild = "pip"\n', 1
)


def _settings(repo: Path, base: str, head: str) -> GateSettings:
    opts = GateOptions(base=base, head=head, repo=repo, report_dir=repo / "out")
    revs = context.resolve_revisions(opts)
    config = context.load_gate_config(opts, revs)
    return context.settings_on_this_machine(
        opts, revs, config, lambda _plan: fingerprint(), lambda: None
    )[2]


def test_resolving_exports_nothing_and_prepared_cleans_up(tmp_path: Path) -> None:
    """The settings name the export folders; only `prepared` fills them, each with its own
    commit's tree, and the block's end removes them."""
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {"a": {"factor": 1.0}}, "base")
    head = commit_speed(repo, {"a": {"factor": 2.0}}, "head")
    s = _settings(repo, base, head)
    assert (s.base_source, s.head_source) == (sides.export_path(s.run_dir, base),
                                              sides.export_path(s.run_dir, head))  # fmt: skip
    assert not s.base_source.exists() and not s.head_source.exists()
    with sides.prepared(s) as ready:
        factors = [json.loads((p / "speed.json").read_text())["a"]["factor"]
                   for p in (ready.base_source, ready.head_source)]  # fmt: skip
        assert factors == [1.0, 2.0] and ready.builds == {}
    assert not sides.export_dir(s.run_dir).exists()


def test_a_failed_build_leaves_no_tree_behind(tmp_path: Path) -> None:
    """pip refusing a side is an error naming it, and the exports and the build folders of
    the run are gone afterwards (they were left behind when the build ran while resolving)."""
    repo = make_repo(tmp_path, PIP_CONFIG)
    s = _settings(repo, "HEAD", "HEAD")
    with pytest.raises(UserError, match=r"build of base [0-9a-f]{12} failed"):
        with sides.prepared(s):
            pass
    assert s.run_dir.exists() is False or list(s.run_dir.iterdir()) == []


def test_the_gate_reports_a_failed_build_as_an_error_and_cleans_up(tmp_path: Path) -> None:
    """Through the whole gate: exit 3, the build named in the report, no export kept."""
    repo = make_repo(tmp_path, PIP_CONFIG)
    out: list[str] = []
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out")
    assert gate.run(opts, hooks(FakeSides(), out)) == 3
    assert "build of base" in out[0]
    run_dir = next((repo / ".perfgate" / "runs").iterdir())
    assert not (run_dir / sides.EXPORTS_DIR).exists()
    assert not (run_dir / "builds").exists()
