"""`perfgate compare`: statistics and a report from stored asv results; runs nothing.

    perfgate compare RESULTS_DIR --base SHA --head SHA [--machine M] [--env E]
        [--config pyproject.toml] [--report-dir DIR] [--bench REGEX]
        [--confirm-results DIR] [--samples FILE] [--parity-result FILE]

Prints the markdown report, optionally writes report.md, report.html and verdict.json into
``--report-dir`` (new files only, written atomically) and exits with the verdict code
(0 pass, 1 regression, 2 parity failure, 3 error).
"""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate import cli_types, compare, policy, render, store
from perfgate.config import GateConfig, load_config
from perfgate.errors import UserError
from perfgate.store import CaseKey

REPORT_FILES = ("report.md", "report.html", "verdict.json")
Measurements = Mapping[CaseKey, compare.Measurement]


def add_parser(subparsers: Any) -> None:
    """Register the ``compare`` subcommand."""
    p = subparsers.add_parser(
        "compare",
        help="compare stored asv results of two commits and report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("results_dir", metavar="RESULTS_DIR", help="asv results directory")
    p.add_argument("--base", required=True, help="base commit hash (or unique prefix)")
    p.add_argument("--head", required=True, help="head commit hash (or unique prefix)")
    p.add_argument("--machine", help="asv machine name (default: the only one present)")
    p.add_argument("--env", help="asv environment name when a commit has several")
    p.add_argument(
        "--config", help="pyproject.toml with [tool.perfgate] (default: ./pyproject.toml)"
    )
    p.add_argument("--report-dir", help="write report.md, report.html, verdict.json here")
    p.add_argument(
        "--bench", type=cli_types.regex, help="only benchmarks whose name matches this regex"
    )
    p.add_argument("--confirm-results", help="asv results directory of a confirmation re-run")
    p.add_argument("--samples", help="perfgate sample file with paired base/head rounds")
    p.add_argument("--parity-result", help='JSON {"status": "passed|failed|error", ...}')
    p.add_argument("--noise", help="noise-floor file from A/A calibration (raises thresholds)")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """Translate parsed arguments into `run`."""
    return run(
        args.results_dir,
        base=args.base,
        head=args.head,
        machine=args.machine,
        env=args.env,
        config_path=args.config,
        report_dir=args.report_dir,
        bench=args.bench,
        confirm_dir=args.confirm_results,
        samples_path=args.samples,
        parity_path=args.parity_result,
        noise_path=args.noise,
    )


@dataclass(frozen=True)
class _Loaded:
    base: store.ResultSet
    head: store.ResultSet
    base_m: dict[CaseKey, compare.Measurement]
    head_m: dict[CaseKey, compare.Measurement]


def resolve_machine(results_dir: str, machine: str | None) -> str:
    """The machine to read: the given one, or the only machine in the results directory."""
    machines = store.list_machines(results_dir)
    if machine is not None:
        if machine not in machines:
            raise UserError(f"machine {machine!r} not in {results_dir} (found {machines})")
        return machine
    if len(machines) != 1:
        raise UserError(f"{results_dir} holds machines {machines}; pick one with --machine")
    return machines[0]


def _load(
    results_dir: str, machine: str, base: str, head: str, env: str | None, bench: str | None
) -> _Loaded:
    infos = store.read_benchmarks(results_dir)
    b = store.load_commit(results_dir, machine, base, env, infos)
    h = store.load_commit(results_dir, machine, head, env, infos)
    return _Loaded(
        b,
        h,
        compare.select(compare.measurements_from_results(b), bench),
        compare.select(compare.measurements_from_results(h), bench),
    )


def read_parity(path: str | None) -> policy.ParityResult | None:
    """Read a parity-result JSON written by CI or the gate (None when not given)."""
    if path is None:
        return None
    data = store.load_json(Path(path))
    statuses = {s.value: s for s in policy.ParityStatus}
    if not isinstance(data, dict) or data.get("status") not in statuses:
        raise UserError(f"{path}: expected {{'status': one of {sorted(statuses)}}}")
    return policy.ParityResult(
        statuses[data["status"]], str(data.get("command", "")), str(data.get("summary", ""))
    )


def _check_report_dir(report_dir: str | None) -> None:
    if report_dir is None:
        return
    existing = [name for name in REPORT_FILES if (Path(report_dir) / name).exists()]
    if existing:
        raise UserError(f"{report_dir} already holds {existing}; reports are never overwritten")


@dataclass(frozen=True)
class _Inputs:
    """Everything `run` reads from disk, before any statistics."""

    config: GateConfig
    machine: str
    loaded: _Loaded
    confirm: _Loaded | None
    paired: tuple[Measurements, Measurements] | None
    noise: dict[CaseKey, float]
    parity: policy.ParityResult | None


def _paired(
    path: str | None, loaded: _Loaded, bench: str | None
) -> tuple[Measurements, Measurements] | None:
    """Paired rounds from a perfgate sample file, checked to be of the same two commits."""
    if path is None:
        return None
    sample_run = store.read_samples(path)
    for side, sha in (("base", loaded.base.commit_hash), ("head", loaded.head.commit_hash)):
        recorded = getattr(sample_run, side)
        if not store.same_commit(recorded, sha):
            raise UserError(f"{path}: {side} is {recorded!r}, not {sha}")
    base, head = compare.measurements_from_samples(sample_run)
    return compare.select(base, bench), compare.select(head, bench)


def _read_inputs(
    results_dir: str, base: str, head: str, opts: Mapping[str, str | None]
) -> _Inputs:
    config_path = opts.get("config")
    config = load_config(config_path or "pyproject.toml", required=config_path is not None)
    _check_report_dir(opts.get("report_dir"))
    machine = resolve_machine(results_dir, opts.get("machine"))
    env, bench = opts.get("env"), opts.get("bench")
    loaded = _load(results_dir, machine, base, head, env, bench)
    confirm_dir = opts.get("confirm_dir")
    confirm = None
    if confirm_dir is not None:
        confirm = _load(confirm_dir, resolve_machine(confirm_dir, machine), base, head, env, bench)
    noise_path = opts.get("noise")
    return _Inputs(
        config=config,
        machine=machine,
        loaded=loaded,
        confirm=confirm,
        paired=_paired(opts.get("samples"), loaded, bench),
        noise=store.read_noise_floors(noise_path) if noise_path else {},
        parity=read_parity(opts.get("parity")),
    )


def _command(
    results_dir: str, machine: str, base: str, head: str, opts: Mapping[str, str | None]
) -> str:
    """The exact command line that reproduces this report from the stored results."""
    argv = ["perfgate", "compare", results_dir, "--base", base, "--head", head]
    argv += ["--machine", machine]
    flags = {"env": "--env", "config": "--config", "bench": "--bench"}
    flags |= {"confirm_dir": "--confirm-results", "samples": "--samples"}
    flags |= {"parity": "--parity-result", "noise": "--noise"}
    for name, flag in flags.items():
        value = opts.get(name)
        if value is not None:
            argv += [flag, value]
    return shlex.join(argv)


def build_report(inputs: _Inputs, command: str) -> render.Report:
    """Statistics, policy and the report model: pure, given the loaded inputs."""
    cfg, loaded, confirm = inputs.config, inputs.loaded, inputs.confirm
    base_m, head_m = inputs.paired or (loaded.base_m, loaded.head_m)
    rows = compare.compare_runs(
        base_m,
        head_m,
        cfg,
        noise_floors=inputs.noise,
        confirmation=(confirm.base_m, confirm.head_m) if confirm else None,
    )
    variants = compare.compare_variants(
        loaded.head_m,
        cfg,
        noise_floors=inputs.noise,
        confirmation_head=confirm.head_m if confirm else None,
    )
    scaling, variant_scaling = compare.scaling_rows(loaded.base_m, loaded.head_m, cfg)
    environment = policy.EnvironmentCheck(
        loaded.base.machine_info, loaded.head.machine_info, cfg.fingerprint_ignore
    )
    decision = policy.decide(rows, variants, cfg, parity=inputs.parity, environment=environment)
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
        compile_rows=compare.compile_times(loaded.base_m, loaded.head_m, cfg),
        parity=inputs.parity,
        environment=environment,
        notes=(f"configuration: {cfg.source}",),
    )


