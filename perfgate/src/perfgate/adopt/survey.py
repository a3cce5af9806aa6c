"""What ``perfgate init`` reads of a project before it proposes a policy, each guess with
the reason it gives: whether the code must be built before it can be imported, which
command tests it, its benchmark families (from asv's discovery) and asv's own thresholds.

Pure: the inputs are the project's tracked file names, its parsed pyproject.toml and a few
files' text, read by the caller.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfgate.formats.benchmarks_json import Suite

#: Sources a build compiles (C, C++, Cython, Fortran, Rust, CUDA).
COMPILED_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".pyx", ".f", ".f90", ".rs", ".cu")
#: Build backends that compile (their projects cannot run from the sources).
COMPILING_BACKENDS = ("mesonpy", "scikit_build_core", "maturin", "setuptools_rust")
#: Folders whose compiled files are not the project's code (fixtures, docs, benchmarks).
NOT_THE_CODE = ("benchmarks/", "tests/", "test/", "docs/", "doc/", "examples/", "ci/")
#: The command ``parity_command`` holds until someone sets it; ``perfgate doctor`` names it.
PARITY_PLACEHOLDER = ("set-parity_command-in-the-perfgate-configuration",)
PYTEST = ("{python}", "-m", "pytest", "-x", "-q")


@dataclass(frozen=True)
class Guess:
    """A proposed value and why (a comment of the written policy)."""

    value: Any
    reason: str


@dataclass(frozen=True)
class Family:
    """The benchmarks of one asv module: ``name`` (the first part of their names), how many,
    and their kinds (``time``, ``track``, ``memory``, ...)."""

    name: str
    count: int
    kinds: tuple[str, ...]

    @property
    def pattern(self) -> str:
        """The regex of its benchmarks' names."""
        return "^" + re.escape(self.name) + r"\."

    @property
    def timed(self) -> bool:
        """True when it holds timing benchmarks (which block by default)."""
        return "time" in self.kinds


def _generated_version_file(pyproject: Mapping[str, Any]) -> str | None:
    """The version module a VCS plugin writes at build time (setuptools-scm, hatch-vcs)."""
    tool = pyproject.get("tool", {})
    scm = tool.get("setuptools_scm", {})
    if isinstance(scm, dict):
        for key in ("version_file", "write_to"):
            if isinstance(scm.get(key), str):
                return str(scm[key])
    hooks = tool.get("hatch", {}).get("build", {}).get("hooks", {})
    vcs = hooks.get("vcs", {}) if isinstance(hooks, dict) else {}
    found = vcs.get("version-file") if isinstance(vcs, dict) else None
    return found if isinstance(found, str) else None


def build_need(files: Sequence[str], pyproject: Mapping[str, Any]) -> Guess:
    """ "pip" when the project cannot be imported from its sources (compiled sources, a
    compiling backend, a version module the build generates), else "none"."""
    compiled = [
        f for f in files if f.endswith(COMPILED_SUFFIXES) and not f.startswith(NOT_THE_CODE)
    ]
    if compiled:
        shown = ", ".join(compiled[:3]) + (
            f" and {len(compiled) - 3} more" if len(compiled) > 3 else ""
        )
        return Guess("pip", f"compiled sources: {shown}")
    backend = str(pyproject.get("build-system", {}).get("build-backend", ""))
    if backend.split(".")[0] in COMPILING_BACKENDS:
        return Guess("pip", f"build backend {backend} compiles")
    generated = _generated_version_file(pyproject)
    if generated is not None and generated not in files:
        return Guess("pip", f"{generated} is written by the build (a VCS version plugin)")
    return Guess("none", "pure Python: no compiled sources, no file the build generates")


def _pytest_configured(
    files: Sequence[str], pyproject: Mapping[str, Any], text: Callable[[str], str]
) -> str | None:
    """Where pytest is configured or its tests are (None: nowhere found)."""
    if "pytest.ini" in files:
        return "pytest.ini"
    if "pytest" in pyproject.get("tool", {}):
        return "[tool.pytest.ini_options] in pyproject.toml"
    for name, header in (("setup.cfg", "[tool:pytest]"), ("tox.ini", "[pytest]")):
        if name in files and header in text(name):
            return f"{header} in {name}"
    if "conftest.py" in files:
        return "conftest.py"
    tests = [f for f in files if re.search(r"(^|/)test_[^/]*\.py$", f)]
    return f"test files such as {tests[0]}" if tests else None


def _tests_package(files: Sequence[str]) -> str | None:
    """The top-level package the tests live in (``pkg/**/test_*.py`` with ``pkg/__init__.py``
    tracked), None when they live outside the code."""
    tops = {
        f.split("/", 1)[0] for f in files if "/" in f and re.search(r"(^|/)test_[^/]*\.py$", f)
    }
    inside = sorted(t for t in tops if f"{t}/__init__.py" in files)
    return inside[0] if len(inside) == 1 and len(tops) == 1 else None


def parity_guess(
    files: Sequence[str],
    pyproject: Mapping[str, Any],
    text: Callable[[str], str],
    build: str = "none",
) -> Guess:
    """The project's test command: pytest where it is configured or has tests, else a
    Makefile's ``test`` target, else the placeholder (which ``perfgate doctor`` reports).

    With a build (``build = "pip"``) the tests must import the build, not the sources next
    to them: tests inside the package are collected from it (``--pyargs``)."""
    where = _pytest_configured(files, pyproject, text)
    if where is not None:
        package = _tests_package(files) if build == "pip" else None
        if package is not None:
            why = f"pytest ({where}), the tests of the built {package} (--pyargs)"
            return Guess((*PYTEST, "--pyargs", package), why)
        return Guess(PYTEST, f"pytest ({where})")
    if "Makefile" in files and re.search(r"^test\s*:", text("Makefile"), re.MULTILINE):
        return Guess(("make", "test"), "the Makefile's test target")
    return Guess(PARITY_PLACEHOLDER, "no test command found: set it")


def families(suite: Suite) -> tuple[Family, ...]:
    """The suite's benchmarks grouped by module, in name order."""
    counts: Counter[str] = Counter()
    kinds: dict[str, set[str]] = {}
    for name, info in suite.items():
        family = name.split(".", 1)[0]
        counts[family] += 1
        kinds.setdefault(family, set()).add(info.kind)
    return tuple(Family(f, counts[f], tuple(sorted(kinds[f]))) for f in sorted(counts))


def asv_thresholds(conf: Mapping[str, Any]) -> tuple[tuple[str, float], ...]:
    """asv's ``regressions_thresholds`` as the gate's rules (asv matches a key at the start
    of a name: anchored here); keys that are not a valid regex or a threshold are left out."""
    given = conf.get("regressions_thresholds") or {}
    rules: list[tuple[str, float]] = []
    if not isinstance(given, dict):
        return ()
    for key, value in given.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            continue
        pattern = key if str(key).startswith("^") else f"^{key}"
        try:
            re.compile(pattern)
        except re.error:
            continue
        rules.append((pattern, float(value)))
    return tuple(rules)
