"""One gate run: the options resolved once (`perfgate.gate.context.resolve_run`), then the
stages of `STAGES` in order over one `GateRun`: prepare (the exports and builds) -> select
-> parity -> measure (each instrument) -> compare -> decide; then render and publish.
Every failure to decide becomes an ERROR report (exit 3), never a pass; the report is
written even then. A report folder that cannot take the report is refused before anything
runs; the report is printed only once it is written, and printed, written and posted
without the secrets of the environment.
"""

from __future__ import annotations

import os
import shlex
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from perfgate import containment, machine
from perfgate.asv.discover import check_selection, discovered_names
from perfgate.atomic import check_output_dir
from perfgate.config import GateConfig
from perfgate.errors import RunnerError, UserError
from perfgate.formats import report_files, timeline
from perfgate.formats.noise import NoiseFile
from perfgate.gate import context, decide, instruments, parity, publish, sides
from perfgate.gate.compare import Analysis, analyse
from perfgate.gate.failure_texts import explain_failures
from perfgate.gate.hooks import Hooks
from perfgate.gate.preview import newest_timeline
from perfgate.instrument import Bench, Calibration
from perfgate.model import (
    EnvironmentCheck,
    Finding,
    GateDecision,
    ParityResult,
    ParityStatus,
    with_asv_environments,
)
from perfgate.progress import Progress
from perfgate.report import render
from perfgate.secrets import redact_env
from perfgate.settings import (
    GateOptions,
    GateSettings,
    ReportTarget,
    repeat_command,
    report_target,
)
from perfgate.verdict import GateVerdict


def run(opts: GateOptions, hooks: Hooks | None = None) -> int:
    """Run the gate, print and write the report (and post it); returns the exit code."""
    began = time.monotonic()  # the wall clock's budget counts from here (set-up, parity)
    hooks = hooks or Hooks()
    ticker = Progress(hooks.log)  # a line at least every 10 s while a stage runs
    hooks = replace(hooks, log=ticker.log)
    target = report_target(opts)
    report_files.check_report_dir(target.report_dir)  # misuse is a clean error before any run
    if target.work_dir is not None:
        check_output_dir(target.work_dir, "--work-dir", "exports, rounds and noise floors")
    try:
        # a run that dies (killed, out of memory) must not leave an earlier verdict to post
        report_files.archive_previous(target.report_dir)
        resolved = context.resolve_run(opts, hooks.fingerprint, hooks.valgrind)
        report = _gate(resolved, hooks, ticker, began)
    except (UserError, RunnerError, OSError) as exc:
        hooks.log(f"error: {redact_env(str(exc), os.environ)}")
        report = _error_report(target, str(exc))
    except Exception as exc:  # fail closed: a crash is an ERROR report, never a stale pass
        hooks.log(redact_env(traceback.format_exc(), os.environ))
        report = _error_report(target, f"internal error: {type(exc).__name__}: {exc}")
    out = Publication(target, report, hooks, report.decision.exit_code)
    for step in PUBLISH:
        if out.code is not None:
            step(out)
    return out.code if out.code is not None else GateVerdict.ERROR.exit_code


@dataclass
class Publication:
    """A decided report on its way out: rendered, written, printed, posted, in that order;
    ``code`` is the run's exit code so far (None: writing failed, the run is an ERROR)."""

    target: ReportTarget
    report: render.Report
    hooks: Hooks
    code: int | None
    markdown: str = ""


def _write(out: Publication) -> None:
    """Render and write the report files first: nothing is printed as a verdict that is not
    final (a folder that refuses them makes the run an ERROR)."""
    out.markdown = redact_env(render.render_markdown(out.report), os.environ)
    try:
        digest = publish.replace_reports(out.target.report_dir, out.report, out.markdown)
        out.hooks.log(f"report digest {digest} ({', '.join(report_files.REPORT_FILES)})")
        if out.target.digest_output is not None:
            publish.record_digest(out.target.digest_output, digest)
    except (UserError, OSError) as exc:
        where = f"error: cannot write the report to {out.target.report_dir}: {exc}"
        out.hooks.log(redact_env(where, os.environ))
        out.code = None


