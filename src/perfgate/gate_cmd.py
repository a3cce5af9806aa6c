"""`perfgate gate`: measure base and head now, decide, report, exit with the verdict.

    perfgate gate --base REV --head REV [--bench REGEX ...] [--quick] [--budget-minutes M]
        [--report-dir DIR] [--config PYPROJECT] [--repo DIR] [--work-dir DIR]
        [--machine NAME] [--post --pr N]

Runs locally with no GitHub and no server: parity at head, interleaved asv rounds of base
and head (B,H then H,B; one asv process per side and round), sequential extra rounds for
undecided cases while the budget lasts, an independent confirmation re-run of flagged cases,
then prints the markdown report and writes report.md, report.html and verdict.json into
``--report-dir`` (default ``reports/gate``; an earlier report there is moved to
``previous/<time>/``, never overwritten).

Exit codes: 0 pass, 1 stable regression (or a benchmark failing at head), 2 parity failure,
3 error or refused comparison (unknown revision, asv failing, corrupt results, machine
fingerprint changed, too few samples). An error is never a pass.

Inconclusive cases at the end of the budget: too few samples is an error (exit 3); a case
with at least ``min_samples`` rounds whose CI straddles 1 + threshold is listed as a finding
and does not block (``straddle = "report"`` in ``[tool.perfgate]``), because it is not a
*stable* regression.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import shlex
import shutil
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfgate import cli_types, gate, machine, policy, render, runner, store
from perfgate.config import GateConfig, config_from_text, load_config
from perfgate.errors import UserError
from perfgate.secrets import redact_env
from perfgate.verdict import GateVerdict

REPORT_FILES = ("report.md", "report.html", "verdict.json")
QUICK_BUDGET_MIN = 5.0
FULL_BUDGET_MIN = 90.0


def add_parser(subparsers: Any) -> None:
    """Register the ``gate`` subcommand."""
    p = subparsers.add_parser(
        "gate",
        help="measure base and head with asv, decide, report (exit 0/1/2/3)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--base", required=True, help="base revision (compared at its merge base with --head)"
    )
    p.add_argument("--head", required=True, help="head revision (any git revision)")
    add_measurement_args(p, quick_help="quick grid and parity subset")
    p.add_argument(
        "--budget-minutes", type=cli_types.positive_number, help="time budget of the measurement"
    )
    p.add_argument("--report-dir", default="reports/gate", help="default: reports/gate")
    p.add_argument("--post", action="store_true", help="post the report (needs --pr)")
    p.add_argument("--pr", type=int, help="pull request number for --post")
    p.set_defaults(func=run_from_args)


def add_measurement_args(p: argparse.ArgumentParser, quick_help: str) -> None:
    """Options of every command that measures with the gate's rounds (gate, calibrate)."""
    p.add_argument(
        "--bench", action="append", type=cli_types.regex, help="asv --bench regex (repeatable)"
    )
    p.add_argument("--quick", action="store_true", help=quick_help)
    p.add_argument("--config", help="pyproject.toml with [tool.perfgate] (default: repo's)")
    p.add_argument("--repo", default=".", help="git repository (default: current directory)")
    p.add_argument("--work-dir", help="exports, rounds, noise floors (default: REPO/.perfgate)")
    p.add_argument("--machine", help="asv machine name (default: from the fingerprint)")


def measurement_options(args: argparse.Namespace) -> dict[str, Any]:
    """The `GateOptions` fields that :func:`add_measurement_args` parsed."""
    return {
        "bench": tuple(args.bench or ()),
        "quick": args.quick,
        "config": Path(args.config) if args.config else None,
        "repo": Path(args.repo),
        "work_dir": Path(args.work_dir) if args.work_dir else None,
        "machine": args.machine,
    }


@dataclass(frozen=True)
class GateOptions:
    """Parsed command-line options of one gate run."""

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


@dataclass(frozen=True)
class Hooks:
    """The I/O seams tests replace: asv side runner, fingerprint, poster, output."""

    side_runner: gate.SideRunner = gate.asv_side
    fingerprint: Callable[[machine.PinPlan], machine.Fingerprint] = field(
        default=lambda plan: machine.collect_fingerprint(plan=plan, window=0.5)
    )
    register_machine: Callable[[str], None] = field(
        default=lambda name: runner.ensure_asv_machine(name, os.environ)
    )
    write: Callable[[str], None] = print
    log: Callable[[str], None] = field(
        default=lambda text: print(f"perfgate gate: {text}", file=sys.stderr, flush=True)
    )


