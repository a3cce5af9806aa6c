"""perfgate.wall.plan: rounds within a budget, detectable slowdown, blind spots."""

from __future__ import annotations

import pytest

from perfgate.config import GateConfig, parse_config
from perfgate.errors import ConfigError
from perfgate.formats.timeline import RoundTime, Timeline
from perfgate.gate.context import budget_seconds
from perfgate.model import CaseComparison, CaseKey
from perfgate.settings import GateOptions
from perfgate.verdict import CaseVerdict
from perfgate.wall import plan, visibility
from perfgate.wall.sampling import short_sighted

HOT = CaseKey("hot_slice.HotSlice.time_compute", (("n", "2048"),))
HOT2 = CaseKey("hot_slice.HotSlice.time_compute", (("n", "65536"),))
COMPILE = CaseKey("compile_time.Compile.track_compile_s", (("path", "assembled"),))
CFG = GateConfig(blocking=(r"^hot_slice\.",), min_samples=6, detect_margin=0.02)


def test_default_costs_per_family() -> None:
    """Documented defaults when no run has measured a case; unknown families fall back."""
    assert plan.default_cost(COMPILE.benchmark) == 40.0
    assert plan.default_cost(HOT.benchmark) == 2.5
    assert plan.default_cost("other.x") == plan.FALLBACK_COST_S


def test_case_costs_split_a_benchmark_duration_between_its_cases() -> None:
    """asv records one duration per benchmark: each of its cases gets an even share."""
    costs = plan.case_costs({HOT.benchmark: 10.0}, [HOT, HOT2, COMPILE])
    assert costs == {HOT: 5.0, HOT2: 5.0}


def test_case_costs_add_the_module_setup_cache_to_its_cases() -> None:
    """A module's setup_cache phase (the compile suite's cold probes) is part of its cases'
    cost; other phases and other modules' cases are untouched."""
    warm = CaseKey(COMPILE.benchmark, (("path", "handwritten"),))
    durations = {
        COMPILE.benchmark: 4.0,
        HOT.benchmark: 2.0,
        "<setup_cache compile_time:95>": 100.0,
        "<build>": 30.0,
    }
    costs = plan.case_costs(durations, [COMPILE, warm, HOT])
    assert costs == {COMPILE: 52.0, warm: 52.0, HOT: 2.0}
    assert plan.setup_cache_module("<setup_cache compile_time:95>") == "compile_time"
    assert plan.setup_cache_module("<build>") is None


def test_non_blocking_cases_run_once_blocking_ones_min_samples() -> None:
    """A budget that affords everything: compile time once, hot slices min_samples rounds."""
    costs = {HOT: 10.0, HOT2: 10.0, COMPILE: 100.0}
    p = plan.plan_rounds(costs, CFG, budget_s=3600.0, basis="test")
    rounds = {c.key: c.rounds for c in p.cases}
    assert rounds == {HOT: 6, HOT2: 6, COMPILE: 1}
    assert p.expected_s == pytest.approx(100.0 + 6 * 20.0)
    assert p.short == ()


def test_a_tight_budget_leaves_blocking_cases_short() -> None:
    """min_samples rounds no longer run whatever the budget: the short cases are named."""
    costs = {HOT: 10.0, HOT2: 10.0, COMPILE: 100.0}
    p = plan.plan_rounds(costs, CFG, budget_s=100.0 + 3 * 20.0 + 5.0, basis="test")
    assert p.rounds == 3
    assert p.short == (HOT, HOT2)
    doc = p.to_json()
    assert doc["rounds"] == 3 and doc["short"] == [HOT.label(), HOT2.label()]
    assert doc["basis"] == "test"


def test_blocking_rounds_is_at_least_one() -> None:
    """Even a budget smaller than one round measures every case once (then stops)."""
    assert plan.blocking_rounds({HOT: 50.0}, [HOT], 6, 1.0) == 1


