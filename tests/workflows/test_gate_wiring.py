"""perf-gate.yml's parity and bench jobs, played step by step on a throwaway repository: a
same-repository pull request is measured by the *base* commit's tooling, whatever the head
rewrites, and the gate takes the parity job's result for the head instead of running parity.

The head commit slows a kernel by 20% and, to pass itself, rewrites its policy
([tool.perfgate] thresholds of 900%), ci/gate.sh (prints a marker and exits 0) and
src/perfgate (a `decide` that always passes). The job's steps run as written in the YAML:
``actions/checkout`` becomes ``git checkout`` of the ref the step names, every ``run`` step
runs in bash with the step's environment (GitHub expressions replaced by the event's
values), except the host-tuning check; an artifact one job uploads is what another downloads.
The parity job's ``make venv`` and ``make test-all`` are not run: their outcome is given (an
exit code and pytest's JUnit report), and its ``python`` is the base checkout's perfgate, as
the job's ``pip install`` of the base makes it. ``PYTHON`` is the interpreter of the checkout as
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


def _workflow() -> dict:
    return yaml.safe_load((REPO / ".github" / "workflows" / "perf-gate.yml").read_text())


def _values(tmp_path: Path, origin: Path, base: str, head: str, job: str) -> dict[str, str]:
    temp = tmp_path / job / "temp"
    temp.mkdir(parents=True)
    return {
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.head.sha": head,
        "github.event.pull_request.number": PR,
        "github.server_url": f"file://{origin.parent.parent}",
        "github.repository": "o/r",
        "runner.temp": str(temp),
    }


def _artifact_step(step: dict, values: dict[str, str], artifacts: dict[str, Path]) -> None:
    """upload-artifact keeps the file it names; download-artifact puts it in its folder."""
    uses, given = str(step.get("uses", "")), step.get("with", {})
    if uses.startswith("actions/upload-artifact@"):
        artifacts[given["name"]] = Path(_expand(given["path"], values))
    elif uses.startswith("actions/download-artifact@") and given["name"] in artifacts:
        folder = Path(_expand(given["path"], values))
        folder.mkdir(parents=True, exist_ok=True)
        found = artifacts[given["name"]]
        shutil.copy2(found, folder / found.name)


def _play_parity(
    tmp_path: Path, origin: Path, commits: tuple[str, str], tests: tuple[int, str]
) -> dict[str, Path]:
    """Run perf-gate.yml's parity job, its test run's outcome being ``tests`` (exit code,
    JUnit XML); returns the artifacts it uploaded, by name."""
    base, head = commits
    values = _values(tmp_path, origin, base, head, "parity")
    workspace = tmp_path / "parity" / "work"
    tool = tmp_path / "parity" / "bin"
    tool.mkdir()
    (tool / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (tool / "python").chmod(0o755)
    artifacts: dict[str, Path] = {}
    for step in _workflow()["jobs"]["parity"]["steps"]:
        run, given = step.get("run"), step.get("with", {})
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            where = workspace / given["path"]
            subprocess.run(["git", "clone", "-q", str(origin), str(where)], check=True)
            _git(where, "checkout", "-q", "--detach", _expand(given["ref"], values))
        _artifact_step(step, values, artifacts)
        if run is None or "pip install" in run or "make -C head venv" in run:
            continue
        env = {k: _expand(str(v), values) for k, v in (step.get("env") or {}).items()}
        env |= {"PATH": f"{tool}:{os.environ['PATH']}", "HOME": str(tmp_path)}
        env |= {"RUNNER_TEMP": values["runner.temp"], "PYTHONPATH": str(workspace / "tool/src")}
        if step.get("id") == "tests":  # make test-all at the head: its outcome is given
            assert "make -C head test-all" in run and "--junitxml=" in run
            junit = Path(values["runner.temp"]) / "parity" / "junit.xml"
            junit.parent.mkdir(parents=True)
            junit.write_text(tests[1])
            values["steps.tests.outputs.exit_code"] = str(tests[0])
            continue
        done = subprocess.run(
            ["bash", "-e", "-c", run], cwd=workspace, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return artifacts


def _play_bench(
    tmp_path: Path, origin: Path, base: str, head: str, artifacts: dict[str, Path]
) -> tuple[int, str, Path]:
    """Run perf-gate.yml's bench steps; (exit code of the gate step, output, workspace)."""
    workflow = _workflow()
    values = _values(tmp_path, origin, base, head, "bench")
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
        _artifact_step(step, values, artifacts)
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


