"""``perfgate merge``: the shards of one sharded gate run (``perfgate gate --shard K/N`` on N
identical runners) into ONE verdict, with the gate's own compare, decide and render stages.

The shards are checked first (`perfgate.shards.shard_set`: all K of N exactly once, same
commits, plan, configuration and floors, comparable machine fingerprints); any refusal is
an ERROR report (exit 3), never a pass. Each shard's rounds are rebuilt from its sample
files, and round *i* of the merged run is round *i* of every shard that made one (the side
order of a round depends on its index only), so every case keeps exactly the rounds its
shard measured and cases compared with each other (variants, thread scaling) were measured
on one runner. The statistics then run once over all cases: one Benjamini-Hochberg
correction, as an unsharded run on the same samples would.

Confirmation: each shard re-ran the cases its own test flagged (counting the other shards'
cases as p = 1, so it flags nothing the merged test would not; `perfgate.shards.shard`).
The merged test uses those re-runs, with its q over the merged flagged set; a case it flags
whose shard re-ran nothing of its group needs a confirmation run (INCONCLUSIVE, exit 3),
instead of the "re-run disagrees" that the missing data would otherwise read as. The
report names the runner that measured each case.
"""

from __future__ import annotations

import os
import shlex
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from perfgate.case_pairs import explained
from perfgate.config import GateConfig
from perfgate.config_files import config_at_commit, load_config
from perfgate.errors import UserError
from perfgate.formats import report_files
from perfgate.formats.shard_manifest import read_manifest
from perfgate.gate import decide, publish
from perfgate.gate.compare import Analysis, analyse
from perfgate.gate.failure_texts import explain_failures
from perfgate.instrument import Calibration
from perfgate.model import (
    CaseComparison,
    CaseKey,
    EnvironmentCheck,
    Finding,
    GateDecision,
    ParityResult,
    Reason,
    Round,
    VariantComparison,
    natural_key,
)
from perfgate.report import render
from perfgate.secrets import redact_env
from perfgate.shards import partition, shard_set
from perfgate.shards.shard_set import Shard
from perfgate.verdict import CaseVerdict, GateVerdict
from perfgate.wall import measure
from perfgate.wall.compare.efficiency import EFFICIENCY_SUFFIX, time_benchmark
from perfgate.wall.face import WallMeasured
from perfgate.wall.rounds import RoundLog


@dataclass(frozen=True)
class MergeOptions:
    """Parsed options of ``perfgate merge``."""

    shard_dirs: tuple[Path, ...]
    report_dir: Path = Path("reports/gate")
    repo: Path = Path(".")
    config: Path | None = None
    digest_output: Path | None = None  # a CI step-output file: gets report-digest=sha256:...


def run(
    opts: MergeOptions,
    write: Callable[[str], None] = print,
    log: Callable[[str], None] = print,
) -> int:
    """Merge, print and write the report; returns the exit code (3 on any error)."""
    report_files.check_report_dir(opts.report_dir)
    try:
        report_files.archive_previous(opts.report_dir)
        report = build_report(opts)
    except (UserError, OSError) as exc:
        log(f"perfgate merge: error: {redact_env(str(exc), os.environ)}")
        report = _error_report(opts, str(exc))
    except Exception as exc:  # fail closed: a crash is an ERROR report, never a pass
        log(redact_env(traceback.format_exc(), os.environ))
        report = _error_report(opts, f"internal error: {type(exc).__name__}: {exc}")
    markdown = redact_env(render.render_markdown(report), os.environ)
    try:
        digest = publish.replace_reports(opts.report_dir, report, markdown)
        if opts.digest_output is not None:
            publish.record_digest(opts.digest_output, digest)
    except (UserError, OSError) as exc:
        log(f"perfgate merge: error: cannot write the report to {opts.report_dir}: {exc}")
        return GateVerdict.ERROR.exit_code
    log(f"perfgate merge: report digest {digest}")
    write(markdown)
    return report.decision.exit_code


