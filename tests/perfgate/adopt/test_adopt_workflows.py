"""perfgate.adopt.workflows: the callers init writes pass gate.yml the inputs it declares."""

from __future__ import annotations

from pathlib import Path

import yaml

from perfgate.adopt.workflows import WORKFLOW_FILES, WorkflowOptions, render

GATE_YML = Path(__file__).resolve().parents[3] / ".github" / "workflows" / "gate.yml"


def test_callers_pass_declared_inputs() -> None:
    declared = yaml.safe_load(GATE_YML.read_text())[True]["workflow_call"]["inputs"]
    required = {k for k, v in declared.items() if v.get("required")}
    options = WorkflowOptions(ref="a" * 40, runner_labels=("self-hosted", "perf-box"))
    for name in WORKFLOW_FILES:
        workflow = yaml.safe_load(render(name, options))
        (job,) = workflow["jobs"].values()
        assert job["uses"] == f"perfgate/perfgate/.github/workflows/gate.yml@{'a' * 40}"
        assert required <= set(job["with"]) <= set(declared), name
        assert job["with"]["runner-labels"] == '["self-hosted", "perf-box"]'
        assert "@" + "a" * 40 in job["with"]["perfgate"]
        assert '"$PERFGATE"' in job["with"]["setup"]
        assert workflow["permissions"] == {}
    fork = yaml.safe_load(render("perfgate-fork.yml", options))
    assert fork[True] == {"pull_request_target": {"types": ["labeled"]}}
    assert "safe-to-bench" in fork["jobs"]["gate"]["if"]
    assert fork["jobs"]["gate"]["with"]["parity-command"] == ""