def run_from_args(args: argparse.Namespace) -> int:
    """argparse -> `run`."""
    if args.post and args.pr is None:
        raise UserError("--post needs --pr N")
    opts = GateOptions(
        base=args.base,
        head=args.head,
        budget_minutes=args.budget_minutes,
        report_dir=Path(args.report_dir),
        post=args.post,
        pr=args.pr,
        **measurement_options(args),
    )
    return run(opts)


def run(opts: GateOptions, hooks: Hooks | None = None) -> int:
    """Run the gate; every failure to decide becomes an ERROR report and exit 3."""
    hooks = hooks or Hooks()
    try:
        # a run that dies (killed, out of memory) must not leave an earlier verdict to post
        _archive_previous(opts.report_dir)
        report = _gate(opts, hooks)
    except (UserError, runner.RunnerError, OSError) as exc:
        hooks.log(f"error: {redact_env(str(exc), os.environ)}")
        report = _error_report(opts, str(exc))
    except Exception as exc:  # fail closed: a crash is an ERROR report, never a stale pass
        hooks.log(redact_env(traceback.format_exc(), os.environ))
        report = _error_report(opts, f"internal error: {type(exc).__name__}: {exc}")
    markdown = render.render_markdown(report)
    hooks.write(markdown)
    try:
        write_reports(opts.report_dir, report, markdown)
    except (UserError, OSError) as exc:
        hooks.log(f"error: cannot write the report to {opts.report_dir}: {exc}")
        return GateVerdict.ERROR.exit_code
    code = report.decision.exit_code
    if opts.post:
        code = _post(opts, report, code)
    return code


def _post(opts: GateOptions, report: render.Report, code: int) -> int:
    from perfgate import post_cmd

    assert opts.pr is not None
    posted = post_cmd.run(pr=opts.pr, report_dir=opts.report_dir, sha=report.head)
    return code if posted == 0 or code != 0 else GateVerdict.ERROR.exit_code


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


def _repo_root(path: Path) -> Path:
    proc = runner.run_process(["git", "rev-parse", "--show-toplevel"], path, os.environ, 60.0)
    if proc.returncode != 0:
        raise UserError(f"{path}: not inside a git repository ({proc.tail.strip()[-200:]})")
    return Path(proc.tail.strip().splitlines()[-1])


def _benchmark_dir(repo: Path, template: Path) -> Path:
    if not template.is_file():
        raise UserError(f"{template}: asv configuration not found")
    lines = [ln for ln in template.read_text().splitlines() if not ln.lstrip().startswith("//")]
    try:
        conf = json.loads("\n".join(lines))
    except json.JSONDecodeError as exc:
        raise UserError(f"{template}: invalid JSON ({exc})") from None
    return repo / str(conf.get("benchmark_dir", "benchmarks"))


def _selection(opts: GateOptions, config: GateConfig) -> tuple[str, ...]:
    if opts.bench:
        return opts.bench
    if opts.quick and config.quick_bench:
        return config.quick_bench
    return config.gate_bench


def _budget_s(opts: GateOptions) -> float:
    minutes = opts.budget_minutes
    if minutes is None:
        minutes = QUICK_BUDGET_MIN if opts.quick else FULL_BUDGET_MIN
    if not (math.isfinite(minutes) and minutes > 0):
        raise UserError(f"--budget-minutes: expected a finite number > 0, got {minutes}")
    return 60.0 * minutes


def build_settings(
    opts: GateOptions,
    revs: Revisions,
    config: GateConfig,
    plan: machine.PinPlan,
    machine_name: str,
) -> gate.GateSettings:
    """Export both commits and fix the selection, budget and run folder."""
    repo = revs.repo
    work = opts.work_dir or repo / gate.WORK_DIR
    base, head = revs.base, revs.head
    template = repo / "asv.conf.json"
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    run_dir = work / "runs" / f"{stamp}-{base[:8]}-{head[:8]}"
    # exported afresh for every run, inside it: an export another run left behind (its
    # parity command ran in there, with the work folder persistent on the runner) is never
    # what gets measured
    exports = run_dir / "exports"
    return gate.GateSettings(
        repo=repo,
        base=base,
        head=head,
        base_source=runner.export_commit(repo, base, exports),
        head_source=runner.export_commit(repo, head, exports),
        config=config,
        asv_template=template,
        benchmark_dir=_benchmark_dir(repo, template),
        machine=machine_name,
        bench=_selection(opts, config),
        run_dir=run_dir,
        budget_s=_budget_s(opts),
        env=dict(plan.env),
        prefix=plan.prefix,
    )


