"""A measuring run's options resolved once, shared by every command that measures (gate,
shard, calibrate, the plan's discovery, adopt, the watch's prober): the commits (``--base``
at its merge base with ``--head``), the configuration at the base commit, pinning and the
machine fingerprint's id, the asv configuration (read once) and where each side will be
exported. The exports themselves, and the builds, are made by `perfgate.gate.sides`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate import git, machine, runner_grid
from perfgate.calibration.stored import newest_noise
from perfgate.config import GateConfig
from perfgate.config_files import config_at_commit, load_config
from perfgate.errors import UserError
from perfgate.formats import asv_conf
from perfgate.formats.noise import NoiseFile
from perfgate.gate import build, caches, instruments, sides, suite_edits
from perfgate.gate.parity import given_result
from perfgate.history.branch import HistoryError
from perfgate.model import EnvironmentCheck, ParityResult
from perfgate.settings import GateOptions, GateSettings, report_target
from perfgate.sim import callgrind, client

WORK_DIR = ".perfgate"
FULL_BUDGET_MIN = 90.0
#: Changed benchmark files named in the report; the rest are counted.
MAX_NAMED_FILES = 8


@dataclass(frozen=True)
class Revisions:
    """The commits of one run, resolved once: ``--base`` as given, the base actually
    compared (see :func:`resolve_revisions`) and the head."""

    repo: Path
    given_base: str
    base: str
    head: str

    def note(self, base_arg: str) -> str | None:
        """A report line when the base compared is a merge base, not ``--base`` itself."""
        if self.given_base == self.base:
            return None
        return (
            f"base: {self.base[:12]}, the merge base of --base {base_arg} "
            f"({self.given_base[:12]}) and the head; the changes on --base since then are not "
            "the pull request's"
        )


def _repo_root(path: Path) -> Path:
    done = git.Git(path).run("rev-parse", "--show-toplevel")
    text = (done.stdout + done.stderr).decode(errors="replace")
    if done.returncode != 0:
        raise UserError(f"{path}: not inside a git repository ({text.strip()[-200:]})")
    return Path(text.strip().splitlines()[-1])


def _resolve(repo: Path, rev: str) -> str:
    try:
        return git.resolve(repo, rev)
    except git.GitError as exc:
        raise UserError(str(exc)) from None


def resolve_revisions(opts: GateOptions) -> Revisions:
    """Resolve ``--base`` and ``--head``; the base compared is their merge base.

    A ``--base`` that moved on after the head branched off (``--base main`` a week later)
    would charge the pull request with every change made on main since; the merge base is
    what the pull request changes. Equal to ``--base`` whenever that is an ancestor. A head
    that is an ancestor of ``--base`` (already merged, or the arguments swapped) is refused:
    it would be measured against itself and pass. ``--base`` equal to ``--head`` is the A/A
    run of ``make gate``.
    """
    repo = _repo_root(opts.repo)
    given, head = _resolve(repo, opts.base), _resolve(repo, opts.head)
    try:
        base = git.merge_base(repo, given, head)
    except git.GitError as exc:
        raise UserError(str(exc)) from None
    if base is None:
        raise UserError(
            f"--base {opts.base!r} and --head {opts.head!r} share no history: nothing to compare"
        )
    if base == head != given:
        raise UserError(
            f"--head {opts.head!r} is an ancestor of --base {opts.base!r}: the head adds nothing "
            "to compare (pass the commit the head branched from as --base)"
        )
    return Revisions(repo, given, base, head)


def load_gate_config(opts: GateOptions, revs: Revisions) -> GateConfig:
    """``--config``, else the project's configuration *at the base commit*: perfgate.toml,
    or ``[tool.perfgate]`` of pyproject.toml (`perfgate.config_files`).

    The base is the trusted side: a pull request that loosens thresholds or blocking rules
    in its own configuration is judged by the rules it is merging into (its change applies
    from the next pull request on). ``--config`` reads a file as it is on disk.
    """
    if opts.config is not None:
        return load_config(opts.config)
    return config_at_commit(revs.repo, revs.base)


def pin_plan(threads: int | None = None, root: Path = Path("/")) -> machine.PinPlan:
    """Pin the asv processes for ``threads`` threads (default: every usable CPU).

    Set ``threads`` (``pin_threads`` in ``[tool.perfgate]``) to the widest thread count of
    the suites: when that fits in one NUMA node, the benchmarks are bound to that node's
    CPUs and memory instead of floating across nodes (placement moved upstream's results).
    More threads than usable CPUs are capped at the usable CPUs.
    """
    usable = tuple(sorted(os.sched_getaffinity(0)))
    count = len(usable) if threads is None else min(threads, len(usable))
    return machine.plan_for_host(count, cpuset=usable, root=root)


def comparable_fingerprint(fp: machine.Fingerprint) -> dict[str, Any]:
    """The comparability keys of a fingerprint as a plain dict (what must match)."""
    return comparable(fp.to_dict())


def comparable(fingerprint: Mapping[str, Any]) -> dict[str, Any]:
    """The comparability keys of a fingerprint dict, e.g. one recorded in a file (a missing
    key is None, so it differs from any recorded value)."""
    return {k: fingerprint.get(k) for k in machine.COMPARABILITY_KEYS}


def machine_id(fp: machine.Fingerprint) -> str:
    """A short, stable id of the comparable environment (names noise files, asv machine)."""
    text = json.dumps(comparable_fingerprint(fp), sort_keys=True)
    return "perfgate-" + hashlib.sha256(text.encode()).hexdigest()[:10]


def selection(opts: GateOptions, config: GateConfig) -> tuple[str, ...]:
    """The wall clock's ``--bench`` regexes: given, else the quick or the full gate's,
    without the sim family (`perfgate.gate.instruments`). Whether the sim instrument
    can run is judged where the run starts (`settings_on_this_machine`), with valgrind's
    installed version, not here."""
    return instruments.wall_selection(config, opts.bench, opts.quick)


def budget_seconds(opts: GateOptions, config: GateConfig) -> float:
    """The measurement budget: ``--budget-minutes``, else the quick gate's
    (``quick_budget_minutes``), else ``budget_minutes`` of ``[tool.perfgate]``, else the
    built-in full-gate default."""
    minutes = opts.budget_minutes
    if minutes is None and opts.quick:
        minutes = config.quick_budget_minutes
    if minutes is None:
        minutes = config.budget_minutes or FULL_BUDGET_MIN
    if not (math.isfinite(minutes) and minutes > 0):
        raise UserError(f"--budget-minutes: expected a finite number > 0, got {minutes}")
    return 60.0 * minutes


def settings_on_this_machine(
    opts: GateOptions,
    revs: Revisions,
    config: GateConfig,
    fingerprint: Callable[[machine.PinPlan], machine.Fingerprint],
    valgrind: Callable[[], str | None] | None = None,
) -> tuple[machine.PinPlan, machine.Fingerprint, GateSettings]:
    """The pinning plan, the machine's fingerprint at the start (``fingerprint``: the hooks'
    seam) and the run's settings under the machine name it gives (unless ``--machine``):
    the preamble of every measuring run (gate, shard) and of ``--plan``'s discovery."""
    pin = pin_plan(config.pin_threads)
    fp_start = fingerprint(pin)
    machine_name = opts.machine or machine_id(fp_start)
    installed = (valgrind or callgrind.installed_version)()
    return pin, fp_start, build_settings(opts, revs, config, pin, machine_name, installed)


