"""What one measuring run was asked for (`GateOptions`, the command line's options) and
what it resolved them into (`GateSettings`: commits, where they are exported, policy,
selection and limits), once, by the context stage; every later stage, instrument and report
reads the settings and nothing else of the command line. Only ``builds`` is filled in
later, by `perfgate.gate.sides.prepare`, which makes the exports and the builds on disk."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfgate.config import GateConfig


@dataclass(frozen=True)
class ShardSpec:
    """Shard ``index`` (1-based) of ``count``: ``--shard K/N``."""

    index: int
    count: int

    @property
    def label(self) -> str:
        """``K/N``."""
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class SideBuild:
    """One side's build: where it is installed and how long pip took."""

    side: str
    folder: Path
    seconds: float


@dataclass(frozen=True)
class GateOptions:
    """Parsed command-line options of one measuring run (gate, or calibrate with base=head)."""

    base: str
    head: str
    bench: tuple[str, ...] = ()
    quick: bool = False
    budget_minutes: float | None = None
    report_dir: Path = Path("reports/gate")
    config: Path | None = None
    repo: Path = Path(".")
    work_dir: Path | None = None
    machine: str | None = None
    post: bool = False
    pr: int | None = None
    floors_ref: str | None = None  # a fetched perf-results commit holding the noise floors
    shard: ShardSpec | None = None  # measure this share of the planned cases, decide nothing
    parity_result: Path | None = None  # CI's parity result for the head: parity is not re-run
    digest_output: Path | None = None  # a CI step-output file: gets report-digest=sha256:...


@dataclass(frozen=True)
class GateSettings:
    """Everything one gate run needs, resolved (SHAs, exports, selection, limits)."""

    repo: Path
    base: str
    head: str
    base_source: Path
    head_source: Path
    config: GateConfig
    asv_conf: Mapping[str, Any]
    benchmark_dir: Path
    machine: str
    bench: tuple[str, ...]
    run_dir: Path
    budget_s: float
    env: Mapping[str, str]
    prefix: tuple[str, ...] = ()
    kernel_cache: Mapping[str, str] = field(default_factory=dict)
    #: the parity command's npm-installed test tools (`tools_cache_env`)
    tools_cache: Mapping[str, str] = field(default_factory=dict)
    attributes: Mapping[str, str] = field(default_factory=lambda: {"rounds": "1"})
    asv_timeout_s: float = 1800.0
    #: the instruments (`perfgate.gate.instruments`): ``bench`` is the wall clock's
    #: selection (empty when it is off), ``sim_bench`` the sim instrument's (empty: off)
    wall: bool = True
    sim_bench: tuple[str, ...] = ()
    instruments_note: str = ""
    #: the options later stages read: ``--quick``, ``--bench`` as given (``bench`` above is
    #: the wall clock's selection), ``--floors-ref``, ``--parity-result``
    quick: bool = False
    bench_given: tuple[str, ...] = ()
    floors_ref: str | None = None
    parity_result: Path | None = None
    #: a report line when the base compared is a merge base, not ``--base`` itself
    base_note: str | None = None
    #: the options after ``--base B --head H`` that repeat the run (`ReportTarget.options`)
    options: tuple[str, ...] = ()
    #: side -> its build (``build = "pip"``); empty: the exports are measured as they are
    builds: Mapping[str, SideBuild] = field(default_factory=dict)

    def import_roots(self, side: str, parity: bool = False) -> tuple[Path, ...]:
        """What goes first on ``PYTHONPATH`` for ``side``'s benchmarks (or, with ``parity``,
        for the parity command): its build when it has one (then, for parity, the
        configured roots after it, for the tests' own helpers), else its export's roots."""
        source = self.base_source if side == "base" else self.head_source
        roots = self.config.import_roots(source, parity=parity)
        built = self.builds.get(side)
        if built is None:
            return roots
        return (built.folder, *roots) if parity else (built.folder,)

    @property
    def same_commit(self) -> bool:
        """True for an A/A run (base and head are one commit)."""
        return self.base == self.head

    @property
    def work_dir(self) -> Path:
        """The work folder (runs, noise floors) this run's folder lives in."""
        return self.run_dir.parent.parent


@dataclass(frozen=True)
class ReportTarget:
    """Where one run's report goes, read off the options before anything runs (so even a run
    that fails to start has a report), and the command line that repeats the run."""

    report_dir: Path
    work_dir: Path | None
    digest_output: Path | None
    #: the pull request the report is posted to (None: not posted)
    post_to: int | None
    base: str
    head: str
    machine: str | None
    #: the options after ``--base B --head H`` that repeat the run
    options: tuple[str, ...]

    def command(self, base: str, head: str) -> str:
        """``perfgate gate --base ... --head ...`` with this run's options."""
        return repeat_command(base, head, self.options)


def repeat_command(base: str, head: str, options: tuple[str, ...]) -> str:
    """The command line that repeats a run on ``base`` and ``head`` with ``options``."""
    return shlex.join(["perfgate", "gate", "--base", base, "--head", head, *options])


def report_target(opts: GateOptions) -> ReportTarget:
    """`ReportTarget` of ``opts`` (pure)."""
    argv: list[str] = []
    for regex in opts.bench:
        argv += ["--bench", regex]
    if opts.quick:
        argv.append("--quick")
    if opts.budget_minutes is not None:
        argv += ["--budget-minutes", f"{opts.budget_minutes:g}"]
    for flag, value in (
        ("--config", opts.config),
        ("--machine", opts.machine),
        ("--floors-ref", opts.floors_ref),
        ("--parity-result", opts.parity_result),
    ):
        if value is not None:
            argv += [flag, str(value)]
    post_to = opts.pr if opts.post else None
    return ReportTarget(
        opts.report_dir, opts.work_dir, opts.digest_output, post_to,
        opts.base, opts.head, opts.machine, tuple(argv),
    )  # fmt: skip
