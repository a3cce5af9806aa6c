"""Orchestration of one gate run: exports, parity, interleaved asv rounds, confirmation.

Data flow (architecture.md): resolve revisions -> pin plan + machine fingerprint -> parity at
head -> asv rounds of base and head, alternating B,H / H,B, each side in its own asv process
(``runner.run_asv``) -> sample file, rewritten as a new checkpoint after every round ->
sequential extra rounds for inconclusive cases while the budget lasts -> an independent
confirmation re-run of just the flagged cases -> ``compare`` + ``policy`` (pure) -> report.

Nothing here decides a verdict: it gathers data and hands it to the pure modules. Every
failure to gather data raises `GateError` (a `UserError`: exit 3, fail closed).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfgate import compare, gate_rounds, machine, policy, runner, store
from perfgate.compare import CaseComparison, Measurement, VariantComparison
from perfgate.config import GateConfig
from perfgate.errors import ResultFileError, UserError
from perfgate.gate_rounds import Round, RoundLog, Samples
from perfgate.store import CaseKey
from perfgate.verdict import CaseVerdict

WORK_DIR = ".perfgate"


class GateError(UserError):
    """The gate could not gather the data it needs (asv, git, parity could not run): exit 3."""


@dataclass(frozen=True)
class GateSettings:
    """Everything one gate run needs, resolved (SHAs, exports, selection, limits)."""

    repo: Path
    base: str
    head: str
    base_source: Path
    head_source: Path
    config: GateConfig
    asv_template: Path
    benchmark_dir: Path
    machine: str
    bench: tuple[str, ...]
    run_dir: Path
    budget_s: float
    env: Mapping[str, str]
    prefix: tuple[str, ...] = ()
    attributes: Mapping[str, str] = field(default_factory=lambda: {"rounds": "1"})
    asv_timeout_s: float = 1800.0

    @property
    def same_commit(self) -> bool:
        """True for an A/A run (base and head are one commit)."""
        return self.base == self.head


SideRunner = Callable[[GateSettings, str, Path, Sequence[str]], Mapping[CaseKey, Samples]]
"""(settings, side, round directory, --bench regexes) -> case samples of that side."""


# --------------------------------------------------------------------------------------------
# One side of one round: asv in its own process, then read its result file
# --------------------------------------------------------------------------------------------


def asv_side(
    settings: GateSettings, side: str, round_dir: Path, bench: Sequence[str]
) -> dict[CaseKey, Samples]:
    """Run asv for ``side`` into ``round_dir`` and return the samples of the cases that ran."""
    sha = settings.base if side == "base" else settings.head
    source = settings.base_source if side == "base" else settings.head_source
    config = runner.write_round_config(
        settings.asv_template, round_dir, settings.benchmark_dir, settings.repo
    )
    inv = runner.AsvInvocation(
        config=config,
        sha=sha,
        source=source,
        machine=settings.machine,
        bench=tuple(bench),
        attributes=settings.attributes,
        prefix=settings.prefix,
        env=dict(settings.env),
        timeout_s=settings.asv_timeout_s,
    )
    outcome = runner.run_asv(inv, os.environ)
    (round_dir / "asv-output.txt").write_text(outcome.tail)
    if outcome.timed_out:
        raise GateError(f"asv for {side} {sha[:12]} timed out after {settings.asv_timeout_s}s")
    return read_side(round_dir, settings.machine, sha, outcome)


def read_side(
    round_dir: Path, machine_name: str, sha: str, outcome: runner.ProcessOutcome
) -> dict[CaseKey, Samples]:
    """The samples asv wrote for ``sha`` in ``round_dir`` (failed cases -> None).

    asv exits 2 when a benchmark failed: that is data (a FAILED case), not an error. No
    result file, or a corrupt one, is an error naming the file and asv's last output.
    """
    try:
        infos = store.read_benchmarks(round_dir)
        files = list(store.iter_result_files(round_dir, machine_name))
    except UserError as exc:
        raise GateError(
            f"asv produced no usable results (exit {outcome.returncode}): {exc}\n"
            f"asv output (tail):\n{outcome.tail[-2000:]}"
        ) from None
    if len(files) != 1:
        raise GateError(
            f"asv (exit {outcome.returncode}) left {len(files)} result files in {round_dir}; "
            f"expected 1. asv output (tail):\n{outcome.tail[-2000:]}"
        )
    result = store.read_result_file(files[0].path, infos)
    if not store.same_commit(result.commit_hash, sha):
        raise ResultFileError(files[0].path, f"commit_hash {result.commit_hash} is not {sha}")
    out: dict[CaseKey, Samples] = {}
    for key, case in result.cases.items():
        if case.state is store.CaseState.FAILED:
            out[key] = None
        elif case.state is store.CaseState.OK:
            out[key] = case.samples or ((case.value,) if case.value else None)
    return out


# --------------------------------------------------------------------------------------------
# Rounds and checkpoints
# --------------------------------------------------------------------------------------------


@dataclass
class Measurer:
    """Runs rounds and writes a new sample checkpoint after each one (atomically).

    Checkpoints are ``<phase>-progress-NNN.json`` with ``"complete": false``; only the final
    ``<phase>-samples.json`` carries ``"complete": true``, so a run killed half-way leaves no
    file that reads as complete.
    """

    settings: GateSettings
    fingerprint: Mapping[str, Any]
    side_runner: SideRunner = asv_side
    names: dict[CaseKey, str] = field(default_factory=dict)
    #: benchmark -> its unit from benchmarks.json ("seconds", "env-steps/s", ...)
    units: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    deadline: float | None = None

    def __post_init__(self) -> None:
        if self.deadline is None:
            self.deadline = self.started + self.settings.budget_s

    def extend_deadline(self, seconds: float) -> None:
        """Allow at least ``seconds`` more from now (the confirmation's own budget)."""
        assert self.deadline is not None
        self.deadline = max(self.deadline, time.monotonic() + seconds)

    def run_round(self, log: RoundLog, keys: Sequence[CaseKey] | None) -> Round:
        """One round of ``keys`` (None: the configured selection) on both sides."""
        index = len(log.rounds)
        order = gate_rounds.round_order(index)
        bench = self._bench(keys)
        sides: dict[str, Mapping[CaseKey, Samples]] = {}
        t0 = time.monotonic()
        for side in order:
            folder = self.settings.run_dir / f"{log.phase}-r{index:03d}-{side}"
            sides[side] = self.side_runner(self.settings, side, folder, bench)
            self._learn_names(folder)
        wanted = set(keys) if keys is not None else None
        picked = {s: _pick(v, wanted) for s, v in sides.items()}
        rnd = Round(index, log.phase, order, picked["base"], picked["head"], time.monotonic() - t0)
        log.rounds.append(rnd)
        self._checkpoint(log, complete=False)
        return rnd

    def _bench(self, keys: Sequence[CaseKey] | None) -> list[str]:
        if keys is None:
            return list(self.settings.bench)
        try:
            return gate_rounds.selection_regexes(keys, self.names)
        except KeyError as exc:
            raise GateError(f"cannot select the cases to re-run: {exc}") from None

    def _learn_names(self, folder: Path) -> None:
        path = folder / "benchmarks.json"
        if path.is_file():
            data = store.load_json(path)
            self.names.update(gate_rounds.case_names(data))
            self.units.update(gate_rounds.benchmark_units(data))

    def _checkpoint(self, log: RoundLog, complete: bool) -> Path:
        doc = gate_rounds.samples_document(
            log, self.settings.base, self.settings.head, self.fingerprint, _now()
        )
        doc["complete"] = complete
        name = (
            f"{log.phase}-samples.json"
            if complete
            else (f"{log.phase}-progress-{len(log.rounds):03d}.json")
        )
        return store.write_samples_atomic(self.settings.run_dir / name, doc)

    def finish(self, log: RoundLog) -> Path:
        """Write the complete sample file of ``log``."""
        return self._checkpoint(log, complete=True)

    def elapsed(self) -> float:
        """Seconds since measurement started."""
        return time.monotonic() - self.started

    def can_afford(self, log: RoundLog, cases: int) -> bool:
        """True when another round of ``cases`` cases should fit in the remaining budget."""
        if not log.rounds:
            return True
        last = log.rounds[-1]
        per_case = last.seconds / max(1, len(set(last.base) | set(last.head)))
        assert self.deadline is not None
        return time.monotonic() + per_case * cases <= self.deadline


def _pick(
    samples: Mapping[CaseKey, Samples], wanted: set[CaseKey] | None
) -> dict[CaseKey, Samples]:
    return {k: v for k, v in samples.items() if wanted is None or k in wanted}


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------------------------
# Main phase (sequential) and confirmation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """What the measurement phases produced, ready for `compare`."""

    base: dict[CaseKey, Measurement]
    head: dict[CaseKey, Measurement]
    head_variants: dict[CaseKey, Measurement]
    confirm: tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]] | None
    confirm_head_variants: dict[CaseKey, Measurement] | None
    main_rounds: int
    confirm_rounds: int
    extra_rounds: int
    sample_files: tuple[Path, ...]
    budget_exhausted: bool


