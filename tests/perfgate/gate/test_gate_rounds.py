"""Pure round bookkeeping: order, sample documents, measurements, selection, sequential rules."""

from __future__ import annotations

import re

from perfgate.config import BaselinePair, GateConfig
from perfgate.formats.benchmarks_json import benchmark_units, case_names, parse_benchmarks
from perfgate.formats.samples import parse_samples, samples_document
from perfgate.model import CaseComparison, CaseKey, Reason, Round
from perfgate.pipeline import sampling
from perfgate.pipeline.rounds import (
    RoundLog,
    head_measurements,
    measurements,
    round_order,
    variant_aligned,
    with_units,
)
from perfgate.pipeline.sampling import selection_regexes, undecided
from perfgate.verdict import CaseVerdict

A = CaseKey("s.t", (("path", "numpy"), ("n", "8")))
B = CaseKey("s.t", (("path", "handwritten"), ("n", "8")))
NEW = CaseKey("s.t", (("path", "assembled"), ("n", "8")))


def _log() -> RoundLog:
    log = RoundLog("main")
    for i in range(3):
        base = {A: (1.0, 1.1), B: (2.0,)}
        head = {A: (1.2, 1.3), B: None if i == 2 else (2.0,), NEW: (0.5,)}
        log.rounds.append(Round(i, "main", round_order(i), base, head))
    return log


def test_round_order_alternates() -> None:
    """B,H then H,B, repeating."""
    assert [round_order(i) for i in range(3)] == [
        ("base", "head"),
        ("head", "base"),
        ("base", "head"),
    ]


def test_samples_document_is_valid_store_format() -> None:
    """The document parses with parse_samples; failed rounds are null; orders kept."""
    doc = samples_document(_log().rounds, "b" * 40, "h" * 40, {"cpu": "x"}, "now", True)
    run = parse_samples(doc)
    assert run.orders == (("base", "head"), ("head", "base"), ("base", "head"))
    assert run.cases[A].head_rounds == ((1.2, 1.3),) * 3
    assert run.cases[B].failed_head and not run.cases[B].failed_base
    assert NEW not in run.cases  # only on one side: not a pair


def test_measurements_paired_and_one_sided() -> None:
    """Paired cases get rounds; a head-only case is a head measurement without base."""
    base, head = measurements(_log())
    assert head[A].rounds == ((1.2, 1.3),) * 3 and base[A].n == 3
    assert head[B].failed and not base[B].failed
    assert NEW in head and NEW not in base and head[NEW].n == 3


def test_a_case_never_paired_within_a_round_still_gets_a_row() -> None:
    """Skipped at head in even rounds and at base in odd rounds: it ran on both sides, never
    together. It is compared as unpaired samples instead of vanishing from the report."""
    log = RoundLog("main")
    for i in range(6):
        base = {B: (1.0,)} | ({A: (1.0, 1.01)} if i % 2 == 0 else {})
        head = {B: (1.0,)} | ({A: (2.0, 2.02)} if i % 2 == 1 else {})
        log.rounds.append(Round(i, "main", round_order(i), base, head))
    assert log.never_paired() == [A]
    base, head = measurements(log)
    assert base[A].rounds is None and head[A].rounds is None
    assert base[A].n == head[A].n == 6 and head[A].median == 2.0 + 0.01


def test_selection_regexes_match_asv_names_exactly() -> None:
    """Anchored, escaped names select one combination (asv matches `name(reprs)`)."""
    bench = {
        "version": 2,
        "s.t": {
            "params": [["'numpy'", "'handwritten'"], ["8", "16"]],
            "param_names": ["path", "n"],
        },
        "s.plain": {"params": [], "param_names": []},
    }
    names = case_names(parse_benchmarks(bench))
    assert names[A] == "s.t('numpy', 8)" and names[CaseKey("s.plain")] == "s.plain"
    regexes = selection_regexes([A], names)
    candidates = ["s.t('numpy', 8)", "s.t('numpy', 16)", "s.t('handwritten', 8)"]
    assert [c for c in candidates if any(re.search(r, c) for r in regexes)] == ["s.t('numpy', 8)"]


