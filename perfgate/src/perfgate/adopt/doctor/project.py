"""``perfgate doctor``'s project checks: the policy parses, the asv configuration is found,
the parity command can start, the build mode fits the code, the instruments have their
tools, and asv discovers the suites, which the policy's regexes then select."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from perfgate.adopt import survey
from perfgate.adopt.report_lines import Finding, note, ok, problem
from perfgate.config import GateConfig
from perfgate.config_files import PERFGATE_TOML, PYPROJECT, config_on_disk
from perfgate.errors import UserError
from perfgate.formats.asv_conf import AsvProject, read_project
from perfgate.formats.benchmarks_json import Suite

SuiteFinder = Callable[[Path, GateConfig], Suite]


def load(
    root: Path, asv_config: Path | None
) -> tuple[GateConfig | None, AsvProject | None, list[Finding]]:
    """The policy and the asv configuration, each None when it cannot be read (the finding
    says why)."""
    findings: list[Finding] = []
    try:
        config: GateConfig | None = config_on_disk(root)
        assert config is not None
        findings.append(ok(f"configuration: {config.source}"))
    except UserError as exc:
        config = None
        findings.append(problem(
            f"configuration: {exc}",
            "correct what it names (every key: docs/gate.md), or write one with `perfgate init`",
        ))  # fmt: skip
    named = asv_config or (config.asv_config if config is not None else None)
    try:
        project: AsvProject | None = read_project(root, named)
        assert project is not None
        findings.append(ok(f"asv configuration: {project.path.relative_to(root)}"))
    except UserError as exc:
        project = None
        findings.append(problem(
            f"asv configuration: {exc}",
            "set asv_config in the policy to the project's asv.conf.json",
        ))  # fmt: skip
    if project is not None and not project.benchmark_dir.is_dir():
        findings.append(problem(
            f"asv's benchmark_dir {project.benchmark_dir} does not exist",
            f"set benchmark_dir in {project.path.name} (relative to its folder)",
        ))  # fmt: skip
    return config, project, findings


def _program(command: Sequence[str], root: Path) -> str | None:
    """The command's program when it cannot be started here (None: it can)."""
    program = command[0]
    if program == "{python}":
        return None
    if "/" in program:
        return None if (root / program).exists() or Path(program).exists() else program
    return None if shutil.which(program) else program


def parity_checks(config: GateConfig, root: Path) -> list[Finding]:
    """The parity commands can be started (init's placeholder cannot)."""
    findings = []
    for key, command in (("parity_command", config.parity_command),
                         ("quick_parity_command", config.quick_parity_command)):  # fmt: skip
        if command is None:
            continue
        if tuple(command) == survey.PARITY_PLACEHOLDER:
            findings.append(problem(
                f"{key} is perfgate init's placeholder (no test command was found, or the "
                "one found did not pass when init ran it: the comment above it says why)",
                f"set {key} to the command that runs the project's tests, e.g. "
                '["{python}", "-m", "pytest", "-x", "-q"]',
            ))  # fmt: skip
        elif (missing := _program(command, root)) is not None:
            findings.append(problem(
                f"{key}: {missing!r} is not on PATH: parity cannot start (exit 3 every run)",
                f"install {missing}, or set {key} to a command that exists here",
            ))  # fmt: skip
        else:
            findings.append(ok(f"{key}: {' '.join(command)}"))
    return findings


def build_checks(
    config: GateConfig, files: Sequence[str], pyproject: dict[str, Any]
) -> list[Finding]:
    """``build = "none"`` for code that cannot be imported from its sources."""
    need = survey.build_need(files, pyproject)
    if config.build == "none" and need.value == "pip":
        return [problem(
            f'build = "none" but {need.reason}: the sides cannot be imported from their '
            "sources (discovery fails, or the installed package is measured on both sides)",
            'set build = "pip" (each side built once into a folder of its own)',
        )]  # fmt: skip
    return [ok(f"build = {config.build!r} ({need.reason})")]


def raw_instruments(root: Path) -> tuple[str, ...]:
    """``instruments`` of the policy as written, read defensively: the key is newer than
    some perfgate releases' parser (which would call it unknown)."""
    for name, top in ((PERFGATE_TOML, True), (PYPROJECT, False)):
        path = root / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
            return ()
        table = data if top else data.get("tool", {}).get("perfgate", {})
        found = table.get("instruments", ()) if isinstance(table, dict) else ()
        return tuple(str(x) for x in found) if isinstance(found, list) else ()
    return ()


def instrument_checks(config: GateConfig | None, root: Path) -> list[Finding]:
    """The simulated-CPU instrument ("sim") needs valgrind on the runner."""
    listed = getattr(config, "instruments", None) or raw_instruments(root)
    if "sim" not in listed:
        return []
    try:
        done = subprocess.run(
            ["valgrind", "--version"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        why = f'instruments lists "sim" but valgrind cannot run ({exc})'
        return [problem(why, "install valgrind (apt-get install valgrind) on every runner")]
    if done.returncode != 0:
        why = f'instruments lists "sim" but valgrind --version exits {done.returncode}'
        return [problem(why, "reinstall valgrind")]
    return [ok(f"valgrind: {done.stdout.strip()} (the sim instrument)")]


def _unmatched(patterns: Sequence[str], names: Sequence[str]) -> list[str]:
    return [p for p in patterns if not any(re.search(p, n) for n in names)]


def suite_checks(config: GateConfig, root: Path, finder: SuiteFinder) -> list[Finding]:
    """asv discovers the suites as the gate will; the policy's regexes select some of them."""
    try:
        suite = finder(root, config)
    except UserError as exc:
        first = str(exc).strip().splitlines()
        return [problem(
            f"asv cannot discover the suites: {' | '.join(first[:1] + first[-3:])}",
            "fix the error above (run `asv check --python=same` in the project for details)",
        )]  # fmt: skip
    names = sorted(suite)
    if not names:
        return [problem("asv discovered no benchmark", "add asv benchmarks to benchmark_dir")]
    families = ", ".join(f.pattern for f in survey.families(suite))
    findings = [ok(f"asv discovers {len(names)} benchmarks")]
    for key, patterns in (("blocking", config.blocking), ("gate_bench", config.gate_bench),
                          ("quick_bench", config.quick_bench or ())):  # fmt: skip
        for pattern in _unmatched(patterns, names):
            findings.append(problem(
                f"{key} pattern '{pattern}' matches no benchmark"
                + (" (the gate would never block on it)" if key == "blocking" else
                   " (a run of it measures nothing: exit 3)"),
                f"use regexes over asv's benchmark names, e.g. one of the families {families}",
            ))  # fmt: skip
    for rule in config.thresholds:
        if _unmatched((rule.pattern,), names):
            findings.append(note(f"threshold pattern '{rule.pattern}' matches no benchmark"))
    return findings