def _print(out: Publication) -> None:
    """The report, as written, on standard output."""
    out.hooks.write(out.markdown)


def _post(out: Publication) -> None:
    """The sticky comment and the commit status (``--post``); a failed post of a passing
    run makes it an ERROR, never a silent pass."""
    pr = out.target.post_to
    if pr is None or out.code is None:
        return
    posted = publish.post_report(pr=pr, report_dir=out.target.report_dir, sha=out.report.head)
    if posted != 0 and out.code == 0:
        out.code = GateVerdict.ERROR.exit_code


#: What happens to a decided report, in order.
PUBLISH: tuple[Callable[[Publication], None], ...] = (_write, _print, _post)


@dataclass
class GateRun:
    """One run as its stages fill it in: what it was given (settings, seams, the machine at
    the start), what each stage found, and the decision once one is made (a stage that
    decides, as a failing parity does, ends the run: later stages see ``decision``)."""

    settings: GateSettings
    hooks: Hooks
    ticker: Progress
    pin: machine.PinPlan
    fp_start: machine.Fingerprint
    given_parity: ParityResult | None
    started: float = field(default_factory=time.monotonic)
    killed_before: int = field(default_factory=lambda: len(containment.killed()))
    notes: tuple[str, ...] = ()
    noise: NoiseFile | None = None
    parity: ParityResult | None = None
    parity_s: float | None = None
    earlier: timeline.Timeline | None = None
    #: each instrument's phase as it measured (for the report's timeline)
    phases: tuple[timeline.PhaseTime, ...] = ()
    #: where this run's minutes went (the wall clock's timeline.json, else its phases)
    timeline: timeline.Timeline | None = None
    calibration: Calibration = field(default_factory=Calibration)
    noise_note: str = ""
    measured: dict[str, Any] = field(default_factory=dict)
    analysis: Analysis | None = None
    environment: EnvironmentCheck | None = None
    decision: GateDecision | None = None


def _gate(
    resolved: context.Resolved, hooks: Hooks, ticker: Progress, began: float
) -> render.Report:
    """The stages over one run that began at ``began`` (monotonic); its report (an ERROR
    report of what ran, on a failure)."""
    s = resolved.settings
    state = GateRun(
        s, hooks, ticker, resolved.pin, resolved.fingerprint, resolved.given_parity, began
    )
    try:
        for stage in STAGES:
            if state.decision is None:
                stage(state)
        return _report(state)
    except (UserError, RunnerError, OSError) as exc:
        hooks.log(f"error: {redact_env(str(exc), os.environ)}")
        return _failed_report(state, str(exc))
    except Exception as exc:  # fail closed, and say what ran (as run() does before this)
        hooks.log(redact_env(traceback.format_exc(), os.environ))
        return _failed_report(state, f"internal error: {type(exc).__name__}: {exc}")
    finally:
        sides.discard(state.settings)


def _prepare(run: GateRun) -> None:
    """Both commits exported (and built, under ``build = "pip"``) into the run's folder:
    the first work of a run, after its settings are fixed."""
    s = run.settings
    run.hooks.log(
        f"base {s.base[:12]} head {s.head[:12]} machine {s.machine}; run dir {s.run_dir}"
    )
    run.settings = sides.prepare(s)


def _select(run: GateRun) -> None:
    """The noise file (read before any code of the head runs), asv's machine, and the
    ``--bench`` regexes checked against the discovered suites (before parity and measuring:
    a selection of nothing would run them for nothing), the run's first notes; the settings
    without the instrument the selection leaves nothing to measure."""
    s, hooks = run.settings, run.hooks
    run.notes = (
        *([s.base_note] if s.base_note else []),
        *context.suite_notes(s),
        *([_parity_note(s)] if run.given_parity else []),
    )
    run.noise = context.read_noise(s.repo, s.floors_ref, s.machine)
    hooks.register_machine(s.machine)  # asv's discovery and rounds need it
    if s.bench_given:
        names = discovered_names(s, hooks.discover)
        check_selection(names, s.bench_given)
        run.settings = instruments.narrowed(s, names.values())


