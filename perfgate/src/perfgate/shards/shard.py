"""One shard of a gate run (``perfgate gate --shard K/N``): measure a share of the planned
cases on this runner and write what it measured for ``perfgate merge``; decide nothing.

The stages are the gate's: context, parity, then the planned cases (asv's discovery of both
sides, `perfgate.asv.discover`), costed with each family's documented default
(`perfgate.wall.plan`: every shard must cut the same partition) and split into N
(`perfgate.shards.partition`); this shard measures its own as the gate does, base and head
interleaved, extra rounds while the budget lasts.

Extra rounds and re-runs are decided on the shard's own data, every other shard's planned
case counted as a test with p = 1 in each Benjamini-Hochberg family
(`perfgate.config.GateConfig.elsewhere_tests`): that q is never below the merged test's, so
a shard stops measuring a case no earlier than the merge would want. A shard re-runs the
cases its data flags and writes that re-run too; a case the merge flags that its shard did
not re-run is reported as needing confirmation (exit 3), never as confirmed or passed.

The shard folder (``--report-dir``) gets ``shard.json`` (`perfgate.formats.shard_manifest`)
and the complete sample file of each phase; no report, no verdict. Exit 0 when measuring
succeeded, 2 when parity failed (recorded for the merge), 3 on any error (nothing written,
so the merge refuses the missing shard).
"""

from __future__ import annotations

import os
import socket
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

from perfgate import containment, machine
from perfgate.asv.discover import check_selection, discovered_names
from perfgate.atomic import check_output_dir
from perfgate.errors import RunnerError, UserError
from perfgate.formats import samples, shard_manifest
from perfgate.formats.jsonfile import utc_stamp
from perfgate.formats.shard_manifest import MANIFEST, ShardManifest
from perfgate.gate import context, decide, parity, preview, sides
from perfgate.gate.hooks import Hooks
from perfgate.model import CaseKey, ParityResult, ParityStatus, natural_key
from perfgate.secrets import redact_env
from perfgate.settings import GateOptions, GateSettings, ShardSpec
from perfgate.shards import partition
from perfgate.verdict import GateVerdict
from perfgate.wall import measure, plan
from perfgate.wall.sampling import selection_regexes

#: The environment variable naming the runner (GitHub Actions sets it); else the host name.
RUNNER_VAR = "RUNNER_NAME"
SAMPLE_FILES = {"main": "main-samples.json", "confirm": "confirm-samples.json"}


def runner_name() -> str:
    """This runner's name, for the report's "which runner measured which case"."""
    return os.environ.get(RUNNER_VAR) or socket.gethostname()


def run(opts: GateOptions, hooks: Hooks | None = None) -> int:
    """Measure shard ``opts.shard`` and write its folder; returns the exit code."""
    hooks = hooks or Hooks()
    assert opts.shard is not None
    try:
        check_output_dir(opts.report_dir, "--report-dir", "the shard's samples and shard.json")
        if (opts.report_dir / MANIFEST).exists():
            raise UserError(
                f"{opts.report_dir} already holds a {MANIFEST}; shards are never overwritten"
            )
        return _shard(opts, opts.shard, hooks)
    except (UserError, RunnerError, OSError) as exc:
        hooks.log(f"error: shard {opts.shard.label}: {redact_env(str(exc), os.environ)}")
    except Exception:  # fail closed: nothing is written, so the merge refuses this shard
        hooks.log(redact_env(traceback.format_exc(), os.environ))
    return GateVerdict.ERROR.exit_code


def _shard(opts: GateOptions, spec: ShardSpec, hooks: Hooks) -> int:
    """The context stage as the gate runs it, then the shard inside `sides.prepared` (both
    commits exported and built for it, and discarded after)."""
    revs = context.resolve_revisions(opts)
    given = parity.given_result(opts.parity_result, revs.head) if opts.parity_result else None
    config = context.load_gate_config(opts, revs)
    pin, fp_start, s = context.settings_on_this_machine(
        opts, revs, config, hooks.fingerprint, hooks.valgrind
    )
    with sides.prepared(s) as s:
        return _measure_shard(opts, spec, hooks, s, (fp_start.to_dict(), pin), given)


def shard_partition(
    s: GateSettings, spec: ShardSpec, names: dict[CaseKey, str]
) -> tuple[list[CaseKey], partition.Partition]:
    """(the planned cases, their partition into ``spec.count`` shards)."""
    keys = preview.selected(names, s.bench)
    costs = {k: plan.default_cost(k.benchmark) for k in keys}
    planned = plan.plan_rounds(costs, s.config, s.budget_s, "documented defaults per family")
    return sorted(costs, key=natural_key), partition.partition(planned, spec.count, s.config)


