"""One side of one round: an asv run of a commit's export, and the samples it wrote.

Both the measure stage's rounds and suite discovery run asv through `run_side_asv`; a side
that cannot be measured raises `GateError` (exit 3, fail closed).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from perfgate.asv import runner as asv_runner
from perfgate.errors import ResultFileError, UserError
from perfgate.formats import asv_conf, asv_output, asv_results
from perfgate.formats.benchmarks_json import Suite, read_benchmarks
from perfgate.model import CaseKey, Samples
from perfgate.process import ProcessOutcome
from perfgate.secrets import Redactor
from perfgate.settings import GateSettings


class GateError(UserError):
    """The gate could not gather the data it needs (asv, git, parity could not run): exit 3."""


class NothingSelected(GateError):
    """asv found no benchmark for the run's ``--bench`` regexes (it says so and exits 1)."""


#: what asv 0.6 prints when the ``--bench`` regexes select nothing
NO_SELECTION = "No benchmarks selected"


@dataclass(frozen=True)
class SideRun:
    """One side of one round: the samples of the cases that ran (failed -> None), and the
    suite description they were read with (``benchmarks.json``)."""

    samples: Mapping[CaseKey, Samples]
    suite: Suite
    #: asv's per-benchmark durations of this run (seconds; empty when unknown)
    durations: Mapping[str, float] = field(default_factory=dict)
    #: the asv environment the run measured in (its result file's ``env_name``; "": unknown)
    env_name: str = ""


SideRunner = Callable[[GateSettings, str, Path, Sequence[str]], SideRun]
"""(settings, side, round directory, --bench regexes) -> that side's run."""


def asv_side(settings: GateSettings, side: str, round_dir: Path, bench: Sequence[str]) -> SideRun:
    """Run asv for ``side`` into ``round_dir`` and read what it measured."""
    sha, outcome = run_side_asv(settings, side, round_dir, bench, settings.attributes)
    if outcome.timed_out:
        raise GateError(f"asv for {side} {sha[:12]} timed out after {settings.asv_timeout_s}s")
    return read_side(round_dir, settings.machine, sha, outcome)


def run_side_asv(
    settings: GateSettings,
    side: str,
    folder: Path,
    bench: Sequence[str],
    attributes: Mapping[str, str] | None = None,
) -> tuple[str, ProcessOutcome]:
    """One asv run of ``side`` (its export, the run's machine, pinning prefix, environment,
    kernel cache and time-out) into ``folder``, asv's output tail saved beside its results;
    (the side's commit, asv's outcome). Measuring rounds and suite discovery both use it."""
    inv = side_invocation(settings, side, folder, bench, attributes)
    output: list[str] = []
    outcome = asv_runner.run_asv(inv, os.environ, output.append)
    # all of it: a failed benchmark's error (`perfgate.formats.asv_output`) scrolls out of
    # the tail of a suite whose tracebacks repeat per parameter combination
    whole = Redactor.from_env(os.environ).text("".join(output)) or outcome.tail
    (folder / asv_output.OUTPUT_FILE).write_text(whole)
    return inv.sha, outcome


def run_sides_together(
    settings: GateSettings,
    runs: Sequence[tuple[str, Path]],
    bench: Sequence[str],
    run_env: Mapping[str, Mapping[str, str]] | None = None,
) -> list[SideRun]:
    """Several asv runs at once, one per (side, folder) of ``runs``, read as `asv_side`
    reads one (for measurements that do not depend on what else runs or where: the sim
    instrument). They run unpinned: on the measuring CPUs of the pinning plan (one core of
    a 2-core runner) the runs would share them instead of running at once.
    ``run_env``: variables added to the run of the folder so named (its benchmark process
    and what that starts see them)."""
    invs = []
    for side, folder in runs:
        inv = side_invocation(settings, side, folder, bench, settings.attributes)
        extra = (run_env or {}).get(folder.name, {})
        invs.append(replace(inv, prefix=(), env={**inv.env, **extra}))
    outcomes = asv_runner.run_asv_together(invs, os.environ)
    out = []
    for (side, folder), inv, outcome in zip(runs, invs, outcomes, strict=True):
        (folder / "asv-output.txt").write_text(outcome.tail)
        if outcome.timed_out:
            raise GateError(
                f"asv for {side} {inv.sha[:12]} timed out after {settings.asv_timeout_s}s"
            )
        if outcome.returncode != 0 and NO_SELECTION in outcome.tail:
            raise NothingSelected(f"asv selected no benchmark of {side} for {list(bench)}")
        out.append(read_side(folder, settings.machine, inv.sha, outcome))
    return out


def side_invocation(
    settings: GateSettings,
    side: str,
    folder: Path,
    bench: Sequence[str],
    attributes: Mapping[str, str] | None = None,
) -> asv_runner.AsvInvocation:
    """The asv invocation of one run of ``side`` into ``folder`` (its config written there).

    The side's export must exist (`perfgate.gate.sides.prepare`): asv given a missing
    folder on the path would import whatever is installed and measure it for both sides."""
    sha = settings.base if side == "base" else settings.head
    source = settings.base_source if side == "base" else settings.head_source
    if not source.is_dir():
        raise GateError(f"the {side} export {source} does not exist: nothing to measure")
    config = asv_conf.write_round_config(
        settings.asv_conf, folder, settings.benchmark_dir, settings.repo, sha
    )
    return asv_runner.AsvInvocation(
        config=config,
        sha=sha,
        source=source,
        machine=settings.machine,
        import_roots=settings.import_roots(side),
        bench=tuple(bench),
        attributes=dict(attributes or {}),
        prefix=settings.prefix,
        env={**settings.kernel_cache, **settings.env},
        timeout_s=settings.asv_timeout_s,
    )


def read_side(round_dir: Path, machine_name: str, sha: str, outcome: ProcessOutcome) -> SideRun:
    """What asv wrote for ``sha`` in ``round_dir`` (failed cases -> None).

    asv exits 2 when a benchmark failed: that is data (a FAILED case), not an error. No
    result file, or a corrupt one, is an error naming the file and asv's last output.
    """
    try:
        suite = read_benchmarks(round_dir)
        files = list(asv_results.iter_result_files(round_dir, machine_name))
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
    result = asv_results.read_result_file(files[0].path, suite)
    if not asv_results.same_commit(result.commit_hash, sha):
        raise ResultFileError(files[0].path, f"commit_hash {result.commit_hash} is not {sha}")
    out: dict[CaseKey, Samples] = {}
    for key, case in result.cases.items():
        if case.state is asv_results.CaseState.FAILED:
            out[key] = None
        elif case.state is asv_results.CaseState.OK:
            out[key] = case.samples or ((case.value,) if case.value else None)
    return SideRun(out, suite, dict(result.durations), result.env_name)
