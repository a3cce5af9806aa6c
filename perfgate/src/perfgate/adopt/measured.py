"""A proposal with what one run of its suite measured (``perfgate init``): the quick
selection and budget (`perfgate.adopt.quick`), the costs for the first plan, the broken
benchmarks, and the parity subset of ``--quick`` (`perfgate.adopt.quick_parity`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from perfgate.adopt.policy import Proposal
from perfgate.adopt.probe import Probe, Prober
from perfgate.adopt.quick import choose_quick, measured_costs
from perfgate.adopt.quick_parity import quick_parity
from perfgate.config import GateConfig


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