def merge_config(opts: MergeOptions, base: str) -> GateConfig:
    """``--config``, else the project's configuration at the base commit (as the shards
    read it)."""
    if opts.config is not None:
        return load_config(opts.config)
    return config_at_commit(opts.repo, base)


def merged_log(phase: str, shards: Sequence[Shard]) -> RoundLog | None:
    """Round *i* of ``phase`` = the union of round *i* of every shard (None: no rounds)."""
    by_index: dict[int, list[Round]] = {}
    for s in shards:
        for rnd in s.rounds:
            if rnd.phase == phase:
                by_index.setdefault(rnd.index, []).append(rnd)
    if not by_index:
        return None
    if sorted(by_index) != list(range(len(by_index))):
        raise shard_set.ShardSetError(
            f"{phase} rounds are not numbered 0..n-1: {sorted(by_index)}"
        )
    rounds = []
    for index in range(len(by_index)):
        parts = by_index[index]
        orders = {r.order for r in parts}
        if len(orders) != 1:
            raise shard_set.ShardSetError(f"{phase} round {index} ran in different side orders")
        base = {k: v for r in parts for k, v in r.base.items()}
        head = {k: v for r in parts for k, v in r.head.items()}
        rounds.append(Round(index, phase, parts[0].order, base, head))
    return RoundLog(phase, rounds)


def _group(key: CaseKey, config: GateConfig) -> CaseKey:
    bench = key.benchmark
    if bench.endswith(EFFICIENCY_SUFFIX):
        key = CaseKey(time_benchmark(bench), key.params)
    return partition.group_key(key, config)


def _needs_confirmation(
    row: CaseComparison, covered: set[CaseKey], config: GateConfig
) -> CaseComparison:
    """``row`` as needing a confirmation run when it reads "re-run disagrees" only because
    its shard re-ran nothing of its group."""
    if row.reason is not Reason.RERUN_DISAGREES or _group(row.key, config) in covered:
        return row
    flagged = (
        CaseVerdict.REGRESSED if row.verdict is CaseVerdict.INCONCLUSIVE else CaseVerdict.IMPROVED
    )
    return explained(row, row.verdict, Reason.NEEDS_CONFIRMATION, direction=flagged.value)


def unconfirmed(
    rows: Iterable[CaseComparison],
    variants: Iterable[VariantComparison],
    rerun: Iterable[CaseKey],
    config: GateConfig,
) -> tuple[list[CaseComparison], list[VariantComparison]]:
    """Rows and variant rows with `_needs_confirmation` applied (see the module docstring)."""
    covered = {_group(k, config) for k in rerun}
    out_rows = [_needs_confirmation(r, covered, config) for r in rows]
    out_variants = [
        replace(
            v,
            row=_needs_confirmation(v.row, covered, config),
            relative=None
            if v.relative is None
            else _needs_confirmation(v.relative, covered, config),
        )
        for v in variants
    ]
    return out_rows, out_variants


def build_report(opts: MergeOptions) -> render.Report:
    """Read and check the shards, then compare, decide and build the merged report."""
    shards = shard_set.read_shards(opts.shard_dirs)
    shard_set.check_complete(shards)
    first = shards[0].manifest
    config = merge_config(opts, first.base)
    if config.source != first.config_source:
        raise shard_set.ShardSetError(
            f"the shards used the configuration {first.config_source!r}, "
            f"the merge {config.source!r}"
        )
    environment = shard_set.check_fingerprints(shards, config.fingerprint_ignore)
    failed = shard_set.failed_parity(shards)
    if failed is not None:
        decision = decide.parity_failure_decision(failed.manifest.parity)
        notes = (f"parity: failed in {failed.name}", *_shard_notes(shards))
        return _report(opts, shards, config, decision, notes, parity=failed.manifest.parity)
    shard_set.check_plan(shards)
    return _decide(opts, shards, config, environment)