def run(
    results_dir: str,
    *,
    base: str,
    head: str,
    machine: str | None = None,
    env: str | None = None,
    config_path: str | None = None,
    report_dir: str | None = None,
    bench: str | None = None,
    confirm_dir: str | None = None,
    samples_path: str | None = None,
    parity_path: str | None = None,
    noise_path: str | None = None,
    write: Callable[[str], None] = print,
) -> int:
    """Compare two stored commits, print the markdown report, write files, return the exit code."""
    opts = {
        "machine": machine,
        "env": env,
        "config": config_path,
        "report_dir": report_dir,
        "bench": bench,
        "confirm_dir": confirm_dir,
        "samples": samples_path,
        "parity": parity_path,
        "noise": noise_path,
    }
    inputs = _read_inputs(results_dir, base, head, opts)
    report = build_report(inputs, _command(results_dir, inputs.machine, base, head, opts))
    markdown = render.render_markdown(report)
    write(markdown)
    if report_dir is not None:
        _write_reports(Path(report_dir), report, markdown)
    return report.decision.exit_code


def _write_reports(folder: Path, report: render.Report, markdown: str) -> None:
    store.write_text_atomic(folder / "report.md", markdown)
    store.write_text_atomic(folder / "report.html", render.render_html(report))
    store.write_text_atomic(
        folder / "verdict.json",
        json.dumps(render.verdict_json(report), indent=1, sort_keys=True) + "\n",
    )
