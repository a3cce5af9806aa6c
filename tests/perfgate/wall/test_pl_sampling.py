"""perfgate.wall.sampling: which cases get more rounds, confirmation, exact selection."""

from __future__ import annotations

import re

from perfgate.config import BaselinePair, GateConfig
from perfgate.formats.benchmarks_json import case_names, parse_benchmarks
from perfgate.model import CaseComparison, CaseKey, Reason
from perfgate.verdict import CaseVerdict
from perfgate.wall import sampling
from perfgate.wall.sampling import selection_regexes, undecided

A = CaseKey("s.t", (("path", "numpy"), ("n", "8")))
B = CaseKey("s.t", (("path", "handwritten"), ("n", "8")))


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


def test_flagged_variant_cases_rerun_slower_and_faster_variants() -> None:
    """Both a slower and a faster blocking variant send its two head cases to confirmation."""
    from perfgate.model import CaseComparison, CaseKey, VariantComparison
    from perfgate.verdict import CaseVerdict
    from perfgate.wall.sampling import flagged_variants, variant_head_cases

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
    from perfgate.config import GateConfig
    from perfgate.model import CaseComparison, CaseKey, VariantComparison
    from perfgate.verdict import CaseVerdict
    from perfgate.wall.sampling import undecided_variant_cases

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


def test_efficiency_flags_rerun_both_time_cases_behind_them() -> None:
    """A parallel efficiency drop flagged in the main phase sends the case at p and the
    group's case at p0 to the confirmation (a row key is never sent to asv as a case)."""
    import numpy as np

    from perfgate.config import ScalingConfig, ThresholdRule
    from perfgate.model import Round
    from perfgate.wall.rounds import RoundLog

    one = CaseKey("h.time_x", (("n", "8"), ("threads", "1")))
    two = CaseKey("h.time_x", (("n", "8"), ("threads", "2")))
    cfg = GateConfig(
        resamples=300,
        thresholds=(ThresholdRule("^h", 0.10),),
        scaling=ScalingConfig(efficiency_threshold=0.05),
    )
    rng = np.random.default_rng(7)
    log = RoundLog("main")
    for i in range(8):
        drift = [float(x) for x in np.exp(rng.normal(0, 0.03, 2))]
        noise = np.exp(rng.normal(0, 0.003, 4))
        base = {one: (1.0 * drift[0] * noise[0],), two: (0.55 * drift[0] * noise[1],)}
        head = {one: (1.0 * drift[1] * noise[2],), two: (0.55 * 1.08 * drift[1] * noise[3],)}
        log.rounds.append(Round(i, "main", ("base", "head"), base, head))
    targets = sampling.confirm_targets(log, cfg, {})
    assert set(targets.cases) == {one, two}
    (flag,) = targets.rows
    assert flag.benchmark == "h.time_x.parallel_efficiency" and flag.param("threads") == "2"


def test_suspects_are_undecided_rows_whose_estimate_is_a_slowdown_most_evident_first() -> None:
    """Blocking INCONCLUSIVE rows with a ratio beyond their threshold, by p; no other row."""
    C = CaseKey("s.t", (("path", "assembled"), ("n", "8")))
    D = CaseKey("s.t", (("path", "assembled"), ("n", "16")))
    rows = [
        CaseComparison(A, CaseVerdict.INCONCLUSIVE, 0.03, True, ratio=1.10, p=0.02),
        CaseComparison(B, CaseVerdict.INCONCLUSIVE, 0.03, True, ratio=1.20, p=0.01),
        CaseComparison(C, CaseVerdict.INCONCLUSIVE, 0.03, True, ratio=1.02, p=0.001),
        CaseComparison(D, CaseVerdict.INCONCLUSIVE, 0.03, False, ratio=1.30, p=0.001),
        CaseComparison(D, CaseVerdict.REGRESSED, 0.03, True, ratio=1.30, p=0.001),
        CaseComparison(D, CaseVerdict.INCONCLUSIVE, 0.03, True),  # too few samples
    ]
    assert sampling.suspects(rows) == [B, A]
