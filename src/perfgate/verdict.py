"""Verdict enums: what perfgate decided, per case and overall, before anything is rendered."""

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
    CaseVerdict.INVALID: "✗ invalid",
}


class GateVerdict(Enum):
    """The overall gate decision. The value is the process exit code.

    0 PASS: nothing blocks. 1 REGRESSION: a stable regression (head vs base, or a variant
    slower than its baseline), a benchmark that fails at head or a blocking one missing
    there. 2 PARITY_FAILURE: the parity (correctness) command failed, or a configuration
    failed to construct. 3 ERROR: the gate could not decide (bad input, refused comparison,
    nothing compared, inconclusive or invalid blocking case, missing parity); never a pass.
    """

    PASS = 0
    REGRESSION = 1
    PARITY_FAILURE = 2
    ERROR = 3

    @property
    def exit_code(self) -> int:
        """Process exit code for this verdict."""
        return int(self.value)