def _measure_shard(
    opts: GateOptions,
    spec: ShardSpec,
    hooks: Hooks,
    s: GateSettings,
    machine_at_start: tuple[dict[str, Any], machine.PinPlan],
    given: ParityResult | None,
) -> int:
    """Noise floors (read before any head code runs), the suites (asv's discovery, which
    ``--bench`` must select from), parity (``given``: CI's result for the head, else run
    here), the partition, then this shard's measurement; writes shard.json (also after a
    parity failure)."""
    fp_start, pin = machine_at_start
    killed_before = len(containment.killed())
    found = context.read_noise(s.repo, opts.floors_ref, s.machine)
    hooks.register_machine(s.machine)  # asv's discovery needs it
    names = discovered_names(s, hooks.discover)  # once: the --bench check and the partition
    check_selection(names, opts.bench)  # before parity: a selection of nothing runs nothing
    parity_result = given or parity.run_parity(s, parity.parity_command(s.config, opts.quick))
    hooks.log(
        f"shard {spec.label}: parity {parity_result.status.value}"
        + (" (from CI)" if given else "")
    )
    base = ShardManifest(
        shard=spec.index, of=spec.count, plan_digest="", base=s.base, head=s.head,
        runner=runner_name(), machine=s.machine, config_source=s.config.source,
        fingerprint_start=fp_start, fingerprint_end=fp_start, planned=(), cases=(),
        parity=parity_result, created_at=utc_stamp(),
    )  # fmt: skip
    opts.report_dir.mkdir(parents=True, exist_ok=True)
    if parity_result.status is not ParityStatus.PASSED:
        base = replace(base, notes=containment.killed_note(killed_before))
        shard_manifest.write_manifest(opts.report_dir, base)
        return decide.parity_failure_decision(parity_result).exit_code
    noise, noise_note = context.usable_noise_file(found, s.machine, fp_start, s.config.min_samples)
    floors = noise.floors() if noise is not None else {}
    planned, cut = shard_partition(s, spec, names)
    mine = cut.cases(spec)
    hooks.log(f"shard {spec.label}: {len(mine)} of {len(planned)} planned case(s)")
    manifest = replace(
        base, plan_digest=cut.digest, planned=tuple(planned), cases=mine,
        floors=dict(floors),
        notes=(noise_note, *context.suite_notes(s)),
    )  # fmt: skip
    if mine:
        cautious = replace(s.config, elsewhere_tests=len(planned) - len(mine))
        selected = replace(s, bench=tuple(selection_regexes(mine, names)), config=cautious)
        manifest = _measure(selected, hooks, manifest, floors, pin, opts.report_dir)
    manifest = replace(manifest, notes=(*manifest.notes, *containment.killed_note(killed_before)))
    shard_manifest.write_manifest(opts.report_dir, manifest)
    hooks.log(f"shard {spec.label}: written to {opts.report_dir}")
    return 0


def _measure(
    s: GateSettings,
    hooks: Hooks,
    manifest: ShardManifest,
    floors: dict[CaseKey, float],
    pin: machine.PinPlan,
    folder: Path,
) -> ShardManifest:
    """Measure the shard's cases as the gate does, write the complete sample file of each
    phase into ``folder``; the manifest with what was measured."""
    measurer = measure.Measurer(s, manifest.fingerprint_start, hooks.side_runner)
    logs = measure.measure_logs(measurer, floors, hooks.log)
    fp_end = hooks.fingerprint(pin)
    written: list[str] = []
    one_sided: list[shard_manifest.OneSided] = []
    for log in (logs.main, logs.confirm):
        if log is None:
            continue
        doc = samples.samples_document(
            log.rounds, s.base, s.head, manifest.fingerprint_start, utc_stamp(), True
        )
        samples.write_samples_atomic(folder / SAMPLE_FILES[log.phase], doc)
        written.append(SAMPLE_FILES[log.phase])
        one_sided += shard_manifest.one_sided_cases(log.phase, log.rounds)
    return replace(
        manifest,
        fingerprint_end=fp_end.to_dict(),
        units=dict(measurer.units),
        samples=tuple(written),
        one_sided=tuple(one_sided),
        extra_rounds=logs.extra_rounds,
        budget_exhausted=logs.budget_exhausted,
        environments={side: tuple(sorted(n)) for side, n in measurer.environments.items()},
    )
