"""The straddle rule: enough samples + CI across the threshold is reported, not blocking;
too few samples never passes. Also the config keys the gate added."""

from __future__ import annotations

import pytest

from perfgate.config import GateConfig, parse_config
from perfgate.errors import ConfigError
from perfgate.gate.decide import decide, parity_failure_decision, straddles
from perfgate.model import CaseComparison, CaseKey, ParityResult, ParityStatus
from perfgate.verdict import CaseVerdict, GateVerdict

KEY = CaseKey("hot.t", (("n", "8"),))


def _row(ci: tuple[float, float] | None, n: int = 6) -> CaseComparison:
    lo, hi = ci if ci else (None, None)
    return CaseComparison(
        KEY, CaseVerdict.INCONCLUSIVE, 0.05, True, n_base=n, n_head=n, ci_low=lo, ci_high=hi
    )


def test_straddle_reported_not_blocking() -> None:
    """CI 0.99-1.08 around 1.05 with 6 rounds: PASS with a finding naming the case."""
    d = decide([_row((0.99, 1.08))], [], GateConfig())
    assert d.verdict is GateVerdict.PASS
    assert "straddles" in d.reasons[0] and "hot.t(n=8)" in d.reasons[0]


def test_too_few_samples_never_passes() -> None:
    """Same CI with 3 rounds (< min_samples), or no CI at all: ERROR."""
    assert decide([_row((0.99, 1.08), n=3)], [], GateConfig()).verdict is GateVerdict.ERROR
    assert decide([_row(None)], [], GateConfig()).verdict is GateVerdict.ERROR


def test_ci_wholly_above_is_not_a_straddle() -> None:
    """An unconfirmed flag (CI wholly above the threshold) stays an error by default."""
    assert not straddles(_row((1.08, 1.2)), GateConfig())
    assert decide([_row((1.08, 1.2))], [], GateConfig()).verdict is GateVerdict.ERROR


@pytest.mark.parametrize(("value", "verdict"), [("error", 3), ("block", 1), ("report", 0)])
def test_straddle_setting(value: str, verdict: int) -> None:
    """straddle = error / block / report maps to exit 3 / 1 / 0."""
    cfg = parse_config({"straddle": value})
    assert decide([_row((0.99, 1.08))], [], cfg).exit_code == verdict


def test_new_config_keys_validated() -> None:
    """Quick selection, parity subset, max_rounds and straddle parse; bad values name the key."""
    cfg = parse_config(
        {
            "quick_bench": ["^a\\("],
            "quick_parity_command": ["{python}", "-m", "pytest"],
            "gate_bench": ["^a"],
            "max_rounds": 12,
        }
    )
    assert cfg.quick_bench == ("^a\\(",) and cfg.max_rounds == 12 and cfg.straddle == "report"
    with pytest.raises(ConfigError, match="straddle"):
        parse_config({"straddle": "pass"})
    with pytest.raises(ConfigError, match="max_rounds"):
        parse_config({"max_rounds": 3})
    with pytest.raises(ConfigError, match="quick_bench"):
        parse_config({"quick_bench": ["("]})


def test_parity_failure_decision() -> None:
    """Parity failed before measuring: exit 2; an error running it: exit 3."""
    failed = ParityResult(ParityStatus.FAILED, "make test-all", "failing: t::x")
    assert parity_failure_decision(failed).exit_code == 2
    errored = ParityResult(ParityStatus.ERROR, "make", "no make")
    assert parity_failure_decision(errored).exit_code == 3
    with pytest.raises(ValueError, match="not a failure"):
        parity_failure_decision(ParityResult(ParityStatus.PASSED))
