"""The decision rule over one set of pairs (head vs base, or variant vs baseline).

For a tested case (time ratio r = head/base, threshold t, FDR level alpha):

* flagged slower when CI low > 1 + t and q < alpha; flagged faster when CI high < 1/(1 + t)
  and q < alpha. A flagged case is REGRESSED/IMPROVED only if the confirmation run agrees
  (`perfgate.wall.compare.confirm`) or confirmation is switched off; otherwise
  INCONCLUSIVE.
* UNCHANGED when CI high <= 1 + t (a slowdown beyond the threshold is implausible);
  otherwise INCONCLUSIVE (the data cannot exclude a regression).
* fewer than ``min_samples`` replication units (rounds when paired, else samples) on a side:
  INCONCLUSIVE, never a pass by default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from perfgate import stats
from perfgate.case_pairs import CasePair, explained, untestable
from perfgate.config import GateConfig
from perfgate.model import HIGHER_IS_BETTER_NOTE, CaseComparison, CaseKey, Reason
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.confirm import apply_confirmation
from perfgate.wall.compare.pairs import Tested, cost_order, test_pair


def _flag(t: Tested, q: float, threshold: float, alpha: float) -> CaseVerdict | None:
    if q < alpha and t.ci_low > 1.0 + threshold:
        return CaseVerdict.REGRESSED
    if q < alpha and t.ci_high < 1.0 / (1.0 + threshold):
        return CaseVerdict.IMPROVED
    return None


def _unflagged(
    t: Tested, q: float, threshold: float
) -> tuple[CaseVerdict, Reason, dict[str, Any]]:
    if t.ci_high <= 1.0 + threshold:
        return CaseVerdict.UNCHANGED, Reason.NONE, {}
    if t.ci_low > 1.0 + threshold:
        return CaseVerdict.INCONCLUSIVE, Reason.Q_NOT_SMALL, {"q": q}
    return CaseVerdict.INCONCLUSIVE, Reason.CI_REACHES_THRESHOLD, {"threshold": threshold}


def _blank_row(pair: CasePair, config: GateConfig, blocking: bool) -> CaseComparison:
    """The row before any statistics: threshold (never below the noise floor), counts."""
    configured = pair.threshold
    if configured is None:
        configured = config.threshold_for(pair.key.benchmark)
    a, b = pair.base, pair.head
    present = b or a
    return CaseComparison(
        key=pair.key,
        verdict=CaseVerdict.INCONCLUSIVE,
        threshold=max(configured, pair.noise_floor or 0.0),
        blocking=blocking,
        n_base=a.n if a else 0,
        n_head=b.n if b else 0,
        base_median=a.median if a else None,
        head_median=b.median if b else None,
        noise_floor=pair.noise_floor,
        unit=present.unit if present else "seconds",
    )


def _decide_tested(
    rows: dict[CaseKey, CaseComparison],
    tested: Mapping[CaseKey, Tested],
    alpha: float,
    elsewhere: int = 0,
) -> dict[CaseKey, CaseVerdict]:
    """Add BH q-values, set verdicts, and return the flagged cases with their direction.
    ``elsewhere`` tests of other shards count as p = 1 (`GateConfig.elsewhere_tests`)."""
    pvalues = [t.p for t in tested.values()]
    qs = stats.benjamini_hochberg(pvalues + [1.0] * elsewhere)[: len(pvalues)]
    flagged: dict[CaseKey, CaseVerdict] = {}
    for (key, t), q_value in zip(tested.items(), qs, strict=True):
        q = float(q_value)
        row = replace(rows[key], q=q)
        direction = _flag(t, q, row.threshold, alpha)
        if direction is None:
            verdict, reason, fields = _unflagged(t, q, row.threshold)
            rows[key] = explained(row, verdict, reason, **fields)
        else:
            rows[key] = replace(row, verdict=direction)
            flagged[key] = direction
    return flagged


def compare_pairs(
    pairs: Sequence[CasePair],
    config: GateConfig,
    *,
    blocking: Callable[[CaseKey], bool],
    confirm: Mapping[CaseKey, CasePair] | None = None,
) -> list[CaseComparison]:
    """Compare every pair; BH q-values are computed over all tested pairs of this call.

    ``confirm`` holds the same pairs measured again (the confirmation run). When it is None
    and ``config.confirm`` is set, flagged regressions stay INCONCLUSIVE.
    """
    rows: dict[CaseKey, CaseComparison] = {}
    tested: dict[CaseKey, Tested] = {}
    for pair in pairs:
        row = _blank_row(pair, config, blocking(pair.key))
        decided = untestable(pair, row, config.min_samples)
        if decided is not None:
            rows[pair.key] = decided
            continue
        t = test_pair(*cost_order(pair, config), config)
        tested[pair.key] = t
        rows[pair.key] = replace(
            row, ratio=t.ratio, ci_low=t.ci_low, ci_high=t.ci_high, p=t.p, paired=t.paired
        )
    flagged = _decide_tested(rows, tested, config.alpha, config.elsewhere_tests)
    apply_confirmation(rows, flagged, confirm, config)
    return [_say_direction(rows[p.key], config) for p in pairs]


def _say_direction(row: CaseComparison, config: GateConfig) -> CaseComparison:
    """Mark a higher-is-better row, whose ratio and CI are base/head (see `cost_order`)."""
    if row.ratio is None or not config.is_higher_better(row.key.benchmark):
        return row
    note = HIGHER_IS_BETTER_NOTE
    return replace(row, note=f"{note}; {row.note}" if row.note else note)
