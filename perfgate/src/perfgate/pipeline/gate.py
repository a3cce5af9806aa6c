"""One gate run, its stages in order: context -> parity -> measure (with sampling) ->
compare -> decide -> render -> publish. Every failure to decide becomes an ERROR report
(exit 3), never a pass; the report is written even then. A report folder that cannot take
the report is refused before anything runs; the report is printed only once it is written,
and printed, written and posted without the secrets of the environment.
"""

from __future__ import annotations

import os
import shlex
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from perfgate import containment, machine
from perfgate.atomic import check_output_dir
from perfgate.config import GateConfig
from perfgate.errors import RunnerError, UserError
from perfgate.formats import report_files, timeline
from perfgate.formats.jsonfile import utc_stamp
from perfgate.formats.noise import NoiseFile
from perfgate.model import (
    EnvironmentCheck,
    Finding,
    GateDecision,
    Measured,
    ParityResult,
    ParityStatus,
    with_asv_environments,
)
from perfgate.pipeline import (
    context,
    decide,
    instruments,
    measure,
    parity,
    publish,
    render,
    sim_phase,
)
from perfgate.pipeline.compare.analysis import Analysis, analyse
from perfgate.pipeline.context import GateOptions, GateSettings
from perfgate.pipeline.discover import check_selection, discovered_names
from perfgate.pipeline.failure_texts import explain_failures
from perfgate.pipeline.hooks import Hooks
from perfgate.pipeline.preview import newest_timeline
from perfgate.pipeline.side_run import SideRun, SideRunner
from perfgate.progress import Progress
from perfgate.secrets import redact_env
from perfgate.verdict import GateVerdict


def run(opts: GateOptions, hooks: Hooks | None = None) -> int:
    """Run the gate, print and write the report (and post it); returns the exit code."""
    hooks = hooks or Hooks()
    ticker = Progress(hooks.log)  # a line at least every 10 s while a stage runs
    hooks = replace(hooks, log=ticker.log)
    report_files.check_report_dir(opts.report_dir)  # misuse is a clean error before any run
    if opts.work_dir is not None:
        check_output_dir(opts.work_dir, "--work-dir", "exports, rounds and noise floors")
    try:
        # a run that dies (killed, out of memory) must not leave an earlier verdict to post
        report_files.archive_previous(opts.report_dir)
        report = _gate(opts, hooks, ticker)
    except (UserError, RunnerError, OSError) as exc:
        hooks.log(f"error: {redact_env(str(exc), os.environ)}")
        report = _error_report(opts, str(exc))
    except Exception as exc:  # fail closed: a crash is an ERROR report, never a stale pass
        hooks.log(redact_env(traceback.format_exc(), os.environ))
        report = _error_report(opts, f"internal error: {type(exc).__name__}: {exc}")
    markdown = redact_env(render.render_markdown(report), os.environ)
    try:  # written first: nothing is printed as a verdict that is not final
        digest = publish.replace_reports(opts.report_dir, report, markdown)
        hooks.log(f"report digest {digest} ({', '.join(report_files.REPORT_FILES)})")
        if opts.digest_output is not None:
            publish.record_digest(opts.digest_output, digest)
    except (UserError, OSError) as exc:
        hooks.log(
            redact_env(f"error: cannot write the report to {opts.report_dir}: {exc}", os.environ)
        )
        return GateVerdict.ERROR.exit_code
    hooks.write(markdown)
    code = report.decision.exit_code
    if opts.post:
        assert opts.pr is not None
        posted = publish.post_report(pr=opts.pr, report_dir=opts.report_dir, sha=report.head)
        code = code if posted == 0 or code != 0 else GateVerdict.ERROR.exit_code
    return code


def _gate(opts: GateOptions, hooks: Hooks, ticker: Progress) -> render.Report:
    started = time.monotonic()
    revs = context.resolve_revisions(opts)
    given = parity.given_result(opts.parity_result, revs.head) if opts.parity_result else None
    config = context.load_gate_config(opts, revs)
    plan, fp_start, s = context.settings_on_this_machine(
        opts, revs, config, hooks.fingerprint, hooks.valgrind
    )
    progress = _Progress()
    try:
        inputs = (revs.note(opts.base), given)
        return _gate_run(opts, hooks, (plan, fp_start), s, inputs, started, (progress, ticker))
    except (UserError, RunnerError, OSError) as exc:
        hooks.log(f"error: {redact_env(str(exc), os.environ)}")
        return _failed_report(opts, s, str(exc), progress)
    except Exception as exc:  # fail closed, and say what ran (as run() does before this)
        hooks.log(redact_env(traceback.format_exc(), os.environ))
        return _failed_report(opts, s, f"internal error: {type(exc).__name__}: {exc}", progress)
    finally:
        context.discard_exports(s)


