"""Stored asv results as the front of the pipeline (``perfgate compare``): read two commits'
results (and optional re-run, sample, noise and parity files), then compare, decide and
build the report like the gate, without measuring anything."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfgate.config import GateConfig
from perfgate.config_files import config_on_disk, load_config
from perfgate.errors import ConfigError, UserError
from perfgate.formats import asv_results, report_files, samples
from perfgate.formats.benchmarks_json import read_benchmarks
from perfgate.formats.noise import SimCheck, read_noise_file, read_noise_floors
from perfgate.formats.parity_result import read_parity
from perfgate.gate import decide
from perfgate.machine import codegen_environment
from perfgate.model import (
    CaseKey,
    EnvironmentCheck,
    Measurement,
    ParityResult,
    VariantComparison,
    with_asv_environments,
)
from perfgate.report import render
from perfgate.sim.compare import compare_sim
from perfgate.sim.scaling.compare import compare_sim_scaling
from perfgate.wall import rounds
from perfgate.wall.compare.compile_times import compile_times
from perfgate.wall.compare.efficiency import compare_efficiency
from perfgate.wall.compare.measurements import (
    measurements_from_results,
    measurements_from_samples,
    select,
)
from perfgate.wall.compare.runs import compare_runs, compare_variants
from perfgate.wall.compare.scaling import scaling_rows
from perfgate.wall.rounds import RoundLog

Measurements = Mapping[CaseKey, Measurement]
#: Option name -> the ``perfgate compare`` flag that sets it (for the reproducing command).
FLAGS = {
    "env": "--env",
    "config": "--config",
    "bench": "--bench",
    "confirm_dir": "--confirm-results",
    "samples": "--samples",
    "parity": "--parity-result",
    "noise": "--noise",
}


@dataclass(frozen=True)
class Loaded:
    """Both commits' stored results and their measurements."""

    base: asv_results.ResultSet
    head: asv_results.ResultSet
    base_m: dict[CaseKey, Measurement]
    head_m: dict[CaseKey, Measurement]


def resolve_machine(results_dir: str, machine: str | None) -> str:
    """The machine to read: the given one, or the only machine in the results directory."""
    machines = asv_results.list_machines(results_dir)
    if machine is not None:
        if machine not in machines:
            raise UserError(f"machine {machine!r} not in {results_dir} (found {machines})")
        return machine
    if len(machines) != 1:
        raise UserError(f"{results_dir} holds machines {machines}; pick one with --machine")
    return machines[0]


def _load(
    results_dir: str, machine: str, base: str, head: str, env: str | None, bench: str | None
) -> Loaded:
    infos = read_benchmarks(results_dir)
    b = asv_results.load_commit(results_dir, machine, base, env, infos)
    h = asv_results.load_commit(results_dir, machine, head, env, infos)
    return Loaded(
        b,
        h,
        select(measurements_from_results(b), bench),
        select(measurements_from_results(h), bench),
    )


@dataclass(frozen=True)
class Inputs:
    """Everything a stored comparison reads from disk, before any statistics."""

    config: GateConfig
    machine: str
    loaded: Loaded
    confirm: Loaded | None
    paired: tuple[Measurements, Measurements] | None
    variant_rounds: RoundLog
    noise: dict[CaseKey, float]
    parity: ParityResult | None
    #: the sim family's calibrated determinism (the ``--noise`` file's ``sim`` checks)
    sim_checks: dict[CaseKey, SimCheck] = field(default_factory=dict)


def _sample_run(path: str | None, loaded: Loaded) -> samples.SampleRun | None:
    """A perfgate sample file, checked to be of the same two commits."""
    if path is None:
        return None
    sample_run = samples.read_samples(path)
    for side, sha in (("base", loaded.base.commit_hash), ("head", loaded.head.commit_hash)):
        recorded = getattr(sample_run, side)
        if not asv_results.same_commit(recorded, sha):
            raise UserError(f"{path}: {side} is {recorded!r}, not {sha}")
    return sample_run


