"""pytest's JUnit XML: failing tests by node id, counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.errors import ResultFileError
from perfgate.formats.junit import read_junit

XUNIT1 = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="2" skipped="1" tests="5">
<testcase classname="tests.pkg.a_test" name="test_ok" file="tests/pkg/a_test.py" line="3"/>
<testcase classname="tests.pkg.a_test" name="test_bad[2-x]" file="tests/pkg/a_test.py">
  <failure message="assert 1 == 2">trace</failure></testcase>
<testcase classname="tests.pkg.a_test.TestK" name="test_k" file="tests/pkg/a_test.py">
  <error message="fixture failed">trace</error></testcase>
<testcase classname="tests.b_test.TestOuter.TestInner" name="test_in" file="tests/b_test.py">
  <failure message="no">trace</failure></testcase>
<testcase classname="tests.b_test" name="test_skip" file="tests/b_test.py">
  <skipped message="later"/></testcase>
</testsuite></testsuites>
"""


def test_failing_tests_by_node_id(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(XUNIT1)
    report = read_junit(path)
    assert report.tests == 5
    assert report.failed == (
        "tests/pkg/a_test.py::test_bad[2-x]",
        "tests/pkg/a_test.py::TestK::test_k",
        "tests/b_test.py::TestOuter::TestInner::test_in",
    )


def test_without_file_attributes_classname_and_name(tmp_path: Path) -> None:
    """pytest's default junit family records no file: ``classname::name``."""
    path = tmp_path / "junit.xml"
    path.write_text(
        '<testsuite tests="1"><testcase classname="tests.a_test" name="test_x">'
        "<failure/></testcase></testsuite>"
    )
    assert read_junit(path).failed == ("tests.a_test::test_x",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<testsuites><testcase", "not a readable JUnit XML report"),
        ("<html/>", "expected <testsuites> or <testsuite>"),
    ],
)
def test_bad_reports_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(text)
    with pytest.raises(ResultFileError, match=message):
        read_junit(path)
    with pytest.raises(ResultFileError, match="does not exist"):
        read_junit(tmp_path / "missing.xml")