def _row(ratio: float, low: float, high: float, **kw: object) -> CaseComparison:
    fields: dict[str, object] = {"ratio": ratio, "ci_low": low, "ci_high": high, "n_base": 6}
    fields.update(kw)
    verdict = fields.pop("verdict", CaseVerdict.UNCHANGED)
    return CaseComparison(HOT, verdict, 0.03, True, **fields)  # type: ignore[arg-type]


def test_detectable_slowdown_from_the_ci_spread() -> None:
    """(1 + threshold) * ratio / ci_low - 1: a 2% spread at 3% sees about 5.06%."""
    seen = visibility.detectable_slowdown(_row(1.0, 1.0 / 1.02, 1.02))
    assert seen == pytest.approx(1.03 * 1.02 - 1.0)
    assert visibility.detectable_slowdown(_row(1.0, 1.0, 1.0)) == pytest.approx(0.03)
    no_ci = CaseComparison(HOT, CaseVerdict.INCONCLUSIVE, 0.03, True)
    assert visibility.detectable_slowdown(no_ci) is None


def test_blind_spots_are_wide_or_unmeasured_blocking_rows() -> None:
    """A wide CI (0.936-1.120) is a blind spot, a narrow one is not; failed rows and
    report-only rows are not listed; a row without a CI is."""
    wide = _row(1.02, 0.936, 1.120, verdict=CaseVerdict.INCONCLUSIVE)
    narrow = _row(1.0, 0.99, 1.01)
    report_only = CaseComparison(COMPILE, CaseVerdict.INCONCLUSIVE, 0.03, False)
    failed = CaseComparison(HOT2, CaseVerdict.FAILED, 0.03, True)
    no_ci = CaseComparison(HOT2, CaseVerdict.INCONCLUSIVE, 0.03, True)
    spots = visibility.blind_spots([wide, narrow, report_only, failed, no_ci], CFG)
    assert spots == [wide, no_ci]


def test_rounds_to_target_shrink_as_one_over_sqrt_rounds() -> None:
    """Twice the log-margin above the threshold needs four times the rounds."""
    target = 1.05 / 1.03
    row = _row(1.0, 1.0 / target**2, 1.1)
    assert visibility.rounds_to_target(row, 6, CFG) == 24
    assert visibility.rounds_to_target(_row(1.0, 0.999, 1.001), 6, CFG) == 6


def test_config_keys_are_checked() -> None:
    """detect_margin and budget_minutes parse, and a bad value names the key."""
    cfg = parse_config({"detect_margin": 0.01, "budget_minutes": 30})
    assert cfg.detect_margin == 0.01 and cfg.budget_minutes == 30.0
    with pytest.raises(ConfigError, match="budget_minutes"):
        parse_config({"budget_minutes": -1})
    with pytest.raises(ConfigError, match="detect_margin"):
        parse_config({"detect_margin": "x"})


def test_blind_spots_within_reach_get_extra_rounds() -> None:
    """A blind spot that max_rounds could cure gets rounds; one out of reach does not."""
    cfg = GateConfig(blocking=(r"^hot_slice\.",), max_rounds=30, detect_margin=0.02)
    near = _row(1.0, 0.97, 1.03, n_head=6)  # 6.2% seen: 5% after about 16 rounds
    far = _row(1.0, 0.80, 1.2, n_head=6)
    assert short_sighted([near, far], cfg) == [HOT]


def test_the_budget_default_comes_from_the_configuration() -> None:
    """--budget-minutes wins; the quick gate keeps its own (quick_budget_minutes, default 3);
    else budget_minutes of the config."""
    cfg = GateConfig(budget_minutes=40.0)
    assert budget_seconds(GateOptions("a", "b"), cfg) == 2400.0
    assert budget_seconds(GateOptions("a", "b", budget_minutes=3.0), cfg) == 180.0
    assert budget_seconds(GateOptions("a", "b", quick=True), cfg) == 180.0
    quick = GateConfig(budget_minutes=40.0, quick_budget_minutes=2.5)
    assert budget_seconds(GateOptions("a", "b", quick=True), quick) == 150.0
    assert budget_seconds(GateOptions("a", "b", quick=True, budget_minutes=9.0), quick) == 540.0


