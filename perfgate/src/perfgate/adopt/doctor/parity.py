"""``perfgate doctor``'s parity check: the quick parity command (``quick_parity_command``,
else ``parity_command``: what ``perfgate gate --quick`` runs) is run once at HEAD, as the
gate's parity stage runs it (`perfgate.adopt.parity_trial`), and its time reported. A
command that fails, is stopped at the limit or cannot be run at all is a problem: a first
quick gate of an untouched commit would end in PARITY FAILURE (exit 2) or an error."""

from __future__ import annotations

from pathlib import Path

from perfgate.adopt.parity_trial import DEFAULT_LIMIT_S, Trial, TrialOutcome, Trier
from perfgate.adopt.report_lines import Finding, ok, problem
from perfgate.adopt.survey import PARITY_PLACEHOLDER
from perfgate.config import GateConfig
from perfgate.errors import RunnerError, UserError
from perfgate.gate.parity import parity_command


def _key(config: GateConfig) -> str:
    return "quick_parity_command" if config.quick_parity_command else "parity_command"


def trial_finding(key: str, trial: Trial) -> Finding:
    """One finding of the quick parity command's run (pure)."""
    what = f"{key} at HEAD {trial.sha[:12]}".rstrip()
    if trial.passed:
        return ok(f"{what}: {trial.summary()} (`perfgate gate --quick` runs it first)")
    tail = " | ".join(trial.error.splitlines()[-3:]) or "(no output)"
    if trial.outcome is TrialOutcome.TIMED_OUT:
        fix = f"set {key} to a subset that runs in seconds (the tests of the benchmarked code)"
    else:
        fix = f"fix what its output says, or set {key} to a command that passes here"
    return problem(f"{what}: {trial.summary()}; its output ended: {tail}", fix)


def not_run(key: str, why: str) -> Finding:
    """The problem of a quick parity command doctor could not run."""
    return problem(
        f"{key} was not run, so nothing says a quick gate's parity passes: {why}",
        f"fix what it names, then `perfgate doctor --only parity` (or set {key})",
    )


def parity_checks(
    root: Path, config: GateConfig | None, trier: Trier, limit_s: float = DEFAULT_LIMIT_S
) -> list[Finding]:
    """Run the quick parity command once at HEAD (``trier``) and report how it did."""
    if config is None:
        return [not_run("quick_parity_command", "the configuration above must load first")]
    key, command = _key(config), parity_command(config, quick=True)
    if tuple(command) == PARITY_PLACEHOLDER:
        return [not_run(key, "it is perfgate init's placeholder")]
    try:
        (trial,) = trier(root, config, [tuple(command)], limit_s)
    except (UserError, RunnerError) as exc:
        first = str(exc).strip().splitlines()
        return [not_run(key, " | ".join(first[:1] + first[-2:]))]
    return [trial_finding(key, trial)]
