"""Verdict enums and the one table of what each gate verdict means outside perfgate.

A `GateVerdict` is the process exit code (its value), the name written to ``verdict.json``
(:attr:`GateVerdict.json_name`) and the GitHub commit state posted for it
(:attr:`GateVerdict.commit_state`). Every reader and writer of those three goes through
this module, so they cannot drift apart.
"""

from __future__ import annotations

from enum import Enum


class CaseVerdict(Enum):
    """The verdict on one compared case (head vs base, or variant vs baseline)."""

    REGRESSED = "regressed"  # stably slower: CI low > 1 + threshold, q < alpha, confirmed
    IMPROVED = "improved"  # stably faster, by the mirrored rule
    UNCHANGED = "unchanged"  # the CI excludes a change beyond the threshold
    INCONCLUSIVE = "inconclusive"  # too few samples, CI spans the threshold, or unconfirmed
    NEW = "new"  # only at head
    REMOVED = "removed"  # only at base
    FAILED = "failed"  # failed or timed out on a side
    BROKEN = "broken"  # head vs base: failed or timed out on both sides (not a regression)
    INVALID = "invalid"  # non-finite or non-positive samples

    @property
    def symbol(self) -> str:
        """A short mark for tables (asv-like)."""
        return _SYMBOLS[self]


_SYMBOLS = {
    CaseVerdict.REGRESSED: "▲ slower",
    CaseVerdict.IMPROVED: "▼ faster",
    CaseVerdict.UNCHANGED: "= same",
    CaseVerdict.INCONCLUSIVE: "? inconclusive",
    CaseVerdict.NEW: "+ new",
    CaseVerdict.REMOVED: "- removed",
    CaseVerdict.FAILED: "! failed",
    CaseVerdict.BROKEN: "⊘ broken on both",
    CaseVerdict.INVALID: "✗ invalid",
}


class CommitState(str, Enum):
    """Commit status states that perfgate sets."""

    SUCCESS = "success"
    FAILURE = "failure"
    ERROR = "error"
    PENDING = "pending"  # set while the gate runs (perf-gate.yml), never for a verdict


class GateVerdict(Enum):
    """The overall gate decision. The value is the process exit code.

    0 PASS: nothing blocks. 1 REGRESSION: a stable regression (head vs base, or a variant
    slower than its baseline), a benchmark that fails at head or a blocking one missing
    there. 2 PARITY_FAILURE: the parity (correctness) command failed, or a configuration
    failed to construct. 3 ERROR: the gate could not decide (bad input, refused comparison,
    nothing compared, inconclusive or invalid blocking case, missing parity); never a pass.
    Every perfgate command that fails to do its job exits with ERROR's code.
    """

    PASS = 0
    REGRESSION = 1
    PARITY_FAILURE = 2
    ERROR = 3

    @property
    def exit_code(self) -> int:
        """Process exit code for this verdict."""
        return int(self.value)

    @property
    def json_name(self) -> str:
        """The name in ``verdict.json`` ("pass", "regression", "parity_failure", "error")."""
        return self.name.lower()

    @property
    def commit_state(self) -> CommitState:
        """The GitHub commit state posted for this verdict."""
        return _COMMIT_STATES[self]

    @classmethod
    def from_json_name(cls, name: str) -> GateVerdict | None:
        """The verdict written as ``name`` in ``verdict.json``, or None for an unknown name."""
        return VERDICT_NAMES.get(name)


_COMMIT_STATES = {
    GateVerdict.PASS: CommitState.SUCCESS,
    GateVerdict.REGRESSION: CommitState.FAILURE,
    GateVerdict.PARITY_FAILURE: CommitState.FAILURE,
    GateVerdict.ERROR: CommitState.ERROR,
}
#: ``verdict.json`` name -> verdict (the contract between ``perfgate gate`` and ``post``).
VERDICT_NAMES = {v.json_name: v for v in GateVerdict}
#: The exit code of a command that could not do its job (the gate's ERROR).
EXIT_ERROR = GateVerdict.ERROR.exit_code
EXIT_OK = GateVerdict.PASS.exit_code


def state_for(verdict: int | str) -> CommitState:
    """Commit state for a gate exit code (0..3), a verdict name or a state name."""
    if isinstance(verdict, int) and not isinstance(verdict, bool):
        for gate_verdict in GateVerdict:
            if gate_verdict.exit_code == verdict:
                return gate_verdict.commit_state
    elif isinstance(verdict, str):
        if verdict in VERDICT_NAMES:
            return VERDICT_NAMES[verdict].commit_state
        if verdict in {s.value for s in CommitState}:
            return CommitState(verdict)
    raise ValueError(
        f"verdict {verdict!r}: expected an exit code 0-3 or one of "
        f"{sorted(VERDICT_NAMES)} / {[s.value for s in CommitState]}"
    )
