"""perfgate.formats.report_files: the report digest that ties posted files to the gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.formats.report_files import check_digest, read_report, write_reports

VERDICT = {"verdict": "regression", "exit_code": 1, "summary": "slower", "head": "a" * 40}


def test_the_digest_is_of_the_files_as_written(tmp_path: Path) -> None:
    """write_reports returns the digest of the bytes it wrote; the folder checks against it."""
    digest = write_reports(tmp_path, "# report ✓\n", "<p>report</p>", VERDICT)
    assert digest.startswith("sha256:") and len(digest) == len("sha256:") + 64
    check_digest(tmp_path, digest)
    assert read_report(tmp_path, expect_digest=digest).verdict == "regression"


@pytest.mark.parametrize("name", ["report.md", "report.html", "verdict.json"])
def test_a_file_changed_after_the_gate_is_refused(tmp_path: Path, name: str) -> None:
    """Any of the three files rewritten, or gone, no longer matches the gate's digest."""
    digest = write_reports(tmp_path, "# report\n", "<p>report</p>", VERDICT)
    path = tmp_path / name
    path.write_bytes(path.read_bytes().replace(b"report", b"repOrt").replace(b"regr", b"pass"))
    with pytest.raises(ValueError, match="not the ones the gate wrote"):
        read_report(tmp_path, expect_digest=digest)
    path.unlink()
    with pytest.raises(ValueError, match=name):
        check_digest(tmp_path, digest)


def test_no_digest_from_the_gate_is_refused(tmp_path: Path) -> None:
    """An empty digest (the gate wrote no report, the CI output is empty) trusts nothing."""
    write_reports(tmp_path, "# report\n", "<p>report</p>", VERDICT)
    with pytest.raises(ValueError, match="no report digest"):
        check_digest(tmp_path, " ")
