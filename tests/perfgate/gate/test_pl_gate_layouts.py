"""`perfgate gate` through real asv on project layouts other than this repository's: the
asv configuration in ``benchmarks/`` (suites in ``benchmarks/benchmarks``, numpy's layout)
with the policy in perfgate.toml, and a project with a C extension (``build = "pip"``:
each side built once, then measured from its build).

No timing is asserted: thresholds of 50%, on calls of about 0.1-1 ms (a call of a few
microseconds scattered past 50% on a loaded CI worker and came out inconclusive), make the
verdicts depend on which code ran, not on the machine's noise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_fakes import git

from perfgate import cli

pytestmark = pytest.mark.subprocess

POLICY = """
default_threshold = 0.5
min_samples = 3
max_rounds = 3
confirm = false
"""
SUITE = """
import {module}


class Tiny:
    params = [[20000, 40000]]
    param_names = ["n"]
    number = 5
    repeat = 3
    warmup_time = 0.0

    def time_work(self, n):
        {module}.work(n)
"""
C_SOURCE = """
#include <Python.h>
static PyObject *value(PyObject *self, PyObject *args) { return PyLong_FromLong(VALUE); }
static PyObject *work(PyObject *self, PyObject *arg) {
    long n = PyLong_AsLong(arg);
    double acc = 0.0;
    for (long i = 0; i < n; i++) acc += (double)i * 0.5;
    return PyFloat_FromDouble(acc);
}
static PyMethodDef methods[] = {
    {"value", value, METH_NOARGS, "the value this build was made with"},
    {"work", work, METH_O, "a loop of n steps"},
    {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "cext", NULL, -1, methods};
PyMODINIT_FUNC PyInit_cext(void) { return PyModule_Create(&module); }
"""
SETUP = """
from setuptools import Extension, setup

setup(name="cext", version="0.1", ext_modules=[Extension("cext", ["csrc/cext.c"])])
"""
ASV_CONF = {"version": 1, "project": "p", "environment_type": "virtualenv", "branches": ["main"]}


def _commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # private ~/.asv-machine.json
    (tmp_path / "home").mkdir()
    return tmp_path


def _gate(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str]) -> dict:
    out = repo.parent / f"out-{base[:6]}-{head[:6]}"
    argv = ["gate", "--base", base, "--head", head, "--repo", str(repo), "--quick"]
    code = cli.main([*argv, "--report-dir", str(out), "--machine", "tinybox"])
    printed = capsys.readouterr()
    verdict = json.loads((out / "verdict.json").read_text())
    report = (out / "report.md").read_text()
    err = printed.err[-3000:] + "\n".join(verdict["reasons"])
    return {"code": code, "verdict": verdict, "report": report, "err": err}


def test_asv_conf_in_benchmarks_and_policy_in_perfgate_toml(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No pyproject.toml: perfgate.toml at the base is the policy; asv.conf.json in
    ``benchmarks/`` puts the suites in ``benchmarks/benchmarks``, as asv reads it."""
    repo = home / "repo"
    (repo / "tinypkg").mkdir(parents=True)
    (repo / "tinypkg" / "__init__.py").write_text("def work(n):\n    return sum(range(n))\n")
    suites = repo / "benchmarks" / "benchmarks"
    suites.mkdir(parents=True)
    (suites / "__init__.py").write_text("")
    (suites / "bench_tiny.py").write_text(SUITE.format(module="tinypkg"))
    conf = {**ASV_CONF, "repo": "..", "benchmark_dir": "benchmarks"}
    (repo / "benchmarks" / "asv.conf.json").write_text(json.dumps(conf))
    parity = '\nparity_command = ["{python}", "-c", "import tinypkg"]\n'
    (repo / "perfgate.toml").write_text(POLICY + parity)
    git(repo, "init", "-q", "-b", "main")
    sha = _commit(repo, "tiny")
    run = _gate(repo, sha, sha, capsys)
    assert run["code"] == 0, run["err"]
    assert sorted(c["params"]["n"] for c in run["verdict"]["cases"]) == ["20000", "40000"]
    assert f"configuration: {sha[:12]}:perfgate.toml" in run["report"]
    assert "build: none" in run["report"]


def _c_project(root: Path) -> tuple[Path, str]:
    repo = root / "repo"
    (repo / "csrc").mkdir(parents=True)
    (repo / "csrc" / "cext.c").write_text("#define VALUE 1\n" + C_SOURCE)
    (repo / "setup.py").write_text(SETUP)
    (repo / "benchmarks").mkdir()
    (repo / "benchmarks" / "__init__.py").write_text("")
    (repo / "benchmarks" / "bench_c.py").write_text(SUITE.format(module="cext"))
    (repo / "asv.conf.json").write_text(json.dumps({**ASV_CONF, "repo": "."}))
    # parity at the head asserts the head's own build: 2 (an import of the base's build, or
    # of the sources, which hold no compiled module, fails)
    parity = '["{python}", "-c", "import cext; assert cext.value() == 2, cext.value()"]'
    policy = f'[tool.perfgate]{POLICY}build = "pip"\nparity_command = {parity}\n'
    (repo / "pyproject.toml").write_text(policy)
    git(repo, "init", "-q", "-b", "main")
    return repo, _commit(repo, "C extension, value 1")


@pytest.mark.network  # pip's isolated build environment comes from the package index
def test_a_c_extension_is_built_once_per_side(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``build = "pip"``: both sides built (the sources alone cannot be imported), the
    parity command sees the head's build, the report says how the sides were built; a head
    that does not compile is an error naming its build (exit 3)."""
    repo, base = _c_project(home)
    (repo / "csrc" / "cext.c").write_text("#define VALUE 2\n" + C_SOURCE)
    head = _commit(repo, "value 2")
    run = _gate(repo, base, head, capsys)
    assert run["code"] == 0, run["err"] + run["report"]
    assert sorted(c["params"]["n"] for c in run["verdict"]["cases"]) == ["20000", "40000"]
    assert "build: each side built once with pip" in run["report"]
    (repo / "csrc" / "cext.c").write_text("#define VALUE 3\nnot C at all;\n" + C_SOURCE)
    broken = _commit(repo, "does not compile")
    run = _gate(repo, head, broken, capsys)
    assert run["code"] == 3 and run["verdict"]["verdict"] == "error"
    assert f"build of head {broken[:12]} failed" in run["report"]