def _interim(
    log: RoundLog, settings: GateSettings, floors: Mapping[CaseKey, float]
) -> list[CaseComparison]:
    """Rows of the data so far, without confirmation (to see what is still undecided)."""
    cfg = replace(settings.config, confirm=False)
    base_m, head_m = gate_rounds.measurements(log, settings.base, settings.head)
    return compare.compare_runs(base_m, head_m, cfg, noise_floors=floors)


def _undecided_variants(
    log: RoundLog, settings: GateSettings, floors: Mapping[CaseKey, float], known: set[CaseKey]
) -> list[CaseKey]:
    """Head cases of variant-vs-baseline rows still undecided (e.g. a likely improvement)."""
    cfg = replace(settings.config, confirm=False)
    variants, head_m = _interim_variants(log, settings, floors)
    cases = gate_rounds.undecided_variant_cases(variants, head_m, cfg)
    return [k for k in dict.fromkeys(cases) if k not in known]


def _interim_variants(
    log: RoundLog, settings: GateSettings, floors: Mapping[CaseKey, float]
) -> tuple[list[VariantComparison], dict[CaseKey, Measurement]]:
    """Variant rows (no confirmation) over the round-aligned head data of ``log``."""
    cfg = replace(settings.config, confirm=False)
    head_m = gate_rounds.head_measurements(gate_rounds.variant_aligned(log, cfg.baselines))
    return compare.compare_variants(head_m, cfg, noise_floors=floors), head_m


