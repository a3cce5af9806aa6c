"""`perfgate parity-result`: a CI run of the parity command recorded for one head commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfgate import cli

SHA = "0123456789abcdef0123456789abcdef01234567"
JUNIT = """<testsuites><testsuite tests="3">
<testcase classname="tests.a_test" name="test_ok" file="tests/a_test.py"/>
<testcase classname="tests.a_test" name="test_{name}" file="tests/a_test.py">{outcome}</testcase>
<testcase classname="tests.a_test.TestB" name="test_b" file="tests/a_test.py"/>
</testsuite></testsuites>
"""


def _junit(tmp_path: Path, outcome: str = "", name: str = "two") -> Path:
    path = tmp_path / "junit.xml"
    path.write_text(JUNIT.format(outcome=outcome, name=name))
    return path


def _run(tmp_path: Path, code: int, junit: Path | None, *extra: str) -> tuple[int, dict | None]:
    out = tmp_path / "result" / "parity-result.json"
    argv = ["parity-result", "--sha", SHA, "--exit-code", str(code), "--out", str(out), *extra]
    argv += ["--junit", str(junit)] if junit is not None else []
    status = cli.main(argv)
    return status, json.loads(out.read_text()) if out.exists() else None


def test_a_passing_run(tmp_path: Path) -> None:
    code, data = _run(tmp_path, 0, _junit(tmp_path))
    assert code == 0
    assert data == {
        "status": "passed",
        "sha": SHA,
        "command": "make test-all",
        "summary": "3 tests, none failed",
        "failed_tests": [],
    }


def test_a_failing_run_names_its_failing_tests(tmp_path: Path) -> None:
    code, data = _run(tmp_path, 2, _junit(tmp_path, "<failure message='x'/>"))
    assert code == 0 and data is not None
    assert (data["status"], data["failed_tests"]) == ("failed", ["tests/a_test.py::test_two"])
    assert data["summary"] == "exit 2; 1 of 3 tests failed"


def test_a_failing_test_under_exit_0_is_a_failure(tmp_path: Path) -> None:
    """Fail closed: the report says a test failed, whatever the exit code says."""
    _code, data = _run(tmp_path, 0, _junit(tmp_path, "<error message='x'/>"))
    assert data is not None and data["status"] == "failed"


def test_a_failure_before_pytest_ran(tmp_path: Path) -> None:
    """ruff or mypy failed first: no JUnit report, failed, and the log is where to look."""
    code, data = _run(tmp_path, 2, tmp_path / "missing.xml")
    assert code == 0 and data is not None
    assert data["status"] == "failed" and data["failed_tests"] == []
    assert "see the parity job's log" in data["summary"]


def test_exit_0_without_its_junit_report_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = _run(tmp_path, 0, tmp_path / "missing.xml")
    assert (code, data) == (3, None)
    assert "missing.xml: does not exist, yet the command exited 0" in capsys.readouterr().err


def test_never_overwrites_a_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path, 0, _junit(tmp_path))
    code, data = _run(tmp_path, 2, None)
    assert code == 3 and data is not None and data["status"] == "passed"
    assert "never overwritten" in capsys.readouterr().err


def test_a_short_commit_id_is_a_usage_error(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    argv = ["parity-result", "--sha", SHA[:12], "--exit-code", "0", "--out", str(out)]
    assert cli.main(argv) == 3 and not out.exists()


def test_secrets_are_redacted_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test id that carries a secret (a parameter value, say) is written redacted."""
    monkeypatch.setenv("DEPLOY_TOKEN", "s3cr3t-value-123")
    junit = _junit(tmp_path, "<failure/>", name="login[s3cr3t-value-123]")
    _code, data = _run(tmp_path, 1, junit, "--command", "make test-all TOKEN=s3cr3t-value-123")
    assert data is not None
    assert "s3cr3t-value-123" not in json.dumps(data)
    assert data["failed_tests"] == ["tests/a_test.py::test_login[***]"]
