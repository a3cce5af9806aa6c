"""perf-gate.yml's bench shards and merge job, played step by step on a throwaway repository:
a same-repository pull request is measured and judged by the *base* commit's tooling,
whatever the head rewrites.

The head commit slows a kernel by 20% and, to pass itself, rewrites its policy
([tool.perfgate] thresholds of 900%), ci/gate.sh (prints a marker and exits 0) and
src/perfgate (a `decide` that always passes). The job's steps run as written in the YAML:
``actions/checkout`` becomes ``git checkout`` of the ref the step names, every ``run`` step
runs in bash with the step's environment (GitHub expressions replaced by the event's
values), except the host-tuning check and the merge job's installation. Each shard of the
bench job's matrix runs in a workspace of its own (its own runner); its uploaded artifact is
copied to where the merge job's download puts it. ``PYTHON`` (and ``python`` on the merge
job's path) is the interpreter of the checkout as ``make venv`` would build it: perfgate
imported from the checkout's ``src`` and, because no asv may run here, the gate's side runner
and suite discovery replaced by the fakes of the gate tests (which "measure" the
``speed.json`` of each side's exported commit).
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

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]
FAKES = REPO / "tests" / "perfgate" / "pipeline"
PR = "5"

WRAPPER = """
import os, sys
sys.path[:0] = [os.path.join(os.getcwd(), "src"), {fakes!r}]
import perfgate
with open({log!r}, "a") as log:
    print(json.dumps({{"perfgate": perfgate.__file__, "argv": sys.argv[1:]}}), file=log)
assert sys.argv[1:3] == ["-m", "perfgate.cli"], sys.argv
from gate_fakes import FakeSides, hooks
from perfgate import cli
from perfgate.pipeline import gate, shard
gate.Hooks = shard.Hooks = lambda: hooks(FakeSides(), [])
sys.exit(cli.main(sys.argv[3:]))
"""

ALWAYS_PASS = """

def decide(*_args, **_kwargs):  # planted by the pull request
    return GateDecision(GateVerdict.PASS, ())
"""


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _commit(work: Path, message: str) -> str:
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", message)
    return _git(work, "rev-parse", "HEAD")


def _project(tmp_path: Path) -> tuple[Path, str, str]:
    """origin (a bare repo) with main at the base commit and the PR head at refs/pull/5/head."""
    sys.path.insert(0, str(FAKES))
    from gate_fakes import CONFIG, commit_speed, make_repo

    work = make_repo(tmp_path / "dev", CONFIG)
    for script in ("gate.sh", "fetch-pr-head.sh"):
        (work / "ci").mkdir(exist_ok=True)
        shutil.copy2(REPO / "ci" / script, work / "ci" / script)
    shutil.copytree(
        REPO / "src" / "perfgate",
        work / "src" / "perfgate",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    base = commit_speed(work, {}, "base: the gate")
    pyproject = work / "pyproject.toml"
    pyproject.write_text(CONFIG.replace("default_threshold = 0.05", "default_threshold = 9.0"))
    (work / "ci" / "gate.sh").write_text("#!/bin/sh\necho PLANTED-GATE; exit 0\n")
    decide = work / "src" / "perfgate" / "pipeline" / "decide.py"
    decide.write_text(decide.read_text() + ALWAYS_PASS)
    head = commit_speed(work, {"b": {"factor": 1.2}}, "slow b; loosen policy, script and code")
    origin = tmp_path / "server" / "o" / "r.git"
    origin.mkdir(parents=True)
    _git(origin, "init", "-q", "--bare")
    _git(work, "push", "-q", str(origin), f"{base}:refs/heads/main", f"{head}:refs/heads/pr")
    _git(work, "push", "-q", str(origin), f"{head}:refs/pull/{PR}/head")
    return origin, base, head


def _expand(text: str, values: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        return values[match.group(1)]

    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", one, text)


def _python(tmp_path: Path, log: Path) -> Path:
    """The checkout's interpreter as ``make venv`` builds it (see the module docstring)."""
    program = tmp_path / "venv_python.py"
    program.write_text("import json\n" + WRAPPER.format(fakes=str(FAKES), log=str(log)))
    wrapper = tmp_path / "bin" / "python"
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{program}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def _play_job(
    job: dict, workspace: Path, values: dict[str, str], tmp_path: Path, artifacts: Path
) -> tuple[int, str]:
    """Run one job's steps in ``workspace``: (exit code of its last run step, output).
    Uploads copy into ``artifacts/NAME``; downloads of a pattern copy every match back."""
    wrapper = tmp_path / "bin" / "python"
    output, code = "", -1
    for step in job["steps"]:
        uses, run, given = str(step.get("uses", "")), step.get("run"), step.get("with") or {}
        if uses.startswith("actions/checkout@"):
            _git(workspace, "checkout", "-q", "--detach", _expand(given["ref"], values))
        if uses.startswith("actions/upload-artifact@") and (workspace / given["path"]).exists():
            shutil.copytree(workspace / given["path"], artifacts / _expand(given["name"], values))
        if uses.startswith("actions/download-artifact@"):
            for found in sorted(artifacts.glob(given["pattern"])):
                shutil.copytree(found, workspace / given["path"] / found.name)
        if run is None or run.startswith("ci/setup-runner.sh") or "pip install" in run:
            continue
        env = {k: _expand(str(v), values) for k, v in (step.get("env") or {}).items()}
        env = {
            k: (str(tmp_path / "persist") if v.startswith("/var/") else v) for k, v in env.items()
        }
        env |= {
            "PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(tmp_path),
            "PYTHON": str(wrapper),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        }
        done = subprocess.run(
            ["bash", "-e", "-c", run], cwd=workspace, env=env, capture_output=True, text=True
        )
        output += done.stdout + done.stderr
        code = done.returncode
        if "gate.sh" not in run and "perfgate.cli merge" not in run:
            assert code == 0, output
    return code, output