def _paired(
    sample_run: samples.SampleRun | None, bench: str | None
) -> tuple[Measurements, Measurements] | None:
    """Paired rounds of every case from a perfgate sample file."""
    if sample_run is None:
        return None
    base, head = measurements_from_samples(sample_run)
    return select(base, bench), select(head, bench)


def _variant_rounds(
    sample_run: samples.SampleRun | None, loaded: Loaded, bench: str | None
) -> RoundLog:
    """The rounds the variant vs baseline rows relative to base pair up: the sample file's
    (as the gate ran them), else the stored results as one round of each commit."""
    if sample_run is None:
        return rounds.one_round(loaded.base_m, loaded.head_m)
    kept = [
        replace(r, base=select(r.base, bench), head=select(r.head, bench))
        for r in sample_run.rounds
    ]
    return RoundLog("main", kept)


def compare_config(config_path: str | None, *, defaults: bool) -> GateConfig:
    """The ``--config`` file, else the project's configuration in the current folder
    (perfgate.toml or ``[tool.perfgate]`` of pyproject.toml); without one, an error naming
    where it looked, unless ``defaults`` opts into the built-in defaults (which have no
    higher-is-better rules: a throughput loss would read as a speed-up)."""
    if config_path is not None:
        return load_config(config_path)
    if defaults:
        return config_on_disk(Path("."), required=False)
    try:
        return config_on_disk(Path("."))
    except ConfigError as exc:
        raise ConfigError(
            f"no configuration: looked for perfgate.toml or [tool.perfgate] in "
            f"{Path('pyproject.toml').resolve()} ({exc}); "
            "pass --config PYPROJECT, or --defaults for the built-in defaults"
        ) from None


def recorded_environment(results: asv_results.ResultSet) -> dict[str, Any]:
    """What asv recorded of one side's machine and environment that must match the other's:
    its machine parameters, the variables of its environment that change codegen or
    threading (``machine.CODEGEN_ENV``, as ``env_vars.NAME``) and the asv environment the
    results were measured in (`perfgate.model.ASV_ENVIRONMENT`)."""
    codegen = codegen_environment(results.env_vars)
    recorded = {**results.machine_info, **{f"env_vars.{k}": v for k, v in codegen.items()}}
    return with_asv_environments(recorded, (results.env_name,))


def check_confirmation(
    confirm_dir: str, loaded: Loaded, confirm: Loaded, ignore: tuple[str, ...]
) -> None:
    """Refuse confirmation results recorded on another machine or environment than the
    compared ones (a re-run elsewhere confirms nothing); names the keys and both values."""
    expected = recorded_environment(loaded.base)
    for side, results in (("base", confirm.base), ("head", confirm.head)):
        recorded = recorded_environment(results)
        differing = EnvironmentCheck(expected, recorded, ignore).differing_keys
        if differing:
            found = "; ".join(
                f"{k} (compared {expected.get(k)!r}, confirmation {recorded.get(k)!r})"
                for k in differing
            )
            raise UserError(
                f"--confirm-results {confirm_dir}: the {side} results were recorded in another "
                f"environment than the compared ones: {found}"
            )


def read_inputs(results_dir: str, base: str, head: str, opts: Mapping[str, str | None]) -> Inputs:
    """Read the configuration, the results of both commits and the optional files."""
    report_dir = opts.get("report_dir")
    if report_dir is not None:
        report_files.check_report_dir(report_dir)
        report_files.check_free(report_dir)
    config = compare_config(opts.get("config"), defaults=bool(opts.get("defaults")))
    machine = resolve_machine(results_dir, opts.get("machine"))
    env, bench = opts.get("env"), opts.get("bench")
    loaded = _load(results_dir, machine, base, head, env, bench)
    confirm_dir = opts.get("confirm_dir")
    confirm = None
    if confirm_dir is not None:
        confirm = _load(confirm_dir, resolve_machine(confirm_dir, machine), base, head, env, bench)
        check_confirmation(confirm_dir, loaded, confirm, config.fingerprint_ignore)
    noise_path = opts.get("noise")
    sample_run = _sample_run(opts.get("samples"), loaded)
    return Inputs(
        config=config,
        machine=machine,
        loaded=loaded,
        confirm=confirm,
        paired=_paired(sample_run, bench),
        variant_rounds=_variant_rounds(sample_run, loaded, bench),
        noise=read_noise_floors(noise_path) if noise_path else {},
        sim_checks=read_noise_file(Path(noise_path)).sim_checks() if noise_path else {},
        parity=read_parity(opts.get("parity"), head=loaded.head.commit_hash),
    )