@dataclass(frozen=True)
class Resolved:
    """A measuring run's options resolved once: its settings, the pinning plan, the
    machine's fingerprint at the start and the parity result taken from CI (None: none)."""

    settings: GateSettings
    pin: machine.PinPlan
    fingerprint: machine.Fingerprint
    given_parity: ParityResult | None = None


def resolve_run(
    opts: GateOptions,
    fingerprint: Callable[[machine.PinPlan], machine.Fingerprint],
    valgrind: Callable[[], str | None] | None = None,
) -> Resolved:
    """The commits, CI's parity result for the head (checked before anything is exported),
    the policy at the base and the settings on this machine, in that order."""
    revs = resolve_revisions(opts)
    given = given_result(opts.parity_result, revs.head) if opts.parity_result else None
    config = load_gate_config(opts, revs)
    pin, fp, settings = settings_on_this_machine(opts, revs, config, fingerprint, valgrind)
    return Resolved(settings, pin, fp, given)


def build_settings(
    opts: GateOptions,
    revs: Revisions,
    config: GateConfig,
    plan: machine.PinPlan,
    machine_name: str,
    valgrind: str | None = None,
) -> GateSettings:
    """Fix the instruments, their selections, the budget, the run folder and where each
    side is exported to (``valgrind``: its installed version, None where it is not
    installed). Nothing is exported or built here: that is `perfgate.gate.sides`' work."""
    repo = revs.repo
    work = opts.work_dir or repo / WORK_DIR
    base, head = revs.base, revs.head
    project = asv_conf.read_project(repo, config.asv_config)
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    run_dir = work / "runs" / f"{stamp}-{base[:8]}-{head[:8]}"
    # an explicit `sim` without valgrind is a UserError (exit 3) naming the install command
    chosen = instruments.resolve(
        config, opts.bench, opts.quick, valgrind, client.supported(), opts.shard is not None
    )
    return GateSettings(
        repo=repo,
        base=base,
        head=head,
        base_source=sides.export_path(run_dir, base),
        head_source=sides.export_path(run_dir, head),
        config=config,
        asv_conf=project.conf,
        benchmark_dir=project.benchmark_dir,
        machine=machine_name,
        bench=chosen.wall_bench,
        wall=chosen.wall,
        sim_bench=chosen.sim_bench,
        instruments_note=chosen.note,
        run_dir=run_dir,
        budget_s=budget_seconds(opts, config),
        env={**plan.env, **suite_grid_env(plan, opts.quick)},
        prefix=plan.prefix,
        kernel_cache=caches.kernel_cache_env(run_dir, os.environ, repo),
        tools_cache=caches.tools_cache_env(run_dir, os.environ, repo),
        quick=opts.quick,
        bench_given=opts.bench,
        floors_ref=opts.floors_ref,
        parity_result=opts.parity_result,
        base_note=revs.note(opts.base),
        options=report_target(opts).options,
    )


