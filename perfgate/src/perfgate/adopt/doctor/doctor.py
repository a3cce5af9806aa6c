"""``perfgate doctor``: check a project and a runner before the gate runs there.

Five groups (``--only`` / ``--skip``): ``project`` (the policy, the asv configuration, the
parity command, the build mode, the instruments' tools), ``discovery`` (asv discovers the
suites as the gate will, and the policy's regexes select some of them), ``parity`` (the
quick parity command run once at HEAD, with its time), ``runner`` (host
tuning and the gate's pinning plan) and ``github`` (a workflow calls the gate; the
variables and labels it uses exist). Each finding is one line; a problem carries its fix.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfgate import git
from perfgate.adopt.doctor import project as project_checks
from perfgate.adopt.doctor.github import RepositorySettings, github_checks
from perfgate.adopt.doctor.parity import parity_checks
from perfgate.adopt.doctor.run import run_checks
from perfgate.adopt.doctor.runner import runner_checks
from perfgate.adopt.init import asv_discover_suite
from perfgate.adopt.parity_trial import Trier, run_trials
from perfgate.adopt.probe import Prober, run_probe
from perfgate.adopt.report_lines import Finding, note
from perfgate.config import GateConfig
from perfgate.errors import UserError

GROUPS = ("project", "discovery", "parity", "runner", "github")
#: Run the quick selection once (``perfgate doctor --run``): never a default group, it
#: takes as long as a round of the quick gate.
RUN = "run"


@dataclass(frozen=True)
class DoctorOptions:
    """What to check, and where."""

    repo: Path = Path(".")
    asv_config: Path | None = None
    groups: Sequence[str] = GROUPS
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    sys_root: Path = Path("/")


def _pyproject(folder: Path) -> dict[str, Any]:
    try:
        return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _root(repo: Path) -> Path:
    try:
        return Path(git.Git(repo).out("rev-parse", "--show-toplevel"))
    except git.GitError as exc:
        raise UserError(f"{repo}: not a git repository ({exc})") from None


def _project(
    root: Path, options: DoctorOptions, finder: project_checks.SuiteFinder | None
) -> list[Finding]:
    config, asv, findings = project_checks.load(root, options.asv_config)
    if "project" in options.groups:
        if config is not None:
            findings += project_checks.parity_checks(config, root)
            if asv is not None:
                sub = asv.repo_subdir.strip("/")
                files = git.Git(root).out("ls-files", "-z", *([sub] if sub else [])).split("\0")
                own = [f[len(sub) + 1 :] if sub else f for f in files if f]
                findings += project_checks.build_checks(config, own, _pyproject(root / sub))
        findings += project_checks.instrument_checks(config, root)
    if "discovery" in options.groups:
        if config is None or asv is None:
            findings.append(note("discovery skipped: the configuration above must load first"))
        else:
            found = config if options.asv_config is None else _named(config, root, asv.path)
            findings += project_checks.suite_checks(found, root, finder or asv_discover_suite)
    if "project" not in options.groups:  # load() was for discovery only: keep its problems
        findings = [f for f in findings if f.level.value == "problem"]
    return findings


def _named(config: GateConfig, root: Path, path: Path) -> GateConfig:
    from dataclasses import replace

    return replace(config, asv_config=str(path.relative_to(root)))


def doctor(
    options: DoctorOptions,
    finder: project_checks.SuiteFinder | None = None,
    settings: RepositorySettings | None = None,
    prober: Prober = run_probe,
    trier: Trier = run_trials,
) -> list[Finding]:
    """Every finding of the chosen groups, in group order."""
    unknown = set(options.groups) - {*GROUPS, RUN}
    if unknown:
        raise UserError(f"unknown check group(s) {sorted(unknown)}; expected some of {GROUPS}")
    root = _root(options.repo)
    findings: list[Finding] = []
    if {"project", "discovery"} & set(options.groups):
        findings += _project(root, options, finder)
    if "parity" in options.groups:
        config, _asv, _loaded = project_checks.load(root, options.asv_config)
        findings += parity_checks(root, config, trier)
    if "runner" in options.groups:
        config, _asv, _loaded = project_checks.load(root, options.asv_config)
        findings += runner_checks(config or GateConfig(), options.sys_root)
    if "github" in options.groups:
        findings += github_checks(root, options.env, settings)
    if RUN in options.groups:
        findings += _run(root, options, prober)
    return findings


def _run(root: Path, options: DoctorOptions, prober: Prober) -> list[Finding]:
    config, _asv, loaded = project_checks.load(root, options.asv_config)
    if config is None:
        return [f for f in loaded if f.level.value == "problem"] or [
            note("--run skipped: the configuration must load first")
        ]
    return run_checks(root, config, prober)
