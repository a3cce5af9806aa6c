"""The confirmation rule: does an independent re-run replicate a flagged case?

The re-run *agrees* when it replicates the finding on its own data: its ratio is beyond the
threshold in the same direction, its CI excludes 1 and its q (over the flagged set) is below
alpha. The main run already bounds the effect from below (CI beyond 1 + t); the re-run
guards against a one-off (a burst of load that hit one side), so asking its CI to clear the
threshold as well would only cost power.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from perfgate import stats
from perfgate.case_pairs import CasePair, explained, untestable
from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey, Reason
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.pairs import Tested, cost_order, test_pair


def replicates(
    ratio: float, ci: tuple[float, float], q: float, threshold: float, alpha: float
) -> CaseVerdict | None:
    """The direction a confirmation re-run replicates, or None (see the module docstring)."""
    if q >= alpha:
        return None
    if ratio > 1.0 + threshold and ci[0] > 1.0:
        return CaseVerdict.REGRESSED
    if ratio < 1.0 / (1.0 + threshold) and ci[1] < 1.0:
        return CaseVerdict.IMPROVED
    return None


def confirmation_pending(row: CaseComparison, direction: CaseVerdict, alpha: float) -> bool:
    """True while more re-run rounds could still replicate ``direction`` for ``row``.

    Pending = not replicated yet, and the re-run's CI still reaches an effect of threshold
    size in that direction. Rows without statistics (too few samples) are pending too.
    """
    if row.ratio is None or row.ci_low is None or row.ci_high is None or row.q is None:
        return row.verdict is CaseVerdict.INCONCLUSIVE
    ci = (row.ci_low, row.ci_high)
    if replicates(row.ratio, ci, row.q, row.threshold, alpha) is direction:
        return False
    if direction is CaseVerdict.REGRESSED:
        return row.ci_high > 1.0 + row.threshold
    return row.ci_low < 1.0 / (1.0 + row.threshold)


def _confirmations(
    flagged: Mapping[CaseKey, CaseVerdict],
    rows: Mapping[CaseKey, CaseComparison],
    confirm: Mapping[CaseKey, CasePair],
    config: GateConfig,
) -> dict[CaseKey, bool]:
    """Does the re-run agree with each flagged case? Same rule, BH over the flagged set."""
    tested: dict[CaseKey, Tested] = {}
    for key in flagged:
        pair = confirm.get(key)
        if pair is None or untestable(pair, rows[key], config.min_samples) is not None:
            continue
        tested[key] = test_pair(*cost_order(pair, config), config)
    qs = stats.benjamini_hochberg([t.p for t in tested.values()])
    agree = {key: False for key in flagged}
    for (key, t), q in zip(tested.items(), qs, strict=True):
        interval = (t.ci_low, t.ci_high)
        found = replicates(t.ratio, interval, float(q), rows[key].threshold, config.alpha)
        agree[key] = found is flagged[key]
    return agree


def apply_confirmation(
    rows: dict[CaseKey, CaseComparison],
    flagged: Mapping[CaseKey, CaseVerdict],
    confirm: Mapping[CaseKey, CasePair] | None,
    config: GateConfig,
) -> None:
    """Flagged cases without an agreeing re-run lose their flag.

    An unconfirmed regression becomes INCONCLUSIVE (it may be real); an unconfirmed
    improvement becomes UNCHANGED, since its CI already excludes a regression.
    """
    if not flagged or (confirm is None and not config.confirm):
        return
    agree = (
        {k: False for k in flagged}
        if confirm is None
        else _confirmations(flagged, rows, confirm, config)
    )
    for key, ok in agree.items():
        direction = flagged[key].value
        if ok:
            rows[key] = explained(rows[key], rows[key].verdict, Reason.CONFIRMED)
            continue
        again = confirm.get(key) if confirm is not None else None
        broken = _broken_rerun(again, rows[key], direction) if again is not None else None
        if broken is not None:
            rows[key] = broken
            continue
        why = Reason.NEEDS_CONFIRMATION if confirm is None else Reason.RERUN_DISAGREES
        verdict = CaseVerdict.INCONCLUSIVE
        if flagged[key] is CaseVerdict.IMPROVED:
            verdict = CaseVerdict.UNCHANGED
        rows[key] = explained(rows[key], verdict, why, direction=direction)


def _broken_rerun(again: CasePair, row: CaseComparison, direction: str) -> CaseComparison | None:
    """The row for a re-run that crashed or measured garbage, instead of "it disagrees".

    A crash (or a vanished case) at head is a failure at head, which blocks; non-finite or
    non-positive samples on either side are invalid data, an error, as in the main run.
    Neither may turn a flagged improvement into "unchanged" (a pass).
    """
    if again.head is None or again.head.failed:
        failed = replace(row, failed_side="head")
        return explained(failed, CaseVerdict.FAILED, Reason.RERUN_FAILED, direction=direction)
    for side, m in (("head", again.head), ("base", again.base)):
        if m is not None and not m.failed and not m.valid:
            return explained(
                row, CaseVerdict.INVALID, Reason.RERUN_INVALID, direction=direction, side=side
            )
    return None