def _decide(
    opts: MergeOptions, shards: Sequence[Shard], config: GateConfig, environment: EnvironmentCheck
) -> render.Report:
    main = merged_log("main", shards) or RoundLog("main")
    confirm = merged_log("confirm", shards)
    logs = measure.Logs(
        main,
        confirm,
        sum(s.manifest.extra_rounds for s in shards),
        any(s.manifest.budget_exhausted for s in shards),
        tuple(s.folder / name for s in shards for name in s.manifest.samples),
    )
    measured = measure.measured_from(logs, shard_set.merged_units(shards), config)
    floors = shards[0].manifest.floors
    analysis = analyse({"wall": WallMeasured(measured, None)}, config, Calibration(floors))
    analysis = explain_failures(analysis, [s.folder for s in shards])
    rerun = {k for r in (confirm.rounds if confirm else ()) for k in (*r.base, *r.head)}
    rows, variants = unconfirmed(analysis.rows, analysis.variants, rerun, config)
    analysis = replace(analysis, rows=rows, variants=variants)
    decision = decide.decide(
        rows, variants, config,
        parity=shards[0].manifest.parity, parity_required=True, environment=environment,
    )  # fmt: skip
    rounds = (
        f"rounds: {len(main.rounds)} main ({logs.extra_rounds} extra for undecided cases, "
        f"summed over the shards), {len(confirm.rounds) if confirm else 0} confirmation; "
        "each shard re-ran the cases its own data flagged"
    )
    notes = (f"configuration: {config.source}", rounds, *_shard_notes(shards))
    return _report(
        opts, shards, config, decision, notes,
        parity=shards[0].manifest.parity, analysis=analysis, environment=environment,
    )  # fmt: skip


def _shard_notes(shards: Sequence[Shard]) -> list[str]:
    """Which runner measured which case, one line per shard; then the shards' own notes."""
    lines = []
    for s in sorted(shards, key=lambda s: s.manifest.shard):
        cases = ", ".join(k.label() for k in sorted(s.manifest.cases, key=natural_key))
        lines.append(f"{s.name} measured {len(s.manifest.cases)} case(s): {cases or 'none'}")
    lines += list(dict.fromkeys(n for s in shards for n in s.manifest.notes))
    return lines


def _command(opts: MergeOptions) -> str:
    argv = ["perfgate", "merge", *(str(d) for d in opts.shard_dirs)]
    if opts.config is not None:
        argv += ["--config", str(opts.config)]
    return shlex.join(argv)


def _report(
    opts: MergeOptions,
    shards: Sequence[Shard],
    config: GateConfig,
    decision: GateDecision,
    notes: Sequence[str],
    *,
    parity: ParityResult,
    analysis: Analysis | None = None,
    environment: EnvironmentCheck | None = None,
) -> render.Report:
    first = shards[0].manifest
    return render.Report(
        decision=decision,
        config=config,
        base=first.base,
        head=first.head,
        machine=first.machine,
        command=_command(opts),
        rows=analysis.rows if analysis else (),
        variants=analysis.variants if analysis else (),
        scaling=analysis.scaling if analysis else (),
        variant_scaling=analysis.variant_scaling if analysis else (),
        compile_rows=analysis.compile_rows if analysis else (),
        parity=parity,
        environment=environment,
        notes=tuple(notes),
    )


def _commits(opts: MergeOptions) -> tuple[str, str]:
    """(base, head) of the first shard that can be read, for an ERROR report that ``perfgate
    post`` can match to the head it posts for."""
    for folder in opts.shard_dirs:
        try:
            m = read_manifest(folder)
        except UserError:
            continue
        return m.base, m.head
    return "unknown", "unknown"


def _error_report(opts: MergeOptions, message: str) -> render.Report:
    message = redact_env(message, os.environ)
    base, head = _commits(opts)
    decision = GateDecision(GateVerdict.ERROR, (Finding(GateVerdict.ERROR, message),))
    return render.Report(
        decision=decision,
        config=GateConfig(),
        base=base,
        head=head,
        machine="unknown",
        command=_command(opts),
    )