def _resolve(repo: Path, rev: str) -> str:
    try:
        return runner.git_resolve(repo, rev)
    except runner.RunnerError as exc:
        raise UserError(str(exc)) from None


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
        base = runner.git_merge_base(repo, given, head)
    except runner.RunnerError as exc:
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
    """``--config``, else ``[tool.perfgate]`` of pyproject.toml *at the base commit*.

    The base is the trusted side: a pull request that loosens thresholds or blocking rules
    in its own pyproject.toml is judged by the rules it is merging into (its change applies
    from the next pull request on). ``--config`` reads a file as it is on disk.
    """
    if opts.config is not None:
        return load_config(opts.config)
    base = revs.base
    try:
        text = runner.git_show(revs.repo, base, "pyproject.toml")
    except (runner.RunnerError, UnicodeDecodeError) as exc:
        raise UserError(f"the gate's configuration at the base commit: {exc}") from None
    return config_from_text(text, f"{base[:12]}:pyproject.toml")


def _gate(opts: GateOptions, hooks: Hooks) -> render.Report:
    revs = resolve_revisions(opts)
    config = load_gate_config(opts, revs)
    plan = gate.pin_plan(config.pin_threads)
    fp_start = hooks.fingerprint(plan)
    machine_name = opts.machine or gate.machine_id(fp_start)
    s = build_settings(opts, revs, config, plan, machine_name)
    try:
        return _gate_run(opts, hooks, plan, fp_start, s, revs.note(opts.base))
    finally:
        discard_exports(s)


def discard_exports(s: gate.GateSettings) -> None:
    """Delete the run's exports (samples and reports stay): they are not reused."""
    shutil.rmtree(s.run_dir / "exports", ignore_errors=True)


def _gate_run(
    opts: GateOptions,
    hooks: Hooks,
    plan: machine.PinPlan,
    fp_start: machine.Fingerprint,
    s: gate.GateSettings,
    base_note: str | None,
) -> render.Report:
    config, machine_name = s.config, s.machine
    hooks.log(f"base {s.base[:12]} head {s.head[:12]} machine {machine_name}; run dir {s.run_dir}")
    changes = (*([base_note] if base_note else []), *suite_notes(s))
    parity = gate.run_parity(s, gate.parity_command(config, opts.quick))
    hooks.log(f"parity: {parity.status.value}")
    if parity.status is not policy.ParityStatus.PASSED:
        decision = policy.parity_failure_decision(parity)
        return _report(opts, s, decision, None, parity, None, changes)
    hooks.register_machine(machine_name)
    noise_file, noise_note = gate.usable_noise_file(
        s.run_dir.parent.parent, machine_name, fp_start.to_dict(), config.min_samples
    )
    floors = gate.read_floors(noise_file)
    measurer = gate.Measurer(s, fp_start.to_dict(), hooks.side_runner)
    measured = gate.measure(measurer, floors, hooks.log)
    fp_end = hooks.fingerprint(plan)
    analysis = gate.analyse(measured, config, floors)
    environment = policy.EnvironmentCheck(
        gate.comparable_fingerprint(fp_start),
        gate.comparable_fingerprint(fp_end),
        config.fingerprint_ignore,
    )
    decision = policy.decide(
        analysis.rows, analysis.variants, config,
        parity=parity, parity_required=True, environment=environment,
    )  # fmt: skip
    notes = (*_notes(s, measured, noise_note, plan), *changes)
    return _report(opts, s, decision, analysis, parity, environment, notes)


#: Changed benchmark files named in the report; the rest are counted.
MAX_NAMED_FILES = 8


