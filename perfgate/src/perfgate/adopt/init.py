"""``perfgate init``: read an asv project, propose the gate's policy and its workflow files,
and write them without overwriting anything (`perfgate.adopt.files`).

The benchmarks are discovered the way the gate will see them: the checkout's HEAD exported
(and built, when the survey says it needs a build) into a run folder of its own, and asv's
``just-discover`` run with the checkout's suites (`perfgate.asv.discover`), so a suite
that does not import under the proposed policy fails here, not in the first gate.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfgate import git
from perfgate.adopt import init_values, measured, survey
from perfgate.adopt.files import Planned, plan_file, plan_policy, write_planned
from perfgate.adopt.gitignore import plan_gitignore
from perfgate.adopt.parity_trial import DEFAULT_LIMIT_S, Trier
from perfgate.adopt.policy import Proposal, render_policy
from perfgate.adopt.probe import Prober
from perfgate.adopt.workflows import WORKFLOW_FILES, WorkflowOptions, render
from perfgate.config import GateConfig
from perfgate.errors import UserError
from perfgate.formats.asv_conf import AsvProject, read_project
from perfgate.formats.benchmarks_json import Suite
from perfgate.gate import context, sides
from perfgate.gate.hooks import Hooks
from perfgate.settings import GateOptions

SuiteFinder = Callable[[Path, GateConfig], Suite]
"""(repository root, the proposed configuration) -> the suite asv discovers."""


@dataclass(frozen=True)
class InitOptions:
    """What ``perfgate init`` was asked to do."""

    repo: Path = Path(".")
    asv_config: Path | None = None
    force: bool = False
    workflows: bool = True
    workflow: WorkflowOptions = field(default_factory=WorkflowOptions)
    #: seconds each parity command may run when init runs it once
    parity_limit_s: float = DEFAULT_LIMIT_S


@dataclass(frozen=True)
class InitResult:
    """What init proposed and wrote (paths relative to the root), and the diffs of what it
    replaced (``--force``)."""

    root: Path
    proposal: Proposal
    written: tuple[Path, ...]
    diffs: tuple[str, ...]


def _root(repo: Path) -> Path:
    try:
        top = git.Git(repo).out("rev-parse", "--show-toplevel")
    except git.GitError as exc:
        raise UserError(f"{repo}: not a git repository ({exc})") from None
    return Path(top)


def _tracked(root: Path) -> list[str]:
    return git.Git(root).out("ls-files", "-z").split("\0")


def _pyproject(folder: Path) -> dict[str, Any]:
    path = folder / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: invalid TOML: {exc}") from None


def asv_discover_suite(root: Path, config: GateConfig) -> Suite:
    """asv's discovery of HEAD as the gate would run it, in a temporary work folder."""
    hooks = Hooks()
    with tempfile.TemporaryDirectory(prefix="perfgate-init-") as work:
        opts = GateOptions(base="HEAD", head="HEAD", repo=root, quick=True, work_dir=Path(work))
        revs = context.resolve_revisions(opts)
        _pin, _fp, s = context.settings_on_this_machine(opts, revs, config, hooks.fingerprint)
        try:
            with sides.prepared(s) as s:
                hooks.register_machine(s.machine)  # asv's discovery needs the machine known
                return hooks.discover(s, "head", s.run_dir / "discover")
        finally:
            shutil.rmtree(s.run_dir, ignore_errors=True)


def _survey(root: Path, project: AsvProject) -> tuple[survey.Guess, survey.Guess]:
    """(build need, parity command) of the project at ``root``."""
    files = _tracked(root)
    sub = project.repo_subdir.strip("/")
    own = [f[len(sub) + 1 :] for f in files if f.startswith(sub + "/")] if sub else files
    build = survey.build_need(own, _pyproject(root / sub if sub else root))

    def text(name: str) -> str:
        return (root / name).read_text(encoding="utf-8", errors="replace")

    return build, survey.parity_guess(files, _pyproject(root), text, build.value)


def propose(root: Path, options: InitOptions, finder: SuiteFinder) -> Proposal:
    """What the policy will say: the survey's guesses and asv's discovery under them."""
    project = read_project(root, options.asv_config)
    build, parity = _survey(root, project)
    asv_config = str(project.path.relative_to(root))
    config = replace(
        GateConfig(), asv_config=asv_config, build=build.value, source="perfgate init"
    )
    suite = finder(root, config)
    families = survey.families(suite)
    if not families:
        raise UserError(f"asv discovered no benchmarks in {project.benchmark_dir}")
    timed = tuple(f.pattern for f in families if f.timed)
    sim_family = GateConfig().sim.bench
    in_sim = [n for n in suite if any(re.search(p, n) for p in sim_family)]
    thresholds = survey.asv_thresholds(project.conf)
    return Proposal(
        asv_config=asv_config,
        build=build,
        parity=parity,
        families=families,
        blocking=timed or tuple(f.pattern for f in families),
        thresholds=thresholds,
        thresholds_reason="from asv.conf.json's regressions_thresholds" if thresholds else "",
        instruments=(
            survey.Guess(None, f"{len(in_sim)} benchmarks in the sim family")
            if in_sim
            else survey.Guess(("wall",), "no benchmark in the sim family: the wall clock")
        ),
    )


def _plans(root: Path, options: InitOptions, proposal: Proposal) -> list[Planned]:
    plans = [plan_policy(root, render_policy(proposal, True), render_policy(proposal, False))]
    ignore = plan_gitignore(root)
    plans += [ignore] if ignore is not None else []
    if options.workflows:
        pytest = tuple(proposal.parity.value[: len(survey.PYTEST)]) == survey.PYTEST
        extras = ("pytest",) if pytest else ()
        workflow = replace(options.workflow, extra_packages=extras)
        folder = root / ".github" / "workflows"
        plans += [plan_file(folder / name, render(name, workflow)) for name in WORKFLOW_FILES]
    return plans


def init(
    options: InitOptions,
    finder: SuiteFinder | None = None,
    prober: Prober | None = None,
    trier: Trier | None = None,
) -> InitResult:
    """Propose, then write everything or nothing (see `perfgate.adopt.files`). With
    ``prober`` the suite is run once first, and the policy takes what that measured
    (`perfgate.adopt.measured`); with ``trier`` each parity command about to be written is
    run once, and only one that passed is written (`perfgate.adopt.parity_trial`)."""
    root = _root(options.repo)
    options = replace(options, asv_config=init_values.asv_config_inside(root, options.asv_config))
    proposal = propose(root, options, finder or asv_discover_suite)
    proposal = measured.with_quick_parity(proposal, _tracked(root))
    if prober is not None:
        proposal = measured.measure(root, proposal, prober)
    if trier is not None:
        proposal = measured.try_parity(root, proposal, trier, options.parity_limit_s)
    plans = _plans(root, options, proposal)
    init_values.policy_loads(plans[0].path, plans[0].text)
    diffs = write_planned(root, plans, options.force)
    written = tuple(p.path.relative_to(root) for p in plans if p.old != p.text)
    return InitResult(root, proposal, written, tuple(diffs))
