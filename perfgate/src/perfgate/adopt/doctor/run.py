"""``perfgate doctor --run``: run the quick gate's selection once at HEAD, as ``perfgate
init`` does (`perfgate.adopt.probe`), and say what a first quick gate would meet: broken
benchmarks (with asv's error) and whether ``min_samples`` rounds of the selection fit in
``quick_budget_minutes`` by the seconds this run measured."""

from __future__ import annotations

import math
from pathlib import Path

from perfgate.adopt.probe import Probe, Prober
from perfgate.adopt.quick import SAFETY
from perfgate.adopt.report_lines import Finding, note, ok, problem
from perfgate.config import GateConfig


def budget_findings(probe: Probe, config: GateConfig) -> list[Finding]:
    """Whether the quick gate's ``min_samples`` rounds fit its budget (pure)."""
    round_s = 2.0 * (sum(probe.seconds.values()) + probe.overhead_s)
    need_s = config.min_samples * round_s
    budget_s = config.quick_budget_minutes * 60.0
    what = (
        f"--quick: {len(probe.seconds)} working benchmark(s), {round_s:.1f} s a round (both "
        f"sides) here: {config.min_samples} rounds take {need_s / 60:.1f} min of "
        f"quick_budget_minutes = {config.quick_budget_minutes:g}"
    )
    if need_s > budget_s:
        raise_to = math.ceil(need_s * SAFETY / 60.0)
        fix = (
            "select fewer benchmarks in quick_bench (`perfgate init --force` proposes a "
            f"selection that fits) or raise quick_budget_minutes to {raise_to}"
        )
        return [problem(what + ": the quick gate would end short of rounds (exit 3)", fix)]
    if need_s * SAFETY > budget_s:
        return [note(what + ": fits, with less than half of it to spare on a slower runner")]
    return [ok(what)]


def broken_findings(probe: Probe) -> list[Finding]:
    """One problem per benchmark that failed, with asv's error (pure)."""
    fix = (
        "fix the benchmark, or leave it out of quick_bench / gate_bench (a gate names it "
        "BROKEN ON BOTH SIDES, exit 3 by the policy's `broken`)"
    )
    return [problem(f"{name} fails at HEAD: {error}", fix) for name, error in probe.broken.items()]


def run_checks(root: Path, config: GateConfig, prober: Prober) -> list[Finding]:
    """Run the quick selection once (``prober``) and report what it showed."""
    probe = prober(root, config, 0)
    findings = [ok(f"ran {probe.count} benchmark(s) of --quick's selection once at HEAD")]
    findings += broken_findings(probe)
    findings += budget_findings(probe, config)
    if config.costs is None:
        findings.append(
            note(
                "the policy has no [tool.perfgate.costs]: `perfgate gate --plan` estimates "
                "from family defaults until a gate ran here (perfgate init writes them)"
            )
        )
    return findings
