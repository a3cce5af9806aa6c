"""A JUnit XML report (pytest's ``--junitxml``): the only reader.

Only what a parity result needs: how many test cases ran and the ids of those that failed
or errored. With ``-o junit_family=xunit1`` pytest records each case's ``file``, so the ids
are pytest node ids (``tests/a_test.py::TestX::test_y[1]``); without it they are
``classname::name``. Python's bundled expat refuses entity-expansion bombs, and the file comes
from the workflow's own parity job.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from perfgate.errors import ResultFileError


@dataclass(frozen=True)
class JUnitReport:
    """Test cases run and the ids of the failing ones (failures and errors, in file order)."""

    tests: int
    failed: tuple[str, ...]


def node_id(case: ET.Element) -> str:
    """A test case's pytest node id (from ``file``), else ``classname::name``."""
    name = case.get("name", "")
    classname = case.get("classname", "")
    path = case.get("file")
    if path and path.endswith(".py"):
        module = path[: -len(".py")].replace("/", ".")
        inner = classname[len(module) + 1 :] if classname.startswith(module + ".") else ""
        return "::".join(part for part in (path, *inner.split("."), name) if part)
    return f"{classname}::{name}" if classname else name


def _failed(case: ET.Element) -> bool:
    return case.find("failure") is not None or case.find("error") is not None


def read_junit(path: Path) -> JUnitReport:
    """Read a JUnit XML file; a missing, unreadable or malformed one raises `ResultFileError`."""
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise ResultFileError(path, "file does not exist") from None
    except (OSError, ET.ParseError) as exc:
        raise ResultFileError(path, f"not a readable JUnit XML report ({exc})") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise ResultFileError(path, f"expected <testsuites> or <testsuite>, got <{root.tag}>")
    cases = list(root.iter("testcase"))
    failed = tuple(dict.fromkeys(node_id(c) for c in cases if _failed(c)))
    return JUnitReport(len(cases), failed)