def test_asv_attributes_from_cost_and_noise() -> None:
    """Quiet cheap cases keep their attributes; noisy cheap ones get more samples; quiet
    costly ones get fewer and no warm-up; the sample time per round is bounded."""
    quiet = [1e-3] * 3 + [1.001e-3, 0.999e-3, 1.0005e-3, 0.9995e-3] + [1e-3] * 3
    assert plan.asv_attributes(quiet, 0.03) == {}  # 10 samples of 10 ms: too cheap to lower
    noisy = [1e-3, 1.02e-3, 0.98e-3, 1.03e-3, 0.97e-3]
    assert plan.asv_attributes(noisy, 0.03) == {"repeat": "(20, 20, 10)"}
    long_noisy = [2.0, 2.04, 1.96, 2.06, 1.94]  # needs 20, 5 x 2 s fit in 10 s
    assert plan.asv_attributes(long_noisy, 0.03) == {"repeat": "(5, 5, 10)", "warmup_time": "0"}
    too_long = [12.0, 12.1, 11.9]
    assert plan.asv_attributes(too_long, 0.03) == {"warmup_time": "0"}
    mid = [0.4, 0.404, 0.396, 0.41, 0.39]  # 2% spread: 7 samples needed, step 10
    assert plan.asv_attributes(mid, 0.03) == {"repeat": "(10, 10, 10)", "warmup_time": "0"}
    capped = [0.6, 0.612, 0.588, 0.618, 0.582]  # 25 needed, only 16 fit in 10 s
    assert plan.asv_attributes(capped, 0.03) == {"repeat": "(10, 10, 10)", "warmup_time": "0"}
    costly_quiet = [0.3 + 0.001 * (i % 3) for i in range(10)]  # 3 s of samples, 1 needed
    assert plan.asv_attributes(costly_quiet, 0.05) == {
        "repeat": "(5, 5, 10)", "warmup_time": "0"
    }  # fmt: skip
    short_quiet = [0.03 + 0.0001 * (i % 3) for i in range(10)]  # 0.3 s of samples: kept
    assert plan.asv_attributes(short_quiet, 0.05) == {}
    assert plan.asv_attributes([1.0], 0.03) == {}
    assert plan.relative_spread([1.0, 2.0]) is None


def _timeline(parity_s: float | None = 100.0, command: str = "make test-all") -> Timeline:
    rounds = [RoundTime("main", 0, 70.0, 60.0, 2)]
    rounds += [RoundTime("main", i, 14.0, 10.0, 4) for i in range(1, 6)]
    rounds += [RoundTime("main", 6, 30.0, 25.0, 4), RoundTime("confirm", 0, 9.0, 8.0, 2)]
    return Timeline(command, parity_s, 5.0, tuple(rounds))


def test_overheads_from_an_earlier_runs_timeline() -> None:
    """asv's overhead per round (first apart), set-up, the extra rounds after min_samples;
    parity only when the earlier run ran the same command, 0 s when CI's result is taken."""
    got, note = plan.overheads_from(_timeline(), "make test-all", 6)
    assert got == plan.Overheads(
        setup_s=5.0,
        parity_s=100.0,
        first_round_s=10.0,
        later_round_s=4.0,
        extra_s=30.0,
        confirm_s=9.0,
    )
    assert "parity (make test-all) as the earlier run's" in note
    other, note = plan.overheads_from(_timeline(), "pytest -q tests/termplan/tasks", 6)
    assert other.parity_s == 0.0 and "not counted" in note
    ci, note = plan.overheads_from(_timeline(), None, 6)
    assert ci.parity_s == 0.0 and "parity from CI" in note
    none, note = plan.overheads_from(None, "make test-all", 6)
    assert none == plan.Overheads(extra_s=None) and "no timeline" in note
    assert "extra rounds expected to last to the budget" in note