def run_main_phase(
    m: Measurer, floors: Mapping[CaseKey, float], log: Callable[[str], None]
) -> tuple[RoundLog, int, bool]:
    """min_samples rounds of everything, then extra rounds of undecided cases (budget)."""
    cfg = m.settings.config
    main = RoundLog("main")
    for _ in range(cfg.min_samples):
        m.run_round(main, None)
        log(f"round {len(main.rounds)}/{cfg.min_samples} done ({m.elapsed():.0f}s)")
    if not main.paired_keys and not main.one_sided("head") and not main.one_sided("base"):
        raise GateError(f"no benchmark case ran for the selection {list(m.settings.bench)}")
    extra, exhausted = 0, False
    while len(main.rounds) < cfg.max_rounds:
        todo = gate_rounds.undecided(_interim(main, m.settings, floors), cfg)
        todo += _undecided_variants(main, m.settings, floors, set(todo))
        if not todo:
            break
        if not m.can_afford(main, len(todo)):
            exhausted = True
            log(f"budget reached with {len(todo)} undecided case(s)")
            break
        m.run_round(main, todo)
        extra += 1
        log(f"extra round for {len(todo)} undecided case(s) ({m.elapsed():.0f}s)")
    return main, extra, exhausted


@dataclass(frozen=True)
class ConfirmTargets:
    """What the confirmation re-runs: flagged rows and their direction, and the cases to run."""

    rows: Mapping[CaseKey, CaseVerdict]
    variants: Mapping[CaseKey, CaseVerdict]
    cases: tuple[CaseKey, ...]


def _confirm_targets(
    main: RoundLog, settings: GateSettings, floors: Mapping[CaseKey, float]
) -> ConfirmTargets:
    rows = _interim(main, settings, floors)
    variants, head_m = _interim_variants(main, settings, floors)
    flagged_rows = set(gate_rounds.flagged(rows))
    chosen = gate_rounds.flagged_variants(variants)
    keys = [*flagged_rows, *gate_rounds.variant_head_cases(chosen, head_m)]
    return ConfirmTargets(
        rows={r.key: r.verdict for r in rows if r.key in flagged_rows},
        variants={v.row.key: v.row.verdict for v in chosen},
        cases=tuple(sorted(set(keys), key=compare.natural_key)),
    )