def _row(verdict: CaseVerdict, **kw: object) -> CaseComparison:
    return CaseComparison(A, verdict, 0.05, True, **kw)  # type: ignore[arg-type]


def test_undecided_and_flagged() -> None:
    """Inconclusive and pending improvements get rounds; flags go to confirmation."""
    cfg = GateConfig()
    rows = [
        _row(CaseVerdict.INCONCLUSIVE, note="CI reaches above"),
        _row(
            CaseVerdict.INCONCLUSIVE,
            note="benchmark version differs between sides",
            reason=Reason.VERSION_DIFFERS,
        ),
        _row(CaseVerdict.UNCHANGED, ci_low=0.8, ci_high=0.9, q=0.09),
        _row(CaseVerdict.UNCHANGED, ci_low=0.97, ci_high=1.01, q=0.9),
        CaseComparison(B, CaseVerdict.INCONCLUSIVE, 0.05, False),
    ]
    assert undecided(rows, cfg) == [A, A]
    flagged = [_row(CaseVerdict.REGRESSED), _row(CaseVerdict.IMPROVED), _row(CaseVerdict.FAILED)]
    assert sampling.flagged(flagged) == [A, A]


def test_parity_command_resolution() -> None:
    """{python} is substituted; make gets the running venv and never rebuilds it."""
    from perfgate.pipeline.parity import resolve_command

    assert resolve_command(["{python}", "-m", "pytest"], "/v/bin/python") == [
        "/v/bin/python",
        "-m",
        "pytest",
    ]
    assert resolve_command(["make", "test-all"], "/v/bin/python") == [
        "make",
        "-o",
        "/v/.installed",
        "test-all",
        "VENV=/v",
        "PYTHON=/v/bin/python",
    ]


def test_flagged_variant_cases_rerun_slower_and_faster_variants() -> None:
    """Both a slower and a faster blocking variant send its two head cases to confirmation."""
    from perfgate.config import BaselinePair
    from perfgate.model import CaseComparison, CaseKey, VariantComparison
    from perfgate.pipeline.sampling import flagged_variants, variant_head_cases
    from perfgate.verdict import CaseVerdict

    pair = BaselinePair("path", "assembled", "handwritten")
    group = CaseKey("hot.t", (("n", "8"),))
    heads = [CaseKey("hot.t", (("n", "8"), ("path", p))) for p in ("assembled", "handwritten")]
    heads.append(CaseKey("hot.t", (("n", "8"), ("path", "numpy"))))

    def variant(verdict: CaseVerdict, blocking: bool = True) -> VariantComparison:
        return VariantComparison(pair, CaseComparison(group, verdict, 0.05, blocking))

    def flagged_variant_cases(rows: list[VariantComparison], keys: list[CaseKey]) -> list[CaseKey]:
        return variant_head_cases(flagged_variants(rows), keys)

    for verdict in (CaseVerdict.REGRESSED, CaseVerdict.IMPROVED):
        assert set(flagged_variant_cases([variant(verdict)], heads)) == set(heads[:2])
    assert flagged_variant_cases([variant(CaseVerdict.UNCHANGED)], heads) == []
    assert flagged_variant_cases([variant(CaseVerdict.IMPROVED, blocking=False)], heads) == []


def test_undecided_variant_cases_get_more_rounds() -> None:
    """A likely-faster variant whose q is not yet small sends its head cases to more rounds."""
    from perfgate.config import BaselinePair, GateConfig
    from perfgate.model import CaseComparison, CaseKey, VariantComparison
    from perfgate.pipeline.sampling import undecided_variant_cases
    from perfgate.verdict import CaseVerdict

    pair = BaselinePair("path", "assembled", "handwritten")
    group = CaseKey("hot.t", (("n", "8"),))
    heads = [CaseKey("hot.t", (("n", "8"), ("path", p))) for p in ("assembled", "handwritten")]
    pending = CaseComparison(
        group, CaseVerdict.UNCHANGED, 0.05, True, ratio=0.6, ci_low=0.58, ci_high=0.6, q=0.06
    )
    settled = CaseComparison(
        group, CaseVerdict.UNCHANGED, 0.05, True, ratio=1.0, ci_low=0.99, ci_high=1.01, q=0.9
    )
    cfg = GateConfig()
    got = undecided_variant_cases([VariantComparison(pair, pending)], heads, cfg)
    assert set(got) == set(heads)
    assert undecided_variant_cases([VariantComparison(pair, settled)], heads, cfg) == []


