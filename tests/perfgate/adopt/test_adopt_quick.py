"""perfgate.adopt.quick and perfgate.adopt.measured: the quick selection and budget init
writes from one measured run of the suite (issue 38: init's quick gate could not pass on
the project it was written for: 55 cases, 10.6 min planned against 3)."""

from __future__ import annotations

import re
import tomllib

from perfgate.adopt.measured import with_probe
from perfgate.adopt.policy import Proposal, render_policy
from perfgate.adopt.probe import Probe
from perfgate.adopt.quick import SAFETY, choose_quick, measured_costs, selection_regex
from perfgate.adopt.survey import Family, Guess
from perfgate.config import parse_config

BLOCKING = (r"^bench_a\.", r"^bench_b\.")


def _probe(**seconds: float) -> Probe:
    names = {k.replace("__", "."): v for k, v in seconds.items()}
    return Probe(names, {"bench_a.time_broken": "ValueError: boom"}, 2.0, "box")


def test_the_selection_fits_half_the_budget_in_min_samples_rounds() -> None:
    """Each family's cheapest first, then the cheapest others, while six rounds of them
    (both sides, asv's overhead of two processes) take at most half the budget."""
    probe = _probe(bench_a__time_x=1.0, bench_a__time_y=30.0, bench_b__time_z=4.0, other__t=0.1)
    q = choose_quick(probe, BLOCKING, 6, 3.0)
    assert q is not None
    assert q.names == ("bench_a.time_x", "bench_b.time_z")  # time_y does not fit, other blocks not
    assert q.bench == (r"^bench_a\.time_x(\(|$)", r"^bench_b\.time_z(\(|$)")
    assert q.round_s == 2.0 * (1.0 + 4.0 + 2.0)
    assert q.rounds * q.round_s * SAFETY <= 180.0 and not q.raised
    assert (q.left_out, q.budget_minutes) == (1, 3.0)


def test_when_nothing_fits_the_budget_is_raised_to_what_the_cheapest_needs() -> None:
    probe = _probe(bench_a__time_x=20.0, bench_b__time_z=25.0)
    q = choose_quick(probe, BLOCKING, 6, 3.0)
    assert q is not None and q.raised and q.names == ("bench_a.time_x",)
    assert q.budget_minutes == 9.0  # 6 rounds x 44 s x 2 = 8.8 min, rounded up
    assert q.rounds * q.round_s * SAFETY <= q.budget_minutes * 60


def test_broken_and_non_blocking_benchmarks_are_never_selected() -> None:
    assert choose_quick(_probe(other__t=0.1), BLOCKING, 6, 3.0) is None


def test_setup_cache_counts_for_the_modules_selected() -> None:
    probe = _probe(bench_a__time_x=1.0)
    probe.seconds["<setup_cache bench_a:12>"] = 3.0
    q = choose_quick(probe, BLOCKING, 6, 3.0)
    assert q is not None and q.round_s == 2.0 * (1.0 + 3.0 + 2.0)


def test_the_written_policy_parses_and_holds_what_was_measured() -> None:
    """The rendered policy is valid and strict-parses: quick_bench, the budget, the costs
    (both sides: twice one run), the broken benchmark named with its error."""
    proposal = Proposal(
        asv_config="benchmarks/asv.conf.json",
        build=Guess("none", "pure"),
        parity=Guess(("{python}", "-m", "pytest", "-x", "-q"), "pytest"),
        families=(Family("bench_a", 2, ("time",)), Family("bench_b", 1, ("time",))),
        blocking=BLOCKING,
    )
    probe = _probe(bench_a__time_x=1.0, bench_b__time_z=4.0)
    text = render_policy(with_probe(proposal, probe), True)
    config = parse_config(tomllib.loads(text)["tool"]["perfgate"])
    assert config.quick_bench == (r"^bench_a\.time_x(\(|$)", r"^bench_b\.time_z(\(|$)")
    assert config.quick_budget_minutes == 3.0
    assert config.costs == measured_costs(probe)
    assert config.costs.by_benchmark() == {"bench_a.time_x": 2.0, "bench_b.time_z": 8.0}
    assert config.costs.asv_overhead_s == 4.0 and config.costs.machine == "box"
    assert "#   bench_a.time_broken: ValueError: boom" in text


def test_the_selection_regex_selects_every_combination_and_nothing_else() -> None:
    """asv matches a parameterized benchmark as ``name(1, 2)``: the first quick_bench init
    wrote (``^name$``) selected none of time_add's cases in a real A/A gate."""
    pattern = selection_regex("bench_core.Core.time_add")
    assert re.search(pattern, "bench_core.Core.time_add(1)")
    assert re.search(pattern, "bench_core.Core.time_add")
    assert not re.search(pattern, "bench_core.Core.time_add_many(1)")
