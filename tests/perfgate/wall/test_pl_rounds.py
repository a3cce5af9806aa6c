"""perfgate.wall.rounds: side order, the round log's sample document and measurements."""

from __future__ import annotations

from perfgate.config import BaselinePair, GateConfig
from perfgate.formats.benchmarks_json import benchmark_units, parse_benchmarks
from perfgate.formats.samples import parse_samples, samples_document
from perfgate.model import CaseKey, Round
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.measurements import measurements_from_samples
from perfgate.wall.rounds import (
    RoundLog,
    head_measurements,
    measurements,
    one_round,
    round_order,
    variant_aligned,
    variant_sides,
    with_units,
)

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
    from perfgate.wall.compare.runs import compare_variants

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


def test_measurements_from_the_log_equal_those_of_its_sample_document() -> None:
    """Decisions between rounds read the log in memory; they see exactly the paired data a
    checkpoint's sample document gives (failed rounds, a base-only failure dropped, order)."""
    log = _log()
    log.rounds.append(
        Round(3, "main", round_order(3), {A: None, B: (2.1,)}, {A: (1.4,), B: (2.2,)})
    )
    doc = samples_document(log.rounds, "b" * 40, "h" * 40, {}, "now", False)
    from_doc = measurements_from_samples(parse_samples(doc))
    base, head = measurements(log)
    paired = set(from_doc[0])
    assert paired == {A, B}
    assert {k: base[k] for k in paired} == from_doc[0]
    assert {k: head[k] for k in paired} == from_doc[1]
    assert list(from_doc[0]) == [k for k in base if k in paired]


def test_a_sample_document_gives_back_the_rounds_the_variant_rows_pair() -> None:
    """``perfgate compare --samples`` pairs variant and baseline round by round like the
    gate: the rounds read back from a sample document give the gate's variant sides."""
    pair = BaselinePair("path", "assembled", "handwritten")
    log = RoundLog("main")
    for i in range(4):
        head = {B: (2.0 + i,)} | ({NEW: (1.0 + i,)} if i != 2 else {})
        base = {B: (2.5,), NEW: (1.5,)}
        log.rounds.append(Round(i, "main", round_order(i), base, head))
    log.rounds[2] = Round(2, "main", round_order(2), {B: (2.5,)}, {B: (4.0,)})
    doc = samples_document(log.rounds, "b" * 40, "h" * 40, {}, "now", True)
    read = RoundLog("main", list(parse_samples(doc).rounds))
    assert [r.order for r in read.rounds] == [r.order for r in log.rounds]
    assert variant_sides(read, [pair]) == variant_sides(log, [pair])
    base, head = variant_sides(read, [pair])
    assert head[NEW].n == head[B].n == 3 and base[B].n == 3  # round 2 had no variant


def test_stored_results_are_one_round_of_each_commit() -> None:
    """A stored asv result per commit is one run: one round, a failed case as None."""
    from perfgate.model import Measurement

    base = {A: Measurement(A, (1.0, 1.1)), B: Measurement(B, (), failed=True)}
    head = {A: Measurement(A, (1.2,))}
    log = one_round(base, head)
    assert len(log.rounds) == 1
    assert log.rounds[0].base == {A: (1.0, 1.1), B: None} and log.rounds[0].head == {A: (1.2,)}
    b, h = measurements(log)
    assert b[A].rounds == ((1.0, 1.1),) and h[A].rounds == ((1.2,),)
