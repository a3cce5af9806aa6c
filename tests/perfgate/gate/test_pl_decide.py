"""perfgate.gate.decide: the overall verdict, its precedence and fail-closed rules."""

from __future__ import annotations

import pytest

from perfgate.config import BaselinePair, GateConfig
from perfgate.gate.decide import decide
from perfgate.model import (
    CaseComparison,
    CaseKey,
    EnvironmentCheck,
    ParityResult,
    ParityStatus,
    RunCause,
    VariantComparison,
)
from perfgate.verdict import CaseVerdict, GateVerdict

CFG = GateConfig()
#: A blocking case measured on both sides, so that the gate has compared something.
MEASURED = CaseComparison(CaseKey("b.y", ()), CaseVerdict.UNCHANGED, 0.05, True)


def row(verdict: CaseVerdict, blocking: bool = True, **kw: object) -> CaseComparison:
    base = (
        {"ratio": 1.3, "ci_low": 1.2, "ci_high": 1.4} if verdict is CaseVerdict.REGRESSED else {}
    )
    return CaseComparison(CaseKey("b.x", (("n", "8"),)), verdict, 0.05, blocking, **{**base, **kw})  # type: ignore[arg-type]


def test_exit_codes_are_documented_values() -> None:
    """PASS 0, REGRESSION 1, PARITY_FAILURE 2, ERROR 3."""
    assert [v.exit_code for v in GateVerdict] == [0, 1, 2, 3]


def test_pass_and_regression() -> None:
    """Unchanged rows pass; a blocking regression blocks and names the case."""
    assert decide([row(CaseVerdict.UNCHANGED)], [], CFG).verdict is GateVerdict.PASS
    d = decide([row(CaseVerdict.REGRESSED), row(CaseVerdict.IMPROVED)], [], CFG)
    assert d.verdict is GateVerdict.REGRESSION and d.exit_code == 1
    assert "b.x(n=8)" in d.reasons[0] and "1.300" in d.reasons[0]


def test_non_blocking_families_only_report() -> None:
    """A regression in a family that cannot block does not change the verdict."""
    rows = [row(CaseVerdict.REGRESSED, blocking=False), MEASURED]
    assert decide(rows, [], CFG).verdict is GateVerdict.PASS


@pytest.mark.parametrize(
    ("verdict", "side", "expected"),
    [
        (CaseVerdict.FAILED, "head", GateVerdict.REGRESSION),
        (CaseVerdict.FAILED, "both", GateVerdict.REGRESSION),
        (CaseVerdict.FAILED, "base", GateVerdict.PASS),
        (CaseVerdict.INVALID, None, GateVerdict.ERROR),
        (CaseVerdict.INCONCLUSIVE, None, GateVerdict.ERROR),
        (CaseVerdict.NEW, None, GateVerdict.PASS),
        (CaseVerdict.REMOVED, None, GateVerdict.REGRESSION),
    ],
)
def test_row_states(verdict: CaseVerdict, side: str | None, expected: GateVerdict) -> None:
    """Failures at head and blocking cases missing at head block; invalid and inconclusive
    blocking rows are errors (next to a case measured on both sides)."""
    rows = [row(verdict, failed_side=side, note="x"), MEASURED]
    assert decide(rows, [], CFG).verdict is expected


@pytest.mark.parametrize(
    "rows",
    [
        [row(CaseVerdict.NEW, note="x")],
        [row(CaseVerdict.FAILED, failed_side="base", note="x")],
        [row(CaseVerdict.UNCHANGED, blocking=False)],
        [row(CaseVerdict.NEW, note="x"), row(CaseVerdict.IMPROVED, blocking=False)],
    ],
)
def test_nothing_compared_is_an_error(rows: list[CaseComparison]) -> None:
    """Only new cases, only base failures or only non-blocking cases: nothing the gate
    guards was measured on both sides, so it cannot pass (it says what it saw)."""
    d = decide(rows, [], CFG)
    assert d.verdict is GateVerdict.ERROR
    assert "no blocking benchmark case has results on both sides" in d.reasons[0]


def test_removed_case_does_not_block_when_failures_do_not() -> None:
    """``failed_blocks = false`` treats a missing blocking case like a failing one."""
    cfg = GateConfig(failed_blocks=False)
    assert decide([row(CaseVerdict.REMOVED, note="x"), MEASURED], [], cfg).verdict is (
        GateVerdict.PASS
    )


def test_inconclusive_policy_block_and_failed_blocks_off() -> None:
    """inconclusive = "block" gives REGRESSION; failed_blocks = false lets a failure pass."""
    cfg = GateConfig(inconclusive="block", failed_blocks=False)
    assert decide([row(CaseVerdict.INCONCLUSIVE)], [], cfg).verdict is GateVerdict.REGRESSION
    failed = row(CaseVerdict.FAILED, failed_side="head")
    assert decide([failed, MEASURED], [], cfg).verdict is GateVerdict.PASS