PASSING = """<testsuites><testsuite tests="2">
<testcase classname="tests.k_test" name="test_same" file="tests/k_test.py"/>
<testcase classname="tests.k_test.TestK" name="test_k" file="tests/k_test.py"/>
</testsuite></testsuites>"""


def test_a_head_that_rewrites_the_gate_is_judged_by_the_base(tmp_path: Path) -> None:
    origin, base, head = _project(tmp_path)
    artifacts = _play_parity(tmp_path, origin, (base, head), (0, PASSING))
    code, output, log = _play_bench(tmp_path, origin, base, head, artifacts)
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
    # parity came from the parity job, for this head, and was not run again here
    assert "--parity-result" in gate_call["argv"]
    assert f"CI's run at this head ({head[:12]}); not re-run on this machine" in report
    assert "passed: make test-all (2 tests, none failed)" in report


def test_the_bench_job_needs_the_parity_job_and_passes_its_file() -> None:
    """bench waits for parity, downloads the artifact parity uploads, and the gate step
    names the downloaded file; parity tests the head and writes with the base's tooling."""
    jobs = _workflow()["jobs"]
    parity, bench = jobs["parity"], jobs["bench"]
    needs = bench["needs"]
    assert "parity" in ([needs] if isinstance(needs, str) else needs)
    assert parity["runs-on"] == "ubuntu-latest"
    assert parity["permissions"] == {"contents": "read"}
    refs = {
        s["with"]["path"]: s["with"]["ref"]
        for s in parity["steps"]
        if str(s.get("uses", "")).startswith("actions/checkout@")
    }
    assert refs == {
        "tool": "${{ github.event.pull_request.base.sha }}",
        "head": "${{ github.event.pull_request.head.sha }}",
    }
    upload = next(s for s in parity["steps"] if "upload-artifact" in str(s.get("uses")))
    write = next(s for s in parity["steps"] if "parity-result" in str(s.get("run")))
    assert write["env"]["HEAD_SHA"] == "${{ github.event.pull_request.head.sha }}"
    assert upload["with"]["path"] in write["run"].replace('"$RUNNER_TEMP', "${{ runner.temp }}")
    download = next(s for s in bench["steps"] if "download-artifact" in str(s.get("uses")))
    assert download["with"]["name"] == upload["with"]["name"]
    gate_step = next(s for s in bench["steps"] if s.get("run") == "ci/gate.sh")
    parity_file = gate_step["env"]["PERFGATE_PARITY_RESULT"]
    assert str(Path(parity_file).parent) == download["with"]["path"]
    assert Path(parity_file).name == Path(upload["with"]["path"]).name
    names = [s.get("name") or s.get("uses") for s in bench["steps"]]
    assert names.index(download.get("name")) < names.index(gate_step.get("name"))


def test_a_failing_parity_job_fails_the_gate_naming_the_tests(tmp_path: Path) -> None:
    """make test-all failed at the head: exit 2 before anything is measured, and the verdict
    (the posted status's summary) names the failing test."""
    origin, base, head = _project(tmp_path)
    failing = PASSING.replace(
        'name="test_k" file="tests/k_test.py"/>',
        'name="test_k" file="tests/k_test.py"><failure message="x"/></testcase>',
    )
    artifacts = _play_parity(tmp_path, origin, (base, head), (2, failing))
    code, output, _log = _play_bench(tmp_path, origin, base, head, artifacts)
    assert code == 2, output
    workspace = tmp_path / "runner" / "work"
    verdict = json.loads((workspace / "reports" / "gate" / "verdict.json").read_text())
    assert verdict["verdict"] == "parity_failure"
    assert "failing: tests/k_test.py::TestK::test_k" in verdict["summary"]


def test_no_parity_result_is_an_error_not_a_parity_run(tmp_path: Path) -> None:
    """The parity job died before uploading: the gate refuses (exit 3) instead of passing."""
    origin, base, head = _project(tmp_path)
    code, output, _log = _play_bench(tmp_path, origin, base, head, {})
    assert code == 3, output
    workspace = tmp_path / "runner" / "work"
    verdict = json.loads((workspace / "reports" / "gate" / "verdict.json").read_text())
    assert verdict["verdict"] == "error" and "parity-result.json" in verdict["summary"]