def _parity(run: GateRun) -> None:
    """The head's correctness command (or CI's result of it); a failure decides the run."""
    s, hooks, given = run.settings, run.hooks, run.given_parity
    started = time.monotonic()
    command = parity.parity_command(s.config, s.quick)
    run.earlier = newest_timeline(s.work_dir, " ".join(command))
    with run.ticker.stage("parity", _parity_expected(run.earlier, command)):
        if not given:
            hooks.log(f"parity: {' '.join(command)} (a first run compiles the kernels it tests)")
        result = given or parity.run_parity(s, command, progress=run.ticker)
    run.parity_s = None if given else time.monotonic() - started
    hooks.log(f"parity: {result.status.value}" + (" (from CI)" if given else ""))
    run.parity = result
    if result.status is not ParityStatus.PASSED:
        run.decision = decide.parity_failure_decision(result)


def _measure(run: GateRun) -> None:
    """Each selected instrument measures both sides: those that share the machine first."""
    s = run.settings
    noise, run.noise_note = context.usable_noise_file(
        run.noise, s.machine, run.fp_start.to_dict(), s.config.min_samples
    )
    run.calibration = Calibration(
        noise.floors() if noise is not None else {},
        noise.sim_checks() if noise is not None else {},
    )
    assert run.parity is not None
    bench = Bench(
        s, run.calibration, run.hooks, run.hooks.log, run.ticker, run.fp_start.to_dict(),
        run.started, (run.parity.command, run.parity_s),
    )  # fmt: skip
    earlier = run.earlier
    expected = sum(r.seconds for r in earlier.rounds) if earlier is not None else None
    others = 0.0
    phases: list[timeline.PhaseTime] = []
    for instrument in instruments.measuring_order(instruments.REGISTRY):
        if instrument.selected(s):
            alone = instrument.needs_machine_alone
            began = time.monotonic()
            before = earlier.phase(instrument.name) if earlier is not None else None
            planned = expected if alone else (before.seconds if before is not None else None)
            with run.ticker.stage(instrument.name, planned):
                measured = instrument.measure(
                    replace(bench, others_s=others, phases=tuple(phases))
                )
            run.measured[instrument.name] = measured
            spent = time.monotonic() - began
            phases.append(phase_time(instrument.name, measured, spent))
            others += spent
    run.phases = tuple(phases)
    run.timeline = timeline.read_timeline(s.run_dir) or timeline.Timeline(
        run.parity.command, run.parity_s, 0.0, (), phases=run.phases
    )


def phase_time(name: str, measured: object, seconds: float) -> timeline.PhaseTime:
    """An instrument's phase for the timeline: its own record of it where it keeps one
    (the sim phase's families), else its name and ``seconds``."""
    own = getattr(measured, "phase_time", None)
    return own() if callable(own) else timeline.PhaseTime(name, seconds)


def _compare(run: GateRun) -> None:
    """Each instrument compares its sides; the machine's fingerprint at both ends with the
    asv environments each side ran in."""
    s = run.settings
    fp_end = run.hooks.fingerprint(run.pin)
    analysis = analyse(run.measured, s.config, run.calibration)
    run.analysis = explain_failures(analysis, [s.run_dir])
    envs = {side: set(run.analysis.environments.get(side, ())) for side in ("base", "head")}
    run.environment = EnvironmentCheck(
        with_asv_environments(context.comparable_fingerprint(run.fp_start), envs["base"]),
        with_asv_environments(context.comparable_fingerprint(fp_end), envs["head"]),
        s.config.fingerprint_ignore,
    )