def _confirm_pending(
    log: RoundLog,
    settings: GateSettings,
    floors: Mapping[CaseKey, float],
    targets: ConfirmTargets,
) -> list[CaseKey]:
    """Target cases whose re-run has neither replicated nor ruled out its flag yet."""
    alpha = settings.config.alpha
    rows = {r.key: r for r in _interim(log, settings, floors)}
    todo = [
        key
        for key, direction in targets.rows.items()
        if key in rows and compare.confirmation_pending(rows[key], direction, alpha)
    ]
    variants, head_m = _interim_variants(log, settings, floors)
    open_variants = [
        v
        for v in variants
        if v.row.key in targets.variants
        and compare.confirmation_pending(v.row, targets.variants[v.row.key], alpha)
    ]
    todo += gate_rounds.variant_head_cases(open_variants, head_m)
    return sorted(set(todo), key=compare.natural_key)


def run_confirmation(
    m: Measurer,
    targets: ConfirmTargets,
    floors: Mapping[CaseKey, float],
    log: Callable[[str], None],
) -> RoundLog:
    """An independent re-run of just the target cases: min_samples rounds, more while pending.

    The re-run gets at least half the budget of its own, so a main phase that used the
    whole budget on other undecided cases does not starve the confirmation.
    """
    cfg = m.settings.config
    m.extend_deadline(m.settings.budget_s / 2)
    confirm = RoundLog("confirm")
    for _ in range(cfg.min_samples):
        m.run_round(confirm, targets.cases)
    log(f"confirmation: {len(confirm.rounds)} rounds of {len(targets.cases)} case(s)")
    while len(confirm.rounds) < cfg.max_rounds:
        todo = _confirm_pending(confirm, m.settings, floors, targets)
        if not todo or not m.can_afford(confirm, len(todo)):
            break
        m.run_round(confirm, todo)
        log(f"confirmation: extra round for {len(todo)} case(s) ({m.elapsed():.0f}s)")
    return confirm


def measure(m: Measurer, floors: Mapping[CaseKey, float], log: Callable[[str], None]) -> Measured:
    """Main phase, then confirmation of flagged cases when the config asks for it."""
    s = m.settings
    main, extra, exhausted = run_main_phase(m, floors, log)
    files = [m.finish(main)]
    confirm_log: RoundLog | None = None
    targets = _confirm_targets(main, s, floors) if s.config.confirm else None
    if targets is not None and targets.cases:
        confirm_log = run_confirmation(m, targets, floors, log)
        files.append(m.finish(confirm_log))

    def measured(log: RoundLog) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
        return gate_rounds.with_units(gate_rounds.measurements(log, s.base, s.head), m.units)

    def variants(log: RoundLog) -> dict[CaseKey, Measurement]:
        aligned = gate_rounds.variant_aligned(log, s.config.baselines)
        return gate_rounds.with_unit(gate_rounds.head_measurements(aligned), m.units)

    base_m, head_m = measured(main)
    head_variants = variants(main)
    confirm = confirm_variants = None
    if confirm_log is not None:
        confirm = measured(confirm_log)
        confirm_variants = variants(confirm_log)
    return Measured(
        base=base_m,
        head=head_m,
        head_variants=head_variants,
        confirm=confirm,
        confirm_head_variants=confirm_variants,
        main_rounds=len(main.rounds),
        confirm_rounds=len(confirm_log.rounds) if confirm_log else 0,
        extra_rounds=extra,
        sample_files=tuple(files),
        budget_exhausted=exhausted,
    )


# --------------------------------------------------------------------------------------------
# Statistics and policy over the measured data (pure calls)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Analysis:
    """Rows, variant rows, scaling and compile rows of a measured gate run."""

    rows: list[CaseComparison]
    variants: list[VariantComparison]
    scaling: list[compare.ScalingRow]
    variant_scaling: list[compare.ScalingRow]
    compile_rows: list[compare.CompileRow]


def analyse(measured: Measured, config: GateConfig, floors: Mapping[CaseKey, float]) -> Analysis:
    """Head vs base (with confirmation), variant vs baseline at head, thread scaling."""
    confirm = measured.confirm
    rows = compare.compare_runs(
        measured.base, measured.head, config, noise_floors=floors, confirmation=confirm
    )
    variants = compare.compare_variants(
        measured.head_variants,
        config,
        noise_floors=floors,
        confirmation_head=measured.confirm_head_variants,
    )
    scaling, variant_scaling = compare.scaling_rows(measured.base, measured.head, config)
    compile_rows = compare.compile_times(measured.base, measured.head, config)
    return Analysis(rows, variants, scaling, variant_scaling, compile_rows)