def test_parity_outcomes() -> None:
    """Parity failure is 2; a parity error or a required-but-missing parity is 3."""
    ok = [row(CaseVerdict.UNCHANGED)]
    failed = ParityResult(ParityStatus.FAILED, "make test-all", "3 failed")
    d = decide(ok, [], CFG, parity=failed)
    assert d.verdict is GateVerdict.PARITY_FAILURE and "make test-all" in d.reasons[0]
    assert decide(ok, [], CFG, parity=ParityResult(ParityStatus.ERROR)).exit_code == 3
    assert decide(ok, [], CFG, parity_required=True).verdict is GateVerdict.ERROR
    passed = ParityResult(ParityStatus.PASSED)
    assert decide(ok, [], CFG, parity=passed, parity_required=True).verdict is GateVerdict.PASS


def test_environment_mismatch_refuses_and_names_keys() -> None:
    """Differing fingerprints are an ERROR naming the keys; ignored keys do not count."""
    env = EnvironmentCheck(
        {"cpu": "a", "smt": "on", "host": "x"}, {"cpu": "a", "smt": "off"}, ("host",)
    )
    assert env.differing_keys == ("smt",)
    d = decide([row(CaseVerdict.UNCHANGED)], [], CFG, environment=env)
    assert d.verdict is GateVerdict.ERROR and "smt" in d.reasons[0]


def test_precedence_keeps_every_reason() -> None:
    """ERROR > PARITY_FAILURE > REGRESSION, most severe reason first, none dropped."""
    d = decide(
        [row(CaseVerdict.REGRESSED)],
        [],
        CFG,
        parity=ParityResult(ParityStatus.FAILED),
        errors=["asv crashed"],
    )
    assert d.verdict is GateVerdict.ERROR
    assert [r.split(":")[0] for r in d.reasons] == ["ERROR", "PARITY_FAILURE", "REGRESSION"]


def test_construction_failure_is_a_parity_failure() -> None:
    """A configuration that fails to construct (upstream's Motion: 'fused execution requires
    env.term_plan') is exit 2, like failing parity, and outranks a regression."""
    d = decide(
        [row(CaseVerdict.REGRESSED)],
        [],
        CFG,
        construction_failures=["motion: ValueError: requires env.term_plan"],
    )
    assert d.verdict is GateVerdict.PARITY_FAILURE and d.exit_code == 2
    assert d.reasons[0].startswith("PARITY_FAILURE: construction failed: motion")


def test_empty_comparison_is_an_error() -> None:
    """An empty comparison never passes."""
    assert decide([], [], CFG).verdict is GateVerdict.ERROR


def test_variant_slower_blocks_only_when_configured() -> None:
    """block_if_slower decides whether a slower variant blocks."""
    pair = BaselinePair("path", "assembled", "handwritten")
    slow = VariantComparison(pair, row(CaseVerdict.REGRESSED))
    d = decide([row(CaseVerdict.UNCHANGED)], [slow], CFG)
    assert d.verdict is GateVerdict.REGRESSION and "assembled vs handwritten" in d.reasons[0]
    relaxed = VariantComparison(pair, row(CaseVerdict.REGRESSED, blocking=False))
    assert decide([row(CaseVerdict.UNCHANGED)], [relaxed], CFG).verdict is GateVerdict.PASS


@pytest.mark.parametrize("side", ["base", "head", "both"])
def test_variant_row_failing_on_either_side_blocks(side: str) -> None:
    """Both sides of a variant row ran at head ("base" is the baseline there): a failing
    baseline leaves nothing to compare the variant with, like a missing one. For head vs
    base, a case failing only on the base commit does not block."""
    pair = BaselinePair("path", "assembled", "handwritten")
    failed = row(CaseVerdict.FAILED, failed_side=side, note=f"failed on {side}")
    d = decide([MEASURED], [VariantComparison(pair, failed)], CFG)
    assert d.verdict is GateVerdict.REGRESSION and f"failed on {side}" in d.reasons[0]
    expected = GateVerdict.PASS if side == "base" else GateVerdict.REGRESSION
    assert decide([MEASURED, failed], [], CFG).verdict is expected


@pytest.mark.parametrize("verdict", [CaseVerdict.NEW, CaseVerdict.REMOVED])
def test_variant_missing_one_side_blocks(verdict: CaseVerdict) -> None:
    """A pull request that drops the variant (or its baseline) cannot pass unmeasured."""
    pair = BaselinePair("path", "assembled", "handwritten")
    gone = VariantComparison(pair, row(verdict, note="no assembled case"))
    d = decide([MEASURED], [gone], CFG)
    assert d.verdict is GateVerdict.REGRESSION and "no assembled case" in d.reasons[0]


