"""perfgate doctor on a project with planted mistakes: each one named on a line of its own,
with its fix, and a nonzero exit; a sound project passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_project import fake_finder, git, make_project

from perfgate import cli
from perfgate.adopt.doctor import doctor as doctor_module
from perfgate.adopt.doctor.doctor import DoctorOptions, doctor
from perfgate.adopt.init import InitOptions, init
from perfgate.adopt.report_lines import Level

pytestmark = pytest.mark.subprocess  # git

GROUPS = ("project", "discovery")


def _sound(tmp_path: Path) -> Path:
    repo = make_project(tmp_path)
    init(InitOptions(repo=repo, workflows=False), fake_finder)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "policy")
    return repo


def _problems(repo: Path, groups: tuple[str, ...] = GROUPS) -> list[str]:
    found = doctor(DoctorOptions(repo=repo, groups=groups), fake_finder)
    return [f.line() for f in found if f.level is Level.PROBLEM]


def test_a_sound_project_has_no_problem(tmp_path: Path) -> None:
    assert _problems(_sound(tmp_path)) == []


def test_three_planted_mistakes_are_named(tmp_path: Path) -> None:
    """A parity command that cannot start, a blocking regex with a typo, and C sources
    with ``build = "none"``: three problem lines, each naming its key and its fix."""
    repo = _sound(tmp_path)
    pyproject = repo / "pyproject.toml"
    text = pyproject.read_text()
    text = text.replace("parity_command = ['{python}'", "parity_command = ['nosuchtestrunner'")
    text = text.replace(r"'^bench_core\.'", r"'^bench_cor\.'")
    pyproject.write_text(text)
    (repo / "pkg" / "fast.c").write_text("int f(void) { return 1; }\n")
    git(repo, "add", "-A")
    problems = _problems(repo)
    assert len(problems) == 3, problems
    parity, build, blocking = problems
    assert "parity_command: 'nosuchtestrunner' is not on PATH" in parity
    assert "fix: install nosuchtestrunner, or set parity_command" in parity
    assert 'build = "none" but compiled sources: pkg/fast.c' in build
    assert 'fix: set build = "pip"' in build
    assert r"blocking pattern '^bench_cor\.' matches no benchmark" in blocking
    assert r"e.g. one of the families ^bench_core\., ^memory\." in blocking


def test_the_cli_exits_1_on_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _sound(tmp_path)
    monkeypatch.setattr(doctor_module, "asv_discover_suite", fake_finder)
    argv = ["doctor", "--repo", str(repo), "--only", ",".join(GROUPS)]
    assert cli.main(argv) == 0
    assert capsys.readouterr().out.endswith("perfgate doctor: no problem\n")
    (repo / "pyproject.toml").write_text("[tool.perfgate]\nmin_sample = 3\n")
    assert cli.main(argv) == 1
    out = capsys.readouterr().out
    assert "problem: configuration:" in out and "min_sample" in out
    assert "note: discovery skipped" in out
    assert cli.main([*argv, "--skip", "nonsense"]) == 3


def test_init_s_placeholder_and_a_broken_discovery(tmp_path: Path) -> None:
    repo = _sound(tmp_path)
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "parity_command = ['{python}', '-m', 'pytest', '-x', '-q']",
        "parity_command = ['set-parity_command-in-the-perfgate-configuration']",
    ))  # fmt: skip

    def broken(*_args: object) -> object:
        from perfgate.errors import UserError

        raise UserError("asv could not discover the suites of head abc (exit 1)\nImportError: x")

    found = doctor(DoctorOptions(repo=repo, groups=GROUPS), broken)  # type: ignore[arg-type]
    lines = [f.line() for f in found if f.level is Level.PROBLEM]
    assert any("parity_command is perfgate init's placeholder" in x for x in lines), lines
    assert any("asv cannot discover the suites" in x and "ImportError" in x for x in lines)


def test_the_sim_instrument_needs_valgrind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``instruments = ["sim"]``, read as written (the key may be newer than the parser):
    valgrind is run, and its absence is a problem."""
    repo = _sound(tmp_path)
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "instruments = ['wall']", "instruments = ['wall', 'sim']"
    ))  # fmt: skip
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no valgrind, no git either
    from perfgate.adopt.doctor.project import instrument_checks

    (finding,) = instrument_checks(None, repo)
    assert finding.level is Level.PROBLEM and "valgrind cannot run" in finding.what