@dataclass
class _Progress:
    """What a run has done so far, for the report of a run that fails half-way: parity as
    it ended (None: not run) and the report notes gathered."""

    parity: ParityResult | None = None
    notes: tuple[str, ...] = ()


def _gate_run(
    opts: GateOptions,
    hooks: Hooks,
    machine_at_start: tuple[machine.PinPlan, machine.Fingerprint],
    s: GateSettings,
    inputs: tuple[str | None, ParityResult | None],
    started: float,
    progresses: tuple[_Progress, Progress],
) -> render.Report:
    """The run after its exports (``started``: when the run began, for its timeline):
    the ``--bench`` check, parity, measurement, comparison and decision; ``inputs`` are the
    note on the base and the parity result taken from CI (None: run it here); ``progress``
    is kept up to date for a report of a failure, the ticker prints while stages run."""
    progress, ticker = progresses
    given = inputs[1]
    config, machine_name = s.config, s.machine
    plan, fp_start = machine_at_start
    killed_before = len(containment.killed())
    found, s = _before_parity(opts, hooks, s, inputs, progress)
    changes = progress.notes
    parity_started = time.monotonic()
    command = parity.parity_command(config, opts.quick)
    earlier = newest_timeline(s.work_dir, " ".join(command))
    with ticker.stage("parity", _parity_expected(earlier, command)):
        if not given:
            hooks.log(f"parity: {' '.join(command)} (a first run compiles the kernels it tests)")
        parity_result = given or parity.run_parity(s, command, progress=ticker)
    parity_s = None if given else time.monotonic() - parity_started
    hooks.log(f"parity: {parity_result.status.value}" + (" (from CI)" if given else ""))
    progress.parity = parity_result
    if parity_result.status is not ParityStatus.PASSED:
        failed = decide.parity_failure_decision(parity_result)
        notes = (*containment.killed_note(killed_before), *changes)
        return _report(opts, s, failed, None, parity_result, None, notes)
    noise, noise_note = context.usable_noise_file(
        found, machine_name, fp_start.to_dict(), config.min_samples
    )
    floors = noise.floors() if noise is not None else {}
    checks = noise.sim_checks() if noise is not None else {}
    with ticker.stage("sim"):
        sim = (
            sim_phase.run_sim_phase(s, s.sim_bench, hooks.log, hooks.sim_runner, checks)
            if s.sim_bench
            else None
        )
    measurer = measure.Measurer(s, fp_start.to_dict(), _announced(hooks.side_runner, ticker))
    expected = sum(r.seconds for r in earlier.rounds) if earlier is not None else None
    with ticker.stage("measure", expected):
        measured = (
            measure.measure(measurer, floors, hooks.log) if s.wall else measure.nothing_measured()
        )
    parity_time = (parity_result.command, parity_s)
    _write_timeline(s, measurer, parity_time, measurer.started - started - (parity_s or 0.0))
    fp_end = hooks.fingerprint(plan)
    sides = (sim.base, sim.head, sim.base_again) if sim is not None else None
    analysis = explain_failures(analyse(measured, config, floors, sides, checks), [s.run_dir])
    envs = {side: set(measurer.environments.get(side, ())) for side in ("base", "head")}
    for side, names in (sim.environments if sim is not None else {}).items():
        envs[side] |= names
    environment = EnvironmentCheck(
        with_asv_environments(context.comparable_fingerprint(fp_start), envs["base"]),
        with_asv_environments(context.comparable_fingerprint(fp_end), envs["head"]),
        config.fingerprint_ignore,
    )
    decision = decide.decide(
        analysis.rows, analysis.variants, config,
        parity=parity_result, parity_required=True, environment=environment,
    )  # fmt: skip
    notes = (
        *_notes(s, measured, noise_note, plan),
        *containment.killed_note(killed_before),
        *changes,
    )
    return _report(opts, s, decision, analysis, parity_result, environment, notes)


