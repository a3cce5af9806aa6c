"""perf-gate.yml, through the reusable gate.yml it calls (its parity job, bench shards and
merge job), played step by step on a throwaway repository: a same-repository pull request is
measured and judged by the *base* commit's tooling, whatever the head rewrites, and the gate
takes the parity job's result for the head instead of running parity.

The head commit slows a kernel by 20% and, to pass itself, rewrites its policy
([tool.perfgate] thresholds of 900%), its Makefile (a ``venv`` target that prints a marker:
the bench job's ``setup`` must build the gate from the base's) and
perfgate/src/perfgate (a `decide` that always passes). The called workflow's jobs get the
caller's ``with:`` as ``inputs`` (gate.yml's defaults for the rest), and their steps run as
written in the YAML: ``actions/checkout`` becomes ``git checkout`` of the ref the step
names, every ``run`` step runs in bash (in its ``working-directory``) with the step's
environment (GitHub expressions replaced by the event's and the inputs' values), except the
runner check and the installations; an artifact one job uploads is what another downloads.
The parity job's cache steps are not run and its test command's outcome is given (an exit
code and pytest's JUnit report); its ``python`` is the base checkout's perfgate, as the
job's ``pip install`` of the base makes it. Each shard of the bench job's matrix runs in a
workspace of its own (its own runner). ``PYTHON`` (and ``python`` on the merge job's path)
is the interpreter of the checkout as ``make venv`` would build it: perfgate imported from
the checkout's ``perfgate/src`` and, because no asv may run here, the gate's side runner and
suite discovery replaced by the fakes of the gate tests (which "measure" the ``speed.json``
of each side's exported commit).
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
FAKES = REPO / "tests" / "perfgate"
PR = "5"

WRAPPER = """
import os, sys
sys.path[:0] = [os.path.join(os.getcwd(), "perfgate", "src"), {fakes!r}]
import perfgate
with open({log!r}, "a") as log:
    print(json.dumps({{"perfgate": perfgate.__file__, "argv": sys.argv[1:]}}), file=log)
