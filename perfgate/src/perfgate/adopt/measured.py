"""A proposal with what one run of its suite measured (``perfgate init``): the quick
selection and budget (`perfgate.adopt.quick`), the costs for the first plan, the broken
benchmarks, the parity subset of ``--quick`` (`perfgate.adopt.quick_parity`), and how each
parity command did when it ran once (`perfgate.adopt.parity_trial`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from perfgate.adopt.parity_trial import Trial, Trier
from perfgate.adopt.policy import Proposal
from perfgate.adopt.probe import Probe, Prober
from perfgate.adopt.quick import choose_quick, measured_costs
from perfgate.adopt.quick_parity import quick_parity
from perfgate.adopt.survey import PARITY_PLACEHOLDER
from perfgate.config import GateConfig
from perfgate.config_costs import MeasuredCosts


def proposal_config(proposal: Proposal) -> GateConfig:
    """The policy a proposal's suite is run under (as the quick gate will run it)."""
    return replace(
        GateConfig(),
        asv_config=proposal.asv_config,
        build=proposal.build.value,
        blocking=proposal.blocking,
        source="perfgate init",
    )


def with_quick_parity(proposal: Proposal, files: list[str]) -> Proposal:
    """``proposal`` with the quick parity subset found among the tracked ``files``."""
    guess, example = quick_parity(
        files, tuple(proposal.parity.value), [f.name for f in proposal.families]
    )
    return replace(
        proposal,
        quick_parity=guess,
        quick_parity_example=example or proposal.quick_parity_example,
    )


def with_probe(proposal: Proposal, probe: Probe) -> Proposal:
    """``proposal`` with the quick selection, budget, costs and broken benchmarks the run
    ``probe`` showed."""
    config = proposal_config(proposal)
    quick = choose_quick(probe, proposal.blocking, config.min_samples, config.quick_budget_minutes)
    return replace(
        proposal,
        quick=quick,
        costs=measured_costs(probe),
        broken=tuple(sorted(probe.broken.items())),
    )


def measure(root: Path, proposal: Proposal, prober: Prober) -> Proposal:
    """Run the proposal's suite once (``prober``) and take what it showed."""
    probe = prober(root, proposal_config(proposal), proposal.benchmark_count)
    return with_probe(proposal, probe)


def parity_commands(proposal: Proposal) -> list[tuple[str, ...]]:
    """The parity commands init is about to write, quick first (the placeholder is no
    command, and a quick command equal to the full one runs once)."""
    found = [proposal.quick_parity.value, tuple(proposal.parity.value)]
    commands = [tuple(c) for c in found if c and tuple(c) != PARITY_PLACEHOLDER]
    return list(dict.fromkeys(commands))


def _passed_s(trial: Trial | None) -> float | None:
    return trial.seconds if trial is not None and trial.passed else None


def with_trials(proposal: Proposal, trials: dict[tuple[str, ...], Trial]) -> Proposal:
    """``proposal`` with each parity command's run (``trials``, by command) and the seconds
    of those that passed in its costs (``parity_s``, ``quick_parity_s``)."""
    full = trials.get(tuple(proposal.parity.value))
    quick = trials.get(tuple(proposal.quick_parity.value or ()))
    parity_s, quick_s = _passed_s(full), _passed_s(quick)
    costs = proposal.costs
    if parity_s is not None or quick_s is not None:
        costs = replace(costs or MeasuredCosts(), parity_s=parity_s, quick_parity_s=quick_s)
    return replace(proposal, parity_trial=full, quick_parity_trial=quick, costs=costs)


def try_parity(root: Path, proposal: Proposal, trier: Trier, limit_s: float) -> Proposal:
    """Run each parity command about to be written once at HEAD (``trier``)."""
    commands = parity_commands(proposal)
    if not commands:
        return proposal
    ran = trier(root, proposal_config(proposal), commands, limit_s)
    return with_trials(proposal, {t.command: t for t in ran})