def _play(tmp_path: Path, origin: Path, base: str, head: str) -> tuple[list[int], int, str, Path]:
    """Run perf-gate.yml's bench shards, then its merge job: (exit codes of the shards' gate
    steps, exit code of the merge step, all output, the python-call log)."""
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "perf-gate.yml").read_text())
    jobs = workflow["jobs"]
    values = {
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.head.sha": head,
        "github.event.pull_request.number": PR,
        "github.server_url": f"file://{origin.parent.parent}",
        "github.repository": "o/r",
    }
    log = tmp_path / "python-calls.jsonl"
    _python(tmp_path, log)
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    shards = jobs["bench"]["strategy"]["matrix"]["shard"]
    codes, output = [], ""
    for shard in shards:
        workspace = tmp_path / f"runner-{shard}" / "work"
        subprocess.run(["git", "clone", "-q", str(origin), str(workspace)], check=True)
        matrix = {"matrix.shard": str(shard), "strategy.job-total": str(len(shards))}
        code, out = _play_job(jobs["bench"], workspace, values | matrix, tmp_path, artifacts)
        codes.append(code)
        output += out
    workspace = tmp_path / "hosted" / "work"
    subprocess.run(["git", "clone", "-q", str(origin), str(workspace)], check=True)
    merge_code, out = _play_job(jobs["merge"], workspace, values, tmp_path, artifacts)
    return codes, merge_code, output + out, log


def test_a_head_that_rewrites_the_gate_is_judged_by_the_base(tmp_path: Path) -> None:
    origin, base, head = _project(tmp_path)
    codes, merge_code, output, log = _play(tmp_path, origin, base, head)
    assert "PLANTED-GATE" not in output, "the head's ci/gate.sh ran"
    assert codes == [0, 0], output  # shards measure and decide nothing
    assert merge_code == 1, output  # the 20% slowdown blocks
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    gate_calls = [c for c in calls if c["argv"][2] == "gate"]
    assert [c["argv"][c["argv"].index("--shard") + 1] for c in gate_calls] == ["1/2", "2/2"]
    for shard, call in enumerate(gate_calls, start=1):
        assert call["argv"][call["argv"].index("--head") + 1] == head
        workspace = tmp_path / f"runner-{shard}" / "work"
        assert call["perfgate"].startswith(str(workspace / "src" / "perfgate"))
        assert _git(workspace, "rev-parse", "HEAD") == base, "the tool is the base commit"
    hosted = tmp_path / "hosted" / "work"
    merge_call = next(c for c in calls if c["argv"][2] == "merge")
    assert merge_call["perfgate"].startswith(str(hosted / "src" / "perfgate"))
    assert _git(hosted, "rev-parse", "HEAD") == base
    verdict = json.loads((hosted / "reports" / "gate" / "verdict.json").read_text())
    assert verdict["verdict"] == "regression" and verdict["head"] == head
    report = (hosted / "reports" / "gate" / "report.md").read_text()
    assert f"configuration: {base[:12]}:pyproject.toml" in report
    assert "shard 1/2 (runner" in report and "shard 2/2 (runner" in report
    assert (tmp_path / "artifacts" / "perfgate-report" / "verdict.json").exists()
