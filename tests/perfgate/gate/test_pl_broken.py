"""A benchmark broken on both sides (issue 38): its own outcome, named in the headline and
the findings, decided by the ``broken`` policy, never a pass and never a "REGRESSION"."""

from __future__ import annotations

import pytest

from perfgate.config import GateConfig, parse_config
from perfgate.errors import ConfigError
from perfgate.gate.decide import decide
from perfgate.model import CaseComparison, CaseKey, GateDecision, Reason, RunCause
from perfgate.report.render import headline, summary_line
from perfgate.verdict import CaseVerdict, GateVerdict

ERROR_TEXT = "ValueError: x and y coordinate lengths do not match (bench.py, line 6, in time_x)"
BROKEN = CaseComparison(
    CaseKey("b.time_x", ()),
    CaseVerdict.BROKEN,
    0.05,
    True,
    failed_side="both",
    reason=Reason.BROKEN_ON_BOTH,
    note=f"{Reason.BROKEN_ON_BOTH.value}: {ERROR_TEXT}",
)
MEASURED = CaseComparison(CaseKey("b.time_y", ()), CaseVerdict.UNCHANGED, 0.05, True)
REGRESSED = CaseComparison(
    CaseKey("b.time_z", ()), CaseVerdict.REGRESSED, 0.05, True, ratio=1.3, ci_low=1.2, ci_high=1.4
)


def _no_regression_named(d: GateDecision) -> None:
    assert "REGRESSION" not in headline(d) and "REGRESSION" not in summary_line(d)
    assert not any(r.startswith("REGRESSION") for r in d.reasons)


@pytest.mark.parametrize("rows", [[BROKEN, MEASURED], [BROKEN]])
def test_broken_case_is_an_error_by_default_named_as_broken(rows: list[CaseComparison]) -> None:
    """The first A/A gate of issue 38 exited 1 with "REGRESSION: ... failed or timed out on
    both". By default it is exit 3 (the gate cannot judge the case; fail closed), named as
    broken on both sides with asv's error, with or without other cases compared."""
    d = decide(rows, [], GateConfig())
    assert (d.verdict, d.exit_code, d.cause) == (GateVerdict.ERROR, 3, RunCause.BROKEN_ON_BOTH)
    assert d.reasons == (f"BROKEN ON BOTH SIDES: head vs base b.time_x: {BROKEN.note}",)
    assert headline(d) == (
        "BROKEN ON BOTH SIDES: a benchmark fails at base and at head, not a regression of "
        "this change (blocked: the gate cannot judge it)"
    )
    assert ERROR_TEXT in summary_line(d)
    _no_regression_named(d)


def test_policy_block_gives_exit_1_without_a_regression_headline() -> None:
    d = decide([BROKEN, MEASURED], [], GateConfig(broken="block"))
    assert (d.verdict, d.exit_code, d.cause) == (
        GateVerdict.REGRESSION,
        1,
        RunCause.BROKEN_ON_BOTH,
    )
    assert headline(d).startswith("BROKEN ON BOTH SIDES: ") and "broken = " in headline(d)
    _no_regression_named(d)


def test_a_real_regression_beside_a_broken_case_is_the_headline() -> None:
    """A stable regression still decides the run; the broken case is listed as such."""
    for policy in ("error", "block"):
        d = decide([BROKEN, REGRESSED], [], GateConfig(broken=policy))
        assert (d.verdict, d.cause) == (GateVerdict.REGRESSION, None)
        assert headline(d) == "REGRESSION: merge blocked"
        assert any(r.startswith("BROKEN ON BOTH SIDES: head vs base b.time_x") for r in d.reasons)


def test_a_broken_case_is_never_a_pass_even_when_failures_do_not_block() -> None:
    d = decide([BROKEN, MEASURED], [], GateConfig(failed_blocks=False))
    assert d.verdict is GateVerdict.ERROR


def test_a_broken_case_that_cannot_block_is_only_reported() -> None:
    rows = [CaseComparison(**{**BROKEN.__dict__, "blocking": False}), MEASURED]
    assert decide(rows, [], GateConfig()).verdict is GateVerdict.PASS


def test_broken_policy_is_checked() -> None:
    assert parse_config({"broken": "block"}).broken == "block"
    assert parse_config({}).broken == "error"
    with pytest.raises(ConfigError, match=r"tool\.perfgate\.broken"):
        parse_config({"broken": "pass"})