def _other(verdict: CaseVerdict, name: str, **kw: object) -> CaseComparison:
    return CaseComparison(CaseKey(name, (("threads", "2"),)), verdict, 0.05, True, **kw)  # type: ignore[arg-type]


def test_stable_regression_outranks_undecided_cases() -> None:
    """Issue 18 item 8: a confirmed regression with another case whose re-run disagreed is
    exit 1, REGRESSION said first, the undecided case listed below it (it used to be exit 3)."""
    undecided = _other(CaseVerdict.INCONCLUSIVE, "b.z", note="flagged slower; re-run disagrees")
    invalid = _other(CaseVerdict.INVALID, "b.w", note="nan")
    d = decide([undecided, row(CaseVerdict.REGRESSED), invalid], [], CFG)
    assert d.verdict is GateVerdict.REGRESSION and d.exit_code == 1
    assert [r.split(":")[0] for r in d.reasons] == ["REGRESSION", "ERROR", "ERROR"]
    assert "b.x(n=8)" in d.reasons[0]
    assert "b.z" in d.reasons[1] and "re-run disagrees" in d.reasons[1]


def test_undecided_cases_without_stable_regression_stay_an_error() -> None:
    """Exit 3 only when nothing stable was found and something could not be decided."""
    undecided = _other(CaseVerdict.INCONCLUSIVE, "b.z", note="re-run disagrees")
    d = decide([undecided, MEASURED], [], CFG)
    assert d.verdict is GateVerdict.ERROR


def test_run_level_error_still_outranks_a_stable_regression() -> None:
    """A refused comparison or a run error puts the evidence itself in doubt: still exit 3."""
    env = EnvironmentCheck({"smt": True}, {"smt": False})
    d = decide([row(CaseVerdict.REGRESSED)], [], CFG, environment=env)
    assert d.verdict is GateVerdict.ERROR and "smt" in d.reasons[0]
    d = decide([row(CaseVerdict.REGRESSED)], [], CFG, errors=["asv crashed"])
    assert d.verdict is GateVerdict.ERROR


def _failing(count: int, blocking: bool = True, side: str = "head") -> list[CaseComparison]:
    return [
        CaseComparison(
            CaseKey(f"b.f{i}", ()), CaseVerdict.FAILED, 0.05, blocking, failed_side=side, note="x"
        )
        for i in range(count)
    ]


def test_every_benchmark_failing_at_head_is_a_regression() -> None:
    """Issue 30 item 4: one case failing at head is exit 1, but when every case failed the
    "nothing compared" error won (exit 3) although the reasons listed 24 failures at head.
    It is exit 1, and the decision says why the whole run blocks (its headline)."""
    d = decide(_failing(24), [], CFG)
    assert d.verdict is GateVerdict.REGRESSION and d.exit_code == 1
    assert d.cause is RunCause.EVERY_CASE_FAILS_AT_HEAD
    assert d.reasons[0] == "REGRESSION: every benchmark fails at head (24 blocking case(s))"
    assert len(d.reasons) == 25 and not any(r.startswith("ERROR") for r in d.reasons)
    both = decide(_failing(3, side="both"), [], CFG)  # failing at base too still fails at head
    assert both.cause is RunCause.EVERY_CASE_FAILS_AT_HEAD
    one = decide([*_failing(1), MEASURED], [], CFG)
    assert (one.verdict, one.cause) == (GateVerdict.REGRESSION, None)


def test_every_blocking_benchmark_failing_at_head_is_a_regression_too() -> None:
    """Only cases of families that never block ran on both sides: the blocking ones all
    failed at head, which is what the headline says (not "every benchmark")."""
    rows = [*_failing(2), row(CaseVerdict.UNCHANGED, blocking=False)]
    d = decide(rows, [], CFG)
    assert (d.verdict, d.cause) == (GateVerdict.REGRESSION, RunCause.EVERY_BLOCKING_CASE_FAILS)
    assert d.reasons[0].startswith("REGRESSION: every blocking benchmark fails at head")


@pytest.mark.parametrize(
    "rows",
    [
        [*_failing(2), _other(CaseVerdict.FAILED, "b.g", failed_side="base", note="x")],
        [*_failing(2), _other(CaseVerdict.NEW, "b.n", note="x")],
        _failing(2, blocking=False),
    ],
)
def test_failing_at_head_with_nothing_else_compared_stays_undecided(
    rows: list[CaseComparison],
) -> None:
    """Not every blocking case failed at head (one failed at base only, one is new) or none
    blocks: nothing was compared, the run cannot be decided (exit 3), no cause is claimed."""
    d = decide(rows, [], CFG)
    assert (d.verdict, d.cause) == (GateVerdict.ERROR, None)
    assert decide(_failing(2), [], GateConfig(failed_blocks=False)).verdict is GateVerdict.ERROR