def test_variant_aligned_keeps_rounds_where_both_sides_ran() -> None:
    """A round that re-ran only one side of a variant pair drops that side (pairing holds).

    Cases outside the pair (the numpy reference) are untouched; rounds that ran both sides
    all count, so the variant rows use every paired round, not just the first ones.
    """
    pair = BaselinePair("path", "assembled", "handwritten", reference="numpy")
    log = RoundLog("main")
    for i in range(5):
        both = i != 3
        head = {A: (1.0,), B: (2.0,)} | ({NEW: (1.5,)} if both else {})
        log.rounds.append(Round(i, "main", round_order(i), dict(head), head))
    aligned = variant_aligned(log, [pair])
    _, head = measurements(aligned)
    assert head[NEW].n == 4 and head[B].n == 4  # round 3 lost B (its partner did not run)
    assert head[A].n == 5
    other = BaselinePair("path", "assembled", "handwritten", benchmarks="^other$")
    _, untouched = measurements(variant_aligned(log, [other]))
    assert untouched[B].n == 5


def test_units_come_from_benchmarks_json() -> None:
    """The sample file stores seconds only; the report shows each benchmark's own unit
    (a throughput of 1e4 env-steps/s is not '1e+04 s')."""
    from perfgate.model import Measurement

    data = {
        "version": 2,
        "c.track_env_steps_per_s": {"unit": "env-steps/s", "params": []},
        "h.time_compute": {"unit": "seconds", "params": []},
        "t.track_best_threads": {"params": []},
    }
    units = benchmark_units(parse_benchmarks(data))
    assert units == {
        "c.track_env_steps_per_s": "env-steps/s",
        "h.time_compute": "seconds",
        "t.track_best_threads": "seconds",
    }
    k = CaseKey("c.track_env_steps_per_s")
    base, head = with_units(({k: Measurement(k, (1e4,))}, {}), units)
    assert base[k].unit == "env-steps/s" and head == {}


def test_variant_rows_ignore_what_happened_on_the_base_commit() -> None:
    """Variant and baseline identical at head, round by round, with a drift across rounds;
    the base commit failed the variant in rounds 0-2 and the baseline in rounds 7-9. The
    variant rows use head data only: ratio exactly 1, paired, UNCHANGED (dropping the
    base-failed rounds paired round i with round j and read the drift as a regression)."""
    from perfgate.pipeline.compare.runs import compare_variants

    pair = BaselinePair("path", "assembled", "handwritten")
    config = GateConfig(baselines=(pair,), min_samples=6)
    log = RoundLog("main")
    for i in range(10):
        same = tuple(1e-3 * 1.03**i * (1 + 0.001 * k) for k in range(5))
        base = {NEW: None if i < 3 else same, B: None if i > 6 else same}
        log.rounds.append(Round(i, "main", round_order(i), base, {NEW: same, B: same}))
    head = head_measurements(variant_aligned(log, [pair]))
    assert head[NEW].rounds == head[B].rounds and head[NEW].n == 10
    (variant,) = compare_variants(head, config)
    assert variant.row.ratio == 1.0 and variant.row.verdict is CaseVerdict.UNCHANGED


def test_a_head_failure_in_a_round_base_skipped_still_fails_head() -> None:
    """Round 3: base skipped the case, head crashed on it. The other rounds pair, but the
    crash is a failure at head (it blocks), not a round that never happened."""
    log = RoundLog("main")
    for i in range(8):
        base = {} if i == 3 else {A: (1.0,)}
        head = {A: None if i == 3 else (1.0,)}
        log.rounds.append(Round(i, "main", round_order(i), base, head))
    base_m, head_m = measurements(log)
    assert head_m[A].failed and not base_m[A].failed