assert sys.argv[1:3] == ["-m", "perfgate.cli"], sys.argv
from gate_fakes import FakeSides, hooks
from perfgate import cli
from perfgate.gate import run as gate
from perfgate.shards import shard
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
    (work / "Makefile").write_text("venv:\n\t@echo BASE-SETUP\n")
    shutil.copytree(
        REPO / "perfgate" / "src" / "perfgate",
        work / "perfgate" / "src" / "perfgate",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    base = commit_speed(work, {}, "base: the gate")
    pyproject = work / "pyproject.toml"
    pyproject.write_text(CONFIG.replace("default_threshold = 0.05", "default_threshold = 9.0"))
    (work / "Makefile").write_text("venv:\n\t@echo PLANTED-SETUP\n")
    decide = work / "perfgate" / "src" / "perfgate" / "gate" / "decide.py"
    decide.write_text(decide.read_text() + ALWAYS_PASS)
    head = commit_speed(work, {"b": {"factor": 1.2}}, "slow b; loosen policy, setup and code")
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


def _workflow(name: str = "perf-gate.yml") -> dict:
    return yaml.safe_load((REPO / ".github" / "workflows" / name).read_text())


def _jobs() -> dict:
    """The jobs perf-gate.yml runs: those of the workflow its one job calls."""
    (caller,) = _workflow()["jobs"].values()
    assert caller["uses"].split(" ")[0] == "./.github/workflows/gate.yml"
    return _workflow("gate.yml")["jobs"]


def _inputs(event: dict[str, str]) -> dict[str, str]:
    """``inputs.NAME`` as gate.yml sees them: the caller's ``with:`` (GitHub expressions
    replaced by the event's values), else the input's default."""
    (caller,) = _workflow()["jobs"].values()
    declared = _workflow("gate.yml")[True]["workflow_call"]["inputs"]
    given = {k: _expand(str(v), event) for k, v in caller["with"].items()}
    assert set(given) <= set(declared), "the caller passes only inputs gate.yml declares"
    return {f"inputs.{k}": given.get(k, str(d.get("default", ""))) for k, d in declared.items()}


def _values(tmp_path: Path, origin: Path, base: str, head: str, job: str) -> dict[str, str]:
    temp = tmp_path / job / "temp"
    temp.mkdir(parents=True, exist_ok=True)
    event = {
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.head.sha": head,
        "github.event.pull_request.number": PR,
        "github.server_url": f"file://{origin.parent.parent}",
        "github.repository": "o/r",
        "runner.temp": str(temp),
    }
    return event | _inputs(event)


def _artifact_step(step: dict, values: dict[str, str], workspace: Path, artifacts: Path) -> None:
    """upload-artifact keeps what its path names (a folder's contents, or one file) as
    ``artifacts/NAME``; download-artifact by name extracts it into its path, by pattern each
    match into ``path/NAME``."""
    uses, given = str(step.get("uses", "")), step.get("with") or {}
    if uses.startswith("actions/upload-artifact@"):
        found = workspace / _expand(given["path"], values)
        kept = artifacts / _expand(given["name"], values)
        if found.is_dir():
            shutil.copytree(found, kept)
        elif found.is_file():
            kept.mkdir(parents=True)
            shutil.copy2(found, kept / found.name)
    elif uses.startswith("actions/download-artifact@"):
        folder = workspace / _expand(given["path"], values)
        if "name" in given:
            if (artifacts / given["name"]).is_dir():
                shutil.copytree(artifacts / given["name"], folder, dirs_exist_ok=True)
            return
        for found in sorted(artifacts.glob(given["pattern"])):
            shutil.copytree(found, folder / found.name)


def _python(tmp_path: Path, log: Path) -> Path:
    """The checkout's interpreter as ``make venv`` builds it (see the module docstring)."""
    program = tmp_path / "venv_python.py"
    program.write_text("import json\n" + WRAPPER.format(fakes=str(FAKES), log=str(log)))
    wrapper = tmp_path / "bin" / "python"
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{program}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def _play_parity(
    tmp_path: Path,
    origin: Path,
    commits: tuple[str, str],
    tests: tuple[int, str],
    artifacts: Path,
) -> None:
    """Run gate.yml's parity job as perf-gate.yml calls it, its test command's outcome being
    ``tests`` (exit code, JUnit XML); its upload lands in ``artifacts``."""
    base, head = commits
    values = _values(tmp_path, origin, base, head, "parity")
    workspace = tmp_path / "parity" / "work"
    tool = tmp_path / "parity" / "bin"
    tool.mkdir()
    (tool / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (tool / "python").chmod(0o755)
    for step in _jobs()["parity"]["steps"]:
        run, given = step.get("run"), step.get("with", {})
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            where = workspace / given["path"]
            subprocess.run(["git", "clone", "-q", str(origin), str(where)], check=True)
            _git(where, "checkout", "-q", "--detach", _expand(given["ref"], values))
        _artifact_step(step, values, workspace, artifacts)
        # the installation and the cache (its key's version command) are the runner's business
        if run is None or "pip install" in run or step.get("id") == "cache-version":
            continue
        env = {k: _expand(str(v), values) for k, v in (step.get("env") or {}).items()}
        env |= {"PATH": f"{tool}:{os.environ['PATH']}", "HOME": str(tmp_path)}
        env |= {
            "RUNNER_TEMP": values["runner.temp"],
            "PYTHONPATH": str(workspace / "tool/perfgate/src"),
            "GITHUB_OUTPUT": str(tmp_path / "parity" / "step-output"),
        }
        if step.get("id") == "tests":  # the head's test command: its outcome is given
            assert env["COMMAND"] == "make test-all" and "--junitxml=" in run
            assert step["working-directory"] == "head"
            junit = Path(values["runner.temp"]) / "parity" / "junit.xml"
            junit.parent.mkdir(parents=True)
            junit.write_text(tests[1])
            values["steps.tests.outputs.exit_code"] = str(tests[0])
            continue
        cwd = workspace / step.get("working-directory", ".")
        done = subprocess.run(
            ["bash", "-e", "-c", run], cwd=cwd, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr


def _play_job(
    job: dict, workspace: Path, values: dict[str, str], tmp_path: Path, artifacts: Path
) -> tuple[int, str]:
    """Run one job's steps in ``workspace``: (exit code of its last run step, output).
    Artifacts move through ``artifacts`` (``_artifact_step``)."""
    wrapper = tmp_path / "bin" / "python"
    output, code = "", -1
    for step in job["steps"]:
        uses, run, given = str(step.get("uses", "")), step.get("run"), step.get("with") or {}
        if uses.startswith("actions/checkout@"):
            _git(workspace, "checkout", "-q", "--detach", _expand(given["ref"], values))
        _artifact_step(step, values, workspace, artifacts)
        # the runner's tuning is the runner's business; so are the hosted jobs' installations
        if run is None or "doctor --only runner" in run or "pip install" in run:
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
            "GITHUB_OUTPUT": str(workspace.parent / "step-output"),
            "RUNNER_TEMP": values["runner.temp"],
        }
        done = subprocess.run(
            ["bash", "-e", "-c", run], cwd=workspace, env=env, capture_output=True, text=True
        )
        output += done.stdout + done.stderr
        code = done.returncode
        if "perfgate.cli gate" not in run and "perfgate.cli merge" not in run:
            assert code == 0, output
    return code, output


def _play(
    tmp_path: Path, origin: Path, base: str, head: str, artifacts: Path
) -> tuple[list[int], int, str, Path]:
    """Run perf-gate.yml's bench shards, then its merge job: (exit codes of the shards' gate
    steps, exit code of the merge step, all output, the python-call log)."""
    jobs = _jobs()
    log = tmp_path / "python-calls.jsonl"
    _python(tmp_path, log)
    shards = json.loads(_values(tmp_path, origin, base, head, "plan")["inputs.shards"])
    codes, output = [], ""
    for shard in shards:
        workspace = tmp_path / f"runner-{shard}" / "work"
        subprocess.run(["git", "clone", "-q", str(origin), str(workspace)], check=True)
        values = _values(tmp_path, origin, base, head, f"bench-{shard}")
        values |= {"matrix.shard": str(shard), "strategy.job-total": str(len(shards))}
        code, out = _play_job(jobs["bench"], workspace, values, tmp_path, artifacts)
        codes.append(code)
        output += out
    workspace = tmp_path / "hosted" / "work"
    subprocess.run(["git", "clone", "-q", str(origin), str(workspace)], check=True)
    values = _values(tmp_path, origin, base, head, "merge")
    merge_code, out = _play_job(jobs["merge"], workspace, values, tmp_path, artifacts)
    return codes, merge_code, output + out, log


def _play_all(
    tmp_path: Path, tests: tuple[int, str] | None
) -> tuple[list[int], int, str, Path, tuple[str, str]]:
    """The parity job (outcome ``tests``; None: it died before uploading), then the bench
    shards and the merge: (shard codes, merge code, output, python-call log, (base, head))."""
    origin, base, head = _project(tmp_path)
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    if tests is not None:
        _play_parity(tmp_path, origin, (base, head), tests, artifacts)
    codes, merge_code, output, log = _play(tmp_path, origin, base, head, artifacts)
    return codes, merge_code, output, log, (base, head)


PASSING = """<testsuites><testsuite tests="2">
<testcase classname="tests.k_test" name="test_same" file="tests/k_test.py"/>
<testcase classname="tests.k_test.TestK" name="test_k" file="tests/k_test.py"/>
</testsuite></testsuites>"""


def test_a_head_that_rewrites_the_gate_is_judged_by_the_base(tmp_path: Path) -> None:
    codes, merge_code, output, log, (base, head) = _play_all(tmp_path, (0, PASSING))
    assert "PLANTED-SETUP" not in output, "the head's Makefile built the gate"
    assert output.count("BASE-SETUP") == 2, "each shard builds the gate from the base"
    assert codes == [0, 0], output  # shards measure and decide nothing
    assert merge_code == 1, output  # the 20% slowdown blocks
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    gate_calls = [c for c in calls if c["argv"][2] == "gate"]
    assert [c["argv"][c["argv"].index("--shard") + 1] for c in gate_calls] == ["1/2", "2/2"]
    for shard, call in enumerate(gate_calls, start=1):
        assert call["argv"][call["argv"].index("--head") + 1] == head
        # parity came from the parity job, for this head, and was not run again here
        assert "--parity-result" in call["argv"]
        workspace = tmp_path / f"runner-{shard}" / "work"
        assert call["perfgate"].startswith(str(workspace / "perfgate" / "src" / "perfgate"))
        assert _git(workspace, "rev-parse", "HEAD") == base, "the tool is the base commit"
    hosted = tmp_path / "hosted" / "work"
    merge_call = next(c for c in calls if c["argv"][2] == "merge")
    assert merge_call["perfgate"].startswith(str(hosted / "perfgate" / "src" / "perfgate"))
    assert _git(hosted, "rev-parse", "HEAD") == base
    verdict = json.loads((hosted / "reports" / "gate" / "verdict.json").read_text())
    assert verdict["verdict"] == "regression" and verdict["head"] == head
    report = (hosted / "reports" / "gate" / "report.md").read_text()
    assert f"configuration: {base[:12]}:pyproject.toml" in report
    assert "shard 1/2 (runner" in report and "shard 2/2 (runner" in report
    assert "passed: make test-all (2 tests, none failed)" in report
    assert (tmp_path / "artifacts" / "perfgate-report" / "verdict.json").exists()
    # the merge job's output: the digest of the report files it wrote, for `post`
    outputs = (hosted.parent / "step-output").read_text()
    assert "report-digest=sha256:" in outputs


def test_the_bench_job_needs_the_parity_job_and_passes_its_file() -> None:
    """bench waits for parity, downloads the artifact parity uploads, and the gate step
    names the downloaded file; parity tests the head and writes with the base's tooling."""
    jobs = _jobs()
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
    assert refs == {"tool": "${{ inputs.base }}", "head": "${{ inputs.head }}"}
    upload = next(s for s in parity["steps"] if "upload-artifact" in str(s.get("uses")))
    write = next(s for s in parity["steps"] if "parity-result" in str(s.get("run")))
    assert write["env"]["HEAD_SHA"] == "${{ inputs.head }}"
    assert upload["with"]["path"] in write["run"].replace('"$RUNNER_TEMP', "${{ runner.temp }}")
    download = next(s for s in bench["steps"] if "download-artifact" in str(s.get("uses")))
    assert download["with"]["name"] == upload["with"]["name"]
    gate_step = next(s for s in bench["steps"] if "perfgate.cli gate" in str(s.get("run")))
    parity_file = "${{ runner.temp }}/parity-result/parity-result.json"
    assert '"$RUNNER_TEMP/parity-result/parity-result.json"' in gate_step["run"]
    assert str(Path(parity_file).parent) == download["with"]["path"]
    assert Path(parity_file).name == Path(upload["with"]["path"]).name
    names = [s.get("name") or s.get("uses") for s in bench["steps"]]
    assert names.index(download.get("name")) < names.index(gate_step.get("name"))


def test_a_failing_parity_job_fails_the_gate_naming_the_tests(tmp_path: Path) -> None:
    """make test-all failed at the head: every shard is exit 2 before anything is measured,
    and the merged verdict (the posted status's summary) names the failing test."""
    failing = PASSING.replace(
        'name="test_k" file="tests/k_test.py"/>',
        'name="test_k" file="tests/k_test.py"><failure message="x"/></testcase>',
    )
    codes, merge_code, output, _log, _revs = _play_all(tmp_path, (2, failing))
    assert codes == [2, 2] and merge_code == 2, output
    hosted = tmp_path / "hosted" / "work"
    verdict = json.loads((hosted / "reports" / "gate" / "verdict.json").read_text())
    assert verdict["verdict"] == "parity_failure"
    assert "failing: tests/k_test.py::TestK::test_k" in verdict["summary"]


def test_no_parity_result_is_an_error_not_a_parity_run(tmp_path: Path) -> None:
    """The parity job died before uploading: every shard refuses (exit 3) instead of running
    parity, and so does the merge."""
    codes, merge_code, output, log, _revs = _play_all(tmp_path, None)
    assert codes == [3, 3] and merge_code == 3, output
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert all("--parity-result" in c["argv"] for c in calls if c["argv"][2] == "gate")
    hosted = tmp_path / "hosted" / "work"
    verdict = json.loads((hosted / "reports" / "gate" / "verdict.json").read_text())
    assert verdict["verdict"] == "error"