def command_line(
    results_dir: str, machine: str, base: str, head: str, opts: Mapping[str, str | None]
) -> str:
    """The exact command line that reproduces this report from the stored results."""
    argv = ["perfgate", "compare", results_dir, "--base", base, "--head", head]
    argv += ["--machine", machine]
    for name, flag in FLAGS.items():
        value = opts.get(name)
        if value is not None:
            argv += [flag, value]
    if opts.get("defaults"):
        argv.append("--defaults")
    return shlex.join(argv)


def build_report(inputs: Inputs, command: str) -> render.Report:
    """Statistics, policy and the report model: pure, given the loaded inputs."""
    cfg, loaded, confirm = inputs.config, inputs.loaded, inputs.confirm
    base_m, head_m = inputs.paired or (loaded.base_m, loaded.head_m)
    rows = compare_runs(
        base_m,
        head_m,
        cfg,
        noise_floors=inputs.noise,
        confirmation=(confirm.base_m, confirm.head_m) if confirm else None,
    )
    rows += compare_efficiency(
        base_m,
        head_m,
        cfg,
        rows,
        confirmation=(confirm.base_m, confirm.head_m) if confirm else None,
    )
    variants = compare_variants(
        loaded.head_m,
        cfg,
        noise_floors=inputs.noise,
        confirmation_head=confirm.head_m if confirm else None,
        sides=rounds.variant_sides(inputs.variant_rounds, cfg.baselines),
        confirmation_sides=(
            rounds.variant_sides(rounds.one_round(confirm.base_m, confirm.head_m), cfg.baselines)
            if confirm
            else None
        ),
    )
    scaling, variant_scaling = scaling_rows(loaded.base_m, loaded.head_m, cfg)
    environment = EnvironmentCheck(
        recorded_environment(loaded.base),
        recorded_environment(loaded.head),
        cfg.fingerprint_ignore,
    )
    again = confirm.base_m if confirm else {}  # a re-run of the results: a second count
    rows += compare_sim(loaded.base_m, loaded.head_m, again, cfg, inputs.sim_checks)
    rows += compare_sim_scaling(loaded.base_m, loaded.head_m, again, cfg)
    decision = decide.decide(rows, variants, cfg, parity=inputs.parity, environment=environment)
    return render.Report(
        decision=decision,
        config=cfg,
        base=loaded.base.commit_hash,
        head=loaded.head.commit_hash,
        machine=inputs.machine,
        command=command,
        rows=rows,
        variants=variants,
        scaling=scaling,
        variant_scaling=variant_scaling,
        compile_rows=compile_times(loaded.base_m, loaded.head_m, cfg),
        parity=inputs.parity,
        environment=environment,
        notes=(f"configuration: {cfg.source}", *_variant_notes(inputs, variants)),
    )


def _variant_notes(inputs: Inputs, variants: list[VariantComparison]) -> tuple[str, ...]:
    """Where the rows of the variants relative to base got their rounds from."""
    if not any(v.relative is not None for v in variants):
        return ()
    if inputs.paired is not None:
        return ("variant vs baseline, change from base: the rounds of the sample file",)
    return (
        "variant vs baseline, change from base: stored results hold one run per commit, "
        "too few rounds to decide a change (--samples gives the gate's paired rounds)",
    )