def test_expected_time_adds_overheads_and_extra_rounds_within_the_budget() -> None:
    """Expected = set-up + parity + cases + asv's overhead per round + extra rounds like the
    earlier run's, the measuring part never beyond the budget."""
    costs = {HOT: 4.0, HOT2: 4.0, COMPILE: 20.0}
    overheads = plan.Overheads(
        setup_s=5.0, parity_s=100.0, first_round_s=10.0, later_round_s=4.0, extra_s=30.0
    )
    p = plan.plan_rounds(costs, CFG, 600.0, "test", overheads)
    assert p.rounds == 6 and p.cases_s == 20.0 + 6 * 8.0
    assert p.measure_s == pytest.approx(68.0 + 10.0 + 5 * 4.0 + 30.0)
    assert p.expected_s == pytest.approx(5.0 + 100.0 + p.measure_s)
    doc = p.to_json()
    assert doc["expected_minutes"] == round(p.expected_s / 60, 2)
    assert doc["expected_parts_minutes"]["parity"] == round(100 / 60, 2)
    # the extra rounds stop where the run's budget ends, counted from its start (set-up
    # and parity included, as the gate counts it): 5 + 100 + 98 s leave none of 110 s
    capped = plan.plan_rounds(costs, CFG, 110.0, "test", overheads)
    assert capped.measure_s == pytest.approx(98.0)


def test_asv_overhead_per_round_counts_against_the_budget() -> None:
    """Without overheads 6 rounds fit 70 s; with 10 s of asv overhead per round only 2
    (38 s for the first, 18 s for each later one)."""
    costs = {HOT: 4.0, HOT2: 4.0, COMPILE: 20.0}
    assert plan.plan_rounds(costs, CFG, 70.0, "t").rounds == 6
    heavy = plan.Overheads(first_round_s=10.0, later_round_s=10.0)
    assert plan.plan_rounds(costs, CFG, 70.0, "t", heavy).rounds == 2


def test_raises_are_granted_only_while_the_round_budget_pays() -> None:
    """More samples cost time every later round: the cheapest raises go first, within the
    slack plus what lowered cases save; the rest keep their sample count."""
    noisy = [1e-3, 1.02e-3, 0.98e-3, 1.03e-3, 0.97e-3]  # 5 samples, wants 20: +15 x 20 ms x 2
    noisy_slow = [0.2, 0.206, 0.194, 0.209, 0.191]  # wants 20: +15 x 0.2 s x 2 = 6 s
    quiet_slow = [0.3 + 0.001 * (i % 3) for i in range(10)]  # lowered to 5: saves 3.01 s
    first = {HOT: noisy, HOT2: noisy_slow, COMPILE: quiet_slow}
    thresholds = {HOT: 0.03, HOT2: 0.03, COMPILE: 0.05}
    assert plan.added_seconds(noisy, {"repeat": "(20, 20, 10)"}) == pytest.approx(0.6)
    assert plan.added_seconds(quiet_slow, {"repeat": "(5, 5, 10)"}) == pytest.approx(-3.01)
    roomy = plan.budgeted_attributes(first, thresholds, 100.0)
    assert roomy[HOT] == {"repeat": "(20, 20, 10)"}
    assert roomy[HOT2] == {"repeat": "(20, 20, 10)", "warmup_time": "0"}
    tight = plan.budgeted_attributes(first, thresholds, 0.0)  # 3.01 s saved pays the cheap one
    assert tight[HOT] == {"repeat": "(20, 20, 10)"}
    assert tight[HOT2] == {"repeat": "(5, 5, 10)", "warmup_time": "0"}  # kept at 5
    assert tight[COMPILE] == {"repeat": "(5, 5, 10)", "warmup_time": "0"}
    broke = plan.budgeted_attributes(first, thresholds, -10.0)
    assert broke[HOT] == {} and broke[HOT2] == {"repeat": "(5, 5, 10)", "warmup_time": "0"}