def suite_grid_env(
    plan: machine.PinPlan,
    quick: bool,
    root: Path = Path("/"),
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The grid the asv processes measure: the full gate's is derived from the runner
    (`perfgate.runner_grid`: thread counts from the CPUs of the pinning plan). ``--quick``
    keeps the suites' default grid, and a ``PERFGATE_GRID`` already set by the caller wins."""
    given = os.environ if environ is None else environ
    if quick or runner_grid.GRID_VAR in given:
        return {}
    threads = runner_grid.derived_threads(machine.read_topology(root), plan.cpus)
    return runner_grid.grid_env(threads)


def grid_note(s: GateSettings) -> str:
    """The report line naming the grid the suites measured, and why."""
    threads = runner_grid.threads_from_env(s.env)
    if threads is not None:
        return runner_grid.describe(threads)
    name = os.environ.get(runner_grid.GRID_VAR, "default")
    return (
        f"grid: the suites' {name!r} grid (--quick, or {runner_grid.GRID_VAR} set by the caller)"
    )


def suite_notes(s: GateSettings) -> tuple[str, ...]:
    """Report lines about the suites: the grid they measured and why, and the benchmark
    files of this checkout (both sides run them, as asv does) that differ from the base
    commit's.

    A pull request that edits a blocking benchmark changes what both sides measure; the
    gate still runs it, and says so where the reviewer reads the verdict. The head commit's
    own edits to the suites, when they are not the checkout's (CI runs the base's), are not
    measured: the report says that too (`suite_edits`).
    """
    grid = (
        build.build_note(s.config.build, s.builds),
        grid_note(s),
        *suite_edits.unmeasured_edits_note(s.repo, s.head, s.benchmark_dir),
    )
    try:
        changed = git.changed_files(s.repo, s.base, s.benchmark_dir)
    except (git.GitError, ValueError) as exc:
        return (*grid, f"suites: not compared with the base commit's ({exc})")
    if not changed:
        return grid
    shown = ", ".join(changed[:MAX_NAMED_FILES])
    more = len(changed) - MAX_NAMED_FILES
    return (
        *grid,
        f"suites: both sides ran this checkout's benchmarks, which differ from the base "
        f"commit's in {shown}{f' and {more} more' if more > 0 else ''}: review those changes "
        "with these results",
    )


def read_noise(repo: Path, floors_ref: str | None, machine_name: str) -> NoiseFile | None:
    """The newest noise file of ``machine_name`` on the perf-results commit ``floors_ref``
    (None without a ref: no floors). Never from the work folder, which the benchmarks of a
    pull request run next to and could write; a file failing its digest is an error."""
    if floors_ref is None:
        return None
    try:
        return newest_noise(repo, floors_ref, machine_name)
    except HistoryError as exc:
        raise UserError(f"noise floors (--floors-ref {floors_ref}): {exc}") from None


def usable_noise_file(
    noise: NoiseFile | None, machine_name: str, fingerprint: Mapping[str, Any], window: int
) -> tuple[NoiseFile | None, str]:
    """``noise`` when it was calibrated on *this* comparable environment, and a report note.

    A floor raises thresholds, so one measured elsewhere (another machine or fingerprint, a
    copied file) or over another window (``min_samples``) would silently loosen the gate:
    such a file is skipped and the note says why.
    """
    if noise is None:
        return None, "noise floors: none calibrated"
    path = noise.path
    differing = EnvironmentCheck(
        comparable(noise.fingerprint), comparable(fingerprint)
    ).differing_keys
    problems = []
    if noise.is_object and noise.machine != machine_name:
        problems.append(f"calibrated for machine {noise.machine!r}")
    if differing:
        problems.append(f"fingerprint differs in {', '.join(differing)}")
    if noise.is_object and noise.window != window:
        problems.append(f"window {noise.window!r}, not min_samples = {window}")
    if problems:
        return None, f"noise floors: {path} ignored ({'; '.join(problems)}); none applied"
    return noise, f"noise floors: {path}"
