"""perfgate.adopt.survey: init's guesses about a project, each with its reason."""

from __future__ import annotations

import pytest

from perfgate.adopt import survey
from perfgate.formats.benchmarks_json import parse_benchmarks


@pytest.mark.parametrize(
    ("files", "pyproject", "mode", "reason"),
    [
        (["pkg/__init__.py", "pkg/fast.c"], {}, "pip", "compiled sources: pkg/fast.c"),
        (["benchmarks/b.c", "pkg/__init__.py"], {}, "none", "pure Python"),
        (["pkg/__init__.py"], {"build-system": {"build-backend": "mesonpy"}}, "pip", "mesonpy"),
        (
            ["pkg/__init__.py"],
            {"tool": {"setuptools_scm": {"version_file": "pkg/_version.py"}}},
            "pip",
            "pkg/_version.py is written by the build",
        ),
        (
            ["pkg/__init__.py"],
            {"tool": {"hatch": {"build": {"hooks": {"vcs": {"version-file": "pkg/_v.py"}}}}}},
            "pip",
            "pkg/_v.py",
        ),
        (  # a version file that is committed needs no build
            ["pkg/__init__.py", "pkg/_version.py"],
            {"tool": {"setuptools_scm": {"write_to": "pkg/_version.py"}}},
            "none",
            "pure Python",
        ),
    ],
)
def test_build_need(files: list[str], pyproject: dict, mode: str, reason: str) -> None:
    guess = survey.build_need(files, pyproject)
    assert guess.value == mode and reason in guess.reason


def _text(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return lambda name: files[name]


def test_parity_guess() -> None:
    """pytest where it is configured; with a build, the tests of the built package; a
    Makefile's test target; else the placeholder doctor names."""
    ini = survey.parity_guess(["pytest.ini", "pkg/__init__.py"], {}, _text({}))
    assert ini.value == survey.PYTEST and "pytest.ini" in ini.reason
    inside = ["pytest.ini", "pkg/__init__.py", "pkg/tests/test_a.py"]
    built = survey.parity_guess(inside, {}, _text({}), build="pip")
    assert built.value == (*survey.PYTEST, "--pyargs", "pkg")
    assert survey.parity_guess(inside, {}, _text({})).value == survey.PYTEST
    cfg = survey.parity_guess(["setup.cfg"], {}, _text({"setup.cfg": "[tool:pytest]\n"}))
    assert "[tool:pytest] in setup.cfg" in cfg.reason
    make = survey.parity_guess(["Makefile"], {}, _text({"Makefile": "all:\ntest: all\n"}))
    assert make.value == ("make", "test")
    none = survey.parity_guess(["README"], {}, _text({}))
    assert none.value == survey.PARITY_PLACEHOLDER and "set it" in none.reason


def test_families_and_asv_thresholds() -> None:
    suite = parse_benchmarks(
        {
            "a.K.time_x": {"type": "time"},
            "a.K.track_y": {"type": "track"},
            "b.time_z": {"type": "time"},
            "mem.M.peakmem_w": {"type": "peakmemory"},
        }
    )
    found = survey.families(suite)
    assert [(f.name, f.count, f.timed) for f in found] == [
        ("a", 2, True),
        ("b", 1, True),
        ("mem", 1, False),
    ]
    assert found[0].pattern == r"^a\."
    conf = {"regressions_thresholds": {"hot\\..*": 0.1, "^x": 0.2, "(": 0.3, "y": -1}}
    assert survey.asv_thresholds(conf) == (("^hot\\..*", 0.1), ("^x", 0.2))
