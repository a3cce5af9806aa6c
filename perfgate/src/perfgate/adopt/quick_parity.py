"""The parity subset ``perfgate gate --quick`` runs, as ``perfgate init`` proposes it (pure).

A quick gate that runs the whole test suite first spends its minutes there. Where the
project's tests name the benchmarked modules (``test_core.py`` beside a ``bench_core``
family, or a family named like the tested module), those tests are the quick subset:
pytest on those files, or on those modules with ``--pyargs`` where the tests are collected
from the built package. Where none can be found the quick gate runs the full suite, and the
policy's commented example names a real test of the project, in its layout.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from perfgate.adopt.survey import PYTEST, Guess

#: Prefixes and suffixes asv projects give their benchmark modules.
_AFFIXES = re.compile(r"^(?:bench(?:mark)?s?_|time_)|(?:_bench(?:mark)?s?)$")
_TEST_FILE = re.compile(r"(?:^|/)test_([^/]+)\.py$")


def _stem(family: str) -> str:
    return _AFFIXES.sub("", family.lower())


def _tests(files: Sequence[str]) -> list[str]:
    return sorted(f for f in files if _TEST_FILE.search(f))


def _as_module(path: str) -> str:
    return ".".join(PurePosixPath(path).with_suffix("").parts)


def _command(parity: tuple[str, ...], tests: Sequence[str]) -> tuple[str, ...]:
    """pytest's quick command on ``tests``: module names after ``--pyargs`` when the full
    command collects from the installed package, else the files."""
    if "--pyargs" in parity:
        return (*PYTEST, "--pyargs", *(_as_module(t) for t in tests))
    return (*PYTEST, *tests)


def quick_parity(
    files: Sequence[str], parity: tuple[str, ...], families: Sequence[str]
) -> tuple[Guess, str]:
    """(the quick parity command, None where the full suite must do, with its reason; a
    commented example that fits the project's layout)."""
    tests = _tests(files)
    example = _command(parity, tests[:1] or ["tests/test_core.py"])
    if tuple(parity[: len(PYTEST)]) != PYTEST or not tests:
        return Guess(None, "no pytest test files to take a subset of: the full suite"), _toml(
            example
        )
    stems = {_stem(f) for f in families} - {""}
    named = [t for t in tests if (m := _TEST_FILE.search(t)) and _stem(m[1]) in stems]
    if not named:
        why = "no test file names a benchmarked module: --quick runs the full suite"
        return Guess(None, why), _toml(example)
    shown = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
    return Guess(_command(parity, named), f"the tests of the benchmarked modules: {shown}"), ""


def _toml(command: Sequence[str]) -> str:
    return "[" + ", ".join(f'"{c}"' for c in command) + "]"