def _decide(run: GateRun) -> None:
    """Rows, parity and the environment check -> the verdict."""
    assert run.analysis is not None
    run.decision = decide.decide(
        run.analysis.rows, run.analysis.variants, run.settings.config,
        parity=run.parity, parity_required=True, environment=run.environment,
    )  # fmt: skip
    run.notes = (
        *_notes(run.settings, run.analysis.notes, run.noise_note, run.pin),
        *containment.killed_note(run.killed_before),
        *run.notes,
    )


#: The gate's stages in run order (render and publish follow, in `run`).
STAGES: tuple[Callable[[GateRun], None], ...] = (
    _prepare,
    _select,
    _parity,
    _measure,
    _compare,
    _decide,
)


def _parity_expected(earlier: timeline.Timeline | None, command: Sequence[str]) -> float | None:
    """The parity seconds of the newest earlier run of the same command (None: none)."""
    if earlier is None or earlier.parity_command != " ".join(command):
        return None
    return earlier.parity_s


def _notes(
    s: GateSettings, measured: Sequence[str], floors: str, plan: machine.PinPlan
) -> tuple[str, ...]:
    """The report's notes: the policy's source, what the instruments say of their
    measurements (``measured``), the noise floors, pinning and the environment check."""
    pin = f"pinning: cpus {machine.format_cpulist(plan.cpus)}, memory {plan.memory_policy}"
    pin += f", prefix {shlex.join(plan.prefix) or '(none)'}"
    env_note = (
        "environment: fingerprint at the start (base column) and end (head column), and "
        "the asv environment each side measured in"
    )
    notes = (f"configuration: {s.config.source}", *measured, floors, pin, env_note)
    return (*notes, s.instruments_note) if s.instruments_note else notes


def _parity_note(s: GateSettings) -> str:
    return (
        f"parity: taken from {s.parity_result}, CI's run at this head ({s.head[:12]}); "
        "not re-run on this machine"
    )


def _report(run: GateRun) -> render.Report:
    """The report of a run its stages decided."""
    s, analysis = run.settings, run.analysis
    assert run.decision is not None
    if analysis is None:  # decided before anything was measured (parity failed)
        notes = (*containment.killed_note(run.killed_before), *run.notes)
        return _rendered(run, run.decision, notes)
    return render.Report(
        decision=run.decision,
        config=s.config,
        base=s.base,
        head=s.head,
        machine=s.machine,
        command=_command(s),
        rows=analysis.rows,
        variants=analysis.variants,
        scaling=analysis.scaling,
        variant_scaling=analysis.variant_scaling,
        compile_rows=analysis.compile_rows,
        attribution=analysis.attribution,
        parity=run.parity,
        environment=run.environment,
        notes=run.notes,
        timeline=run.timeline,
        planned=run.earlier,
    )


def _rendered(run: GateRun, decision: GateDecision, notes: Sequence[str]) -> render.Report:
    """A report without tables: the run's commits, machine, parity as it ended, ``notes``."""
    s = run.settings
    return render.Report(
        decision=decision,
        config=s.config,
        base=s.base,
        head=s.head,
        machine=s.machine,
        command=_command(s),
        parity=run.parity,
        notes=tuple(notes),
    )


def _command(s: GateSettings) -> str:
    """The command that repeats the run on the commits it compared."""
    return repeat_command(s.base, s.head, s.options)


def _failed_report(run: GateRun, message: str) -> render.Report:
    """The ERROR report of a run that failed after its set-up: its commits and machine,
    parity as it ended and the notes so far (what really ran)."""
    message = redact_env(message, os.environ)
    decision = GateDecision(GateVerdict.ERROR, (Finding(GateVerdict.ERROR, message),))
    return _rendered(run, decision, run.notes)


def _error_report(target: ReportTarget, message: str) -> render.Report:
    message = redact_env(message, os.environ)
    decision = GateDecision(GateVerdict.ERROR, (Finding(GateVerdict.ERROR, message),))
    return render.Report(
        decision=decision,
        config=GateConfig(),
        base=target.base,
        head=target.head,
        machine=target.machine or "unknown",
        command=target.command(target.base, target.head),
    )
