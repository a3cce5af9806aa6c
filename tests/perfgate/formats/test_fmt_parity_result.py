"""The parity-result file: written once, atomically; refused for another commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfgate.errors import UserError
from perfgate.formats.parity_result import read_parity, write_parity
from perfgate.model import ParityResult, ParityStatus

HEAD = "a" * 40
OTHER = "b" * 40


def _failed() -> ParityResult:
    tests = ("tests/a_test.py::test_one", "tests/b_test.py::TestB::test_two[1]")
    return ParityResult(ParityStatus.FAILED, "make test-all", "exit 2", HEAD, tests)


def test_round_trip_names_the_failing_tests(tmp_path: Path) -> None:
    """What is written is read back, and the failing tests lead the details."""
    path = write_parity(tmp_path / "parity.json", _failed())
    read = read_parity(str(path), head=HEAD, require_sha=True)
    assert read == _failed()
    assert read.details == (
        "failing: tests/a_test.py::test_one, tests/b_test.py::TestB::test_two[1]; exit 2"
    )


def test_never_overwritten(tmp_path: Path) -> None:
    """A second result at the same path is refused; the first stays as it was."""
    path = write_parity(tmp_path / "parity.json", _failed())
    before = path.read_bytes()
    passed = ParityResult(ParityStatus.PASSED, "make test-all", "", HEAD)
    with pytest.raises(UserError, match="never overwritten"):
        write_parity(path, passed)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["parity.json"]  # no temporary left


def test_a_result_of_another_commit_is_refused(tmp_path: Path) -> None:
    """The error names the file and both commits."""
    path = write_parity(tmp_path / "parity.json", _failed())
    with pytest.raises(UserError) as caught:
        read_parity(str(path), head=OTHER)
    message = str(caught.value)
    assert str(path) in message and HEAD in message and OTHER in message


def test_a_result_without_a_commit(tmp_path: Path) -> None:
    """Older files (no sha) are read when no commit is required, refused when one is."""
    path = tmp_path / "parity.json"
    path.write_text(json.dumps({"status": "passed", "command": "make"}))
    assert read_parity(str(path), head=HEAD) == ParityResult(ParityStatus.PASSED, "make")
    with pytest.raises(UserError, match="records no 'sha'"):
        read_parity(str(path), head=HEAD, require_sha=True)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"status": "passed", "sha": "abc"}, "full commit id"),
        ({"status": "failed", "sha": HEAD, "failed_tests": "t::x"}, "list of test ids"),
        ({"status": "fine"}, "expected {'status': one of"),
    ],
)
def test_malformed_files_are_refused(tmp_path: Path, data: dict, message: str) -> None:
    path = tmp_path / "parity.json"
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match=message):
        read_parity(str(path))


def test_many_failing_tests_are_counted_past_the_first_twenty() -> None:
    tests = tuple(f"t.py::test_{i}" for i in range(23))
    details = ParityResult(ParityStatus.FAILED, failed_tests=tests).details
    assert details.startswith("failing: t.py::test_0, ") and details.endswith("(+3 more)")
    assert "test_19" in details and "test_20" not in details