def suite_notes(s: gate.GateSettings) -> tuple[str, ...]:
    """A report line naming benchmark files of this checkout (both sides run them, as asv
    does) that differ from the base commit's.

    A pull request that edits a blocking benchmark changes what both sides measure; the
    gate still runs it, and says so where the reviewer reads the verdict.
    """
    try:
        changed = runner.git_changed_files(s.repo, s.base, s.benchmark_dir)
    except (runner.RunnerError, ValueError) as exc:
        return (f"suites: not compared with the base commit's ({exc})",)
    if not changed:
        return ()
    shown = ", ".join(changed[:MAX_NAMED_FILES])
    more = len(changed) - MAX_NAMED_FILES
    return (
        f"suites: both sides ran this checkout's benchmarks, which differ from the base "
        f"commit's in {shown}{f' and {more} more' if more > 0 else ''}: review those changes "
        "with these results",
    )


def _notes(
    s: gate.GateSettings,
    measured: gate.Measured,
    floors: str,
    plan: machine.PinPlan,
) -> tuple[str, ...]:
    rounds = (
        f"rounds: {measured.main_rounds} main ({measured.extra_rounds} extra for undecided "
        f"cases), {measured.confirm_rounds} confirmation; order alternates B,H / H,B"
    )
    if measured.budget_exhausted:
        rounds += f"; the {s.budget_s / 60:.1f}-minute budget ran out with cases undecided"
    pin = f"pinning: cpus {machine.format_cpulist(plan.cpus)}, memory {plan.memory_policy}"
    pin += f", prefix {shlex.join(plan.prefix) or '(none)'}"
    samples = "samples: " + ", ".join(str(p) for p in measured.sample_files)
    env_note = "environment: fingerprint at the start (base column) and end (head column)"
    return (f"configuration: {s.config.source}", rounds, floors, pin, samples, env_note)


def _command(opts: GateOptions, base: str, head: str) -> str:
    argv = ["perfgate", "gate", "--base", base, "--head", head]
    for regex in opts.bench:
        argv += ["--bench", regex]
    if opts.quick:
        argv.append("--quick")
    if opts.budget_minutes is not None:
        argv += ["--budget-minutes", f"{opts.budget_minutes:g}"]
    if opts.config is not None:
        argv += ["--config", str(opts.config)]
    if opts.machine is not None:
        argv += ["--machine", opts.machine]
    return shlex.join(argv)


def _report(
    opts: GateOptions,
    s: gate.GateSettings,
    decision: policy.GateDecision,
    analysis: gate.Analysis | None,
    parity: policy.ParityResult,
    environment: policy.EnvironmentCheck | None,
    notes: Sequence[str],
) -> render.Report:
    return render.Report(
        decision=decision,
        config=s.config,
        base=s.base,
        head=s.head,
        machine=s.machine,
        command=_command(opts, s.base, s.head),
        rows=analysis.rows if analysis else (),
        variants=analysis.variants if analysis else (),
        scaling=analysis.scaling if analysis else (),
        variant_scaling=analysis.variant_scaling if analysis else (),
        compile_rows=analysis.compile_rows if analysis else (),
        parity=parity,
        environment=environment,
        notes=tuple(notes),
    )


def _error_report(opts: GateOptions, message: str) -> render.Report:
    message = redact_env(message, os.environ)
    decision = policy.GateDecision(GateVerdict.ERROR, (f"ERROR: {message}",))
    return render.Report(
        decision=decision,
        config=GateConfig(),
        base=opts.base,
        head=opts.head,
        machine=opts.machine or "unknown",
        command=_command(opts, opts.base, opts.head),
    )


# --------------------------------------------------------------------------------------------
# Report files
# --------------------------------------------------------------------------------------------


def write_reports(folder: Path, report: render.Report, markdown: str) -> None:
    """Write report.md, report.html, verdict.json; an earlier report is moved aside first."""
    _archive_previous(folder)
    store.write_text_atomic(folder / "report.md", markdown)
    store.write_text_atomic(folder / "report.html", render.render_html(report))
    data = render.verdict_json(report)
    store.write_text_atomic(
        folder / "verdict.json", json.dumps(data, indent=1, sort_keys=True) + "\n"
    )


def _archive_previous(folder: Path) -> None:
    existing = [folder / n for n in REPORT_FILES if (folder / n).exists()]
    if not existing:
        return
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / "previous" / stamp
    target.mkdir(parents=True)
    for path in existing:
        os.replace(path, target / path.name)
