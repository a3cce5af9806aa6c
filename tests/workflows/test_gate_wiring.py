"""perf-gate.yml's bench job, played step by step on a throwaway repository: a same-repository
pull request is measured by the *base* commit's tooling, whatever the head rewrites.

The head commit slows a kernel by 20% and, to pass itself, rewrites its policy
([tool.perfgate] thresholds of 900%), ci/gate.sh (prints a marker and exits 0) and
src/perfgate (a `decide` that always passes). The job's steps run as written in the YAML:
``actions/checkout`` becomes ``git checkout`` of the ref the step names, every ``run`` step
runs in bash with the step's environment (GitHub expressions replaced by the event's
values), except the host-tuning check. ``PYTHON`` is the interpreter of the checkout as
``make venv`` would build it: perfgate imported from the checkout's ``src`` and, because no
asv may run here, the gate's side runner replaced by the fake one of the gate tests (which
"measures" the ``speed.json`` of each side's exported commit).
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
from perfgate.pipeline import gate
gate.Hooks = lambda: hooks(FakeSides(), [])
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

    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", one, text)


def _play_bench(tmp_path: Path, origin: Path, base: str, head: str) -> tuple[int, str, Path]:
    """Run perf-gate.yml's bench steps; (exit code of the gate step, output, workspace)."""
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "perf-gate.yml").read_text())
    values = {
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.head.sha": head,
        "github.event.pull_request.number": PR,
        "github.server_url": f"file://{origin.parent.parent}",
        "github.repository": "o/r",
    }
    workspace = tmp_path / "runner" / "work"
    subprocess.run(["git", "clone", "-q", str(origin), str(workspace)], check=True)
    log = tmp_path / "python-calls.jsonl"
    program = tmp_path / "venv_python.py"
    program.write_text("import json\n" + WRAPPER.format(fakes=str(FAKES), log=str(log)))
    wrapper = tmp_path / "venv-python"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{program}" "$@"\n')
    wrapper.chmod(0o755)
    output, code = "", -1
    for step in workflow["jobs"]["bench"]["steps"]:
        uses, run = str(step.get("uses", "")), step.get("run")
        if uses.startswith("actions/checkout@"):
            _git(workspace, "checkout", "-q", "--detach", _expand(step["with"]["ref"], values))
        if run is None or run.startswith("ci/setup-runner.sh"):
            continue
        env = {k: _expand(str(v), values) for k, v in (step.get("env") or {}).items()}
        env = {
            k: (str(tmp_path / "persist") if v.startswith("/var/") else v) for k, v in env.items()
        }
        env |= {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHON": str(wrapper)}
        done = subprocess.run(
            ["bash", "-e", "-c", run], cwd=workspace, env=env, capture_output=True, text=True
        )
        output += done.stdout + done.stderr
        code = done.returncode
        if "gate.sh" not in run:
            assert code == 0, output
    return code, output, log


def test_a_head_that_rewrites_the_gate_is_judged_by_the_base(tmp_path: Path) -> None:
    origin, base, head = _project(tmp_path)
    code, output, log = _play_bench(tmp_path, origin, base, head)
    assert "PLANTED-GATE" not in output, "the head's ci/gate.sh ran"
    assert code == 1, output  # the 20% slowdown blocks
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    gate_call = next(c for c in calls if c["argv"][2] == "gate")
    assert gate_call["argv"][gate_call["argv"].index("--head") + 1] == head
    workspace = tmp_path / "runner" / "work"
    assert gate_call["perfgate"].startswith(str(workspace / "src" / "perfgate"))
    assert _git(workspace, "rev-parse", "HEAD") == base, "the tool is the base commit"
    verdict = json.loads((workspace / "reports" / "gate" / "verdict.json").read_text())
    assert verdict["verdict"] == "regression"
    report = (workspace / "reports" / "gate" / "report.md").read_text()
    assert f"configuration: {base[:12]}:pyproject.toml" in report
