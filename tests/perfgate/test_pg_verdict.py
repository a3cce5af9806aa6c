"""perfgate.verdict: one table for a verdict's exit code, verdict.json name and commit state."""

from __future__ import annotations

import pytest

from perfgate.verdict import (
    EXIT_ERROR,
    VERDICT_NAMES,
    CommitState,
    GateVerdict,
    state_for,
)


@pytest.mark.parametrize(
    ("verdict", "code", "name", "state"),
    [
        (GateVerdict.PASS, 0, "pass", CommitState.SUCCESS),
        (GateVerdict.REGRESSION, 1, "regression", CommitState.FAILURE),
        (GateVerdict.PARITY_FAILURE, 2, "parity_failure", CommitState.FAILURE),
        (GateVerdict.ERROR, 3, "error", CommitState.ERROR),
    ],
)
def test_each_verdict_has_one_code_name_and_state(
    verdict: GateVerdict, code: int, name: str, state: CommitState
) -> None:
    """Exit code, JSON name and commit state come from the verdict, and back."""
    assert (verdict.exit_code, verdict.json_name, verdict.commit_state) == (code, name, state)
    assert GateVerdict.from_json_name(name) is verdict and VERDICT_NAMES[name] is verdict
    assert state_for(code) is state and state_for(name) is state


def test_an_error_is_exit_3_and_unknown_names_are_refused() -> None:
    """A command that cannot do its job exits with the ERROR verdict's code."""
    assert EXIT_ERROR == 3
    assert GateVerdict.from_json_name("PASS") is None
    with pytest.raises(ValueError, match="verdict"):
        state_for(4)