# --------------------------------------------------------------------------------------------
# Environment: pinning, fingerprint, noise floors
# --------------------------------------------------------------------------------------------


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


def noise_dir(work_dir: Path, machine_name: str) -> Path:
    """Folder of the noise-floor files of one machine id."""
    return work_dir / "noise" / machine_name


def newest_noise_file(work_dir: Path, machine_name: str) -> Path | None:
    """The newest complete noise-floor file of ``machine_name`` (names sort by time)."""
    folder = noise_dir(work_dir, machine_name)
    if not folder.is_dir():
        return None
    files = sorted(
        p for p in folder.iterdir() if p.suffix == ".json" and not store.is_partial_name(p.name)
    )
    return files[-1] if files else None


def read_floors(path: Path | None) -> dict[CaseKey, float]:
    """Noise floors from ``path`` (none when there is no calibration yet)."""
    return store.read_noise_floors(path) if path is not None else {}


def usable_noise_file(
    work_dir: Path, machine_name: str, fingerprint: Mapping[str, Any], window: int
) -> tuple[Path | None, str]:
    """The newest noise file calibrated on *this* comparable environment, and a report note.

    A floor raises thresholds, so one measured elsewhere (another machine or fingerprint, a
    copied file) or over another window (``min_samples``) would silently loosen the gate:
    such a file is skipped and the note says why.
    """
    path = newest_noise_file(work_dir, machine_name)
    if path is None:
        return None, "noise floors: none calibrated"
    doc = store.load_json(path)
    recorded = doc.get("fingerprint") if isinstance(doc, dict) else None
    differing = policy.EnvironmentCheck(
        comparable(recorded if isinstance(recorded, dict) else {}), comparable(fingerprint)
    ).differing_keys
    problems = []
    if isinstance(doc, dict) and doc.get("machine") != machine_name:
        problems.append(f"calibrated for machine {doc.get('machine')!r}")
    if differing:
        problems.append(f"fingerprint differs in {', '.join(differing)}")
    if isinstance(doc, dict) and doc.get("window") != window:
        problems.append(f"window {doc.get('window')!r}, not min_samples = {window}")
    if problems:
        return None, f"noise floors: {path} ignored ({'; '.join(problems)}); none applied"
    return path, f"noise floors: {path}"


# --------------------------------------------------------------------------------------------
# Parity
# --------------------------------------------------------------------------------------------


def parity_command(config: GateConfig, quick: bool) -> tuple[str, ...]:
    """The parity command: the quick subset under ``--quick`` when configured."""
    if quick and config.quick_parity_command:
        return config.quick_parity_command
    return config.parity_command


def resolve_command(command: Iterable[str], python: str = sys.executable) -> list[str]:
    """Substitute ``{python}``; ``make`` reuses this interpreter's virtualenv.

    ``VENV``/``PYTHON`` point the Makefile at the running virtualenv, and ``-o STAMP`` stops
    make from rebuilding it because the export's pyproject.toml is newer than the stamp
    (a rebuild from the export would re-point the editable install at the export).
    """
    cmd = [part.replace("{python}", python) for part in command]
    if cmd and Path(cmd[0]).name == "make":
        venv = Path(python).parent.parent
        cmd[1:1] = ["-o", str(venv / ".installed")]
        cmd += [f"VENV={venv}", f"PYTHON={python}"]
    return cmd


def run_parity(
    settings: GateSettings, command: Sequence[str], timeout_s: float = 3600.0
) -> policy.ParityResult:
    """Run the parity command in the head export; failing test ids go into the summary."""
    cmd = resolve_command(command)
    try:
        result = runner.run_parity(cmd, settings.head_source, os.environ, timeout_s)
    except runner.RunnerError as exc:
        return policy.ParityResult(policy.ParityStatus.ERROR, " ".join(command), str(exc))
    if result.passed:
        return policy.ParityResult(policy.ParityStatus.PASSED, " ".join(command))
    failing = ", ".join(result.failing[:20]) or "(no test ids parsed)"
    tail = result.tail[-600:].strip().replace("\n", " | ")
    summary = f"failing: {failing}; output tail: {tail}"
    return policy.ParityResult(policy.ParityStatus.FAILED, " ".join(command), summary)