def _before_parity(
    opts: GateOptions,
    hooks: Hooks,
    s: GateSettings,
    inputs: tuple[str | None, ParityResult | None],
    progress: _Progress,
) -> tuple[NoiseFile | None, GateSettings]:
    """The noise file (read before any code of the head runs), asv's machine, and the
    ``--bench`` regexes checked against the discovered suites (before parity and measuring:
    a selection of nothing would run them for nothing), the run's notes into ``progress``;
    the settings without the instrument the selection leaves nothing to measure."""
    base_note, given = inputs
    hooks.log(f"base {s.base[:12]} head {s.head[:12]} machine {s.machine}; run dir {s.run_dir}")
    progress.notes = (
        *([base_note] if base_note else []),
        *context.suite_notes(s),
        *([_parity_note(opts, s)] if given else []),
    )
    found = context.read_noise(s.repo, opts.floors_ref, s.machine)
    hooks.register_machine(s.machine)  # asv's discovery and rounds need it
    if opts.bench:
        names = discovered_names(s, hooks.discover)
        check_selection(names, opts.bench)
        s = instruments.narrowed(s, names.values())
    return found, s


def _parity_expected(earlier: timeline.Timeline | None, command: Sequence[str]) -> float | None:
    """The parity seconds of the newest earlier run of the same command (None: none)."""
    if earlier is None or earlier.parity_command != " ".join(command):
        return None
    return earlier.parity_s


def _announced(runner: SideRunner, ticker: Progress) -> SideRunner:
    """``runner``, saying in the progress status which side of which round asv measures."""

    def run(settings: GateSettings, side: str, folder: Path, bench: Sequence[str]) -> SideRun:
        ticker.status(f"asv measuring the {side} side ({folder.name})")
        return runner(settings, side, folder, bench)

    return run


def _notes(
    s: GateSettings, measured: Measured, floors: str, plan: machine.PinPlan
) -> tuple[str, ...]:
    rounds = (
        f"rounds: {measured.main_rounds} main ({measured.extra_rounds} extra for undecided "
        f"cases), {measured.confirm_rounds} confirmation; order alternates B,H / H,B; "
        "cases of families that never block ran in the first round only (when any case can)"
    )
    if measured.budget_exhausted:
        rounds += f"; the {s.budget_s / 60:.1f}-minute budget ran out with cases undecided"
    pin = f"pinning: cpus {machine.format_cpulist(plan.cpus)}, memory {plan.memory_policy}"
    pin += f", prefix {shlex.join(plan.prefix) or '(none)'}"
    samples = "samples: " + ", ".join(str(p) for p in measured.sample_files)
    env_note = (
        "environment: fingerprint at the start (base column) and end (head column), and "
        "the asv environment each side measured in"
    )
    notes = (f"configuration: {s.config.source}", rounds, floors, pin, samples, env_note)
    return (*notes, s.instruments_note) if s.instruments_note else notes


def _write_timeline(
    s: GateSettings,
    measurer: measure.Measurer,
    parity_time: tuple[str, float | None],
    setup_s: float,
) -> None:
    """Record where the run's minutes went (``--plan`` of a later run reads it)."""
    command, parity_s = parity_time
    stamp = utc_stamp()
    record = timeline.Timeline(
        command, parity_s, max(0.0, setup_s), tuple(measurer.round_times), stamp
    )
    timeline.write_timeline(s.run_dir, record)


def _parity_note(opts: GateOptions, s: GateSettings) -> str:
    return (
        f"parity: taken from {opts.parity_result}, CI's run at this head ({s.head[:12]}); "
        "not re-run on this machine"
    )


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
    if opts.floors_ref is not None:
        argv += ["--floors-ref", opts.floors_ref]
    if opts.parity_result is not None:
        argv += ["--parity-result", str(opts.parity_result)]
    return shlex.join(argv)


def _report(
    opts: GateOptions,
    s: GateSettings,
    decision: GateDecision,
    analysis: Analysis | None,
    parity_result: ParityResult | None,
    environment: EnvironmentCheck | None,
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
        parity=parity_result,
        environment=environment,
        notes=tuple(notes),
    )


def _failed_report(
    opts: GateOptions, s: GateSettings, message: str, progress: _Progress
) -> render.Report:
    """The ERROR report of a run that failed after its set-up: its commits and machine,
    parity as it ended and the notes so far (what really ran)."""
    message = redact_env(message, os.environ)
    decision = GateDecision(GateVerdict.ERROR, (Finding(GateVerdict.ERROR, message),))
    return _report(opts, s, decision, None, progress.parity, None, progress.notes)


def _error_report(opts: GateOptions, message: str) -> render.Report:
    message = redact_env(message, os.environ)
    decision = GateDecision(GateVerdict.ERROR, (Finding(GateVerdict.ERROR, message),))
    return render.Report(
        decision=decision,
        config=GateConfig(),
        base=opts.base,
        head=opts.head,
        machine=opts.machine or "unknown",
        command=_command(opts, opts.base, opts.head),
    )
