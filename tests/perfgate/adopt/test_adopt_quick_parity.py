"""perfgate.adopt.quick_parity: the parity subset of --quick, in the project's layout."""

from __future__ import annotations

from perfgate.adopt.quick_parity import quick_parity
from perfgate.adopt.survey import PYTEST


def test_tests_naming_a_benchmarked_module_are_the_subset() -> None:
    files = ["tests/test_core.py", "tests/test_io.py", "benchmarks/benchmarks/bench_core.py"]
    guess, example = quick_parity(files, PYTEST, ["bench_core"])
    assert guess.value == (*PYTEST, "tests/test_core.py") and example == ""
    assert "tests/test_core.py" in guess.reason


def test_pyargs_layouts_get_module_names() -> None:
    """Issue 38: the example path did not fit a `--pyargs` layout (tests in the package)."""
    files = ["pkg/__init__.py", "pkg/tests/test_interp.py", "pkg/tests/test_other.py"]
    parity = (*PYTEST, "--pyargs", "pkg")
    guess, _ = quick_parity(files, parity, ["interp_bench"])
    assert guess.value == (*PYTEST, "--pyargs", "pkg.tests.test_interp")
    guess, example = quick_parity(files, parity, ["unrelated"])
    assert guess.value is None and "full suite" in guess.reason
    assert example == (
        '["{python}", "-m", "pytest", "-x", "-q", "--pyargs", "pkg.tests.test_interp"]'
    )


def test_without_pytest_the_full_command_is_kept() -> None:
    guess, example = quick_parity(["Makefile"], ("make", "test"), ["bench_core"])
    assert guess.value is None and "tests/test_core.py" in example
