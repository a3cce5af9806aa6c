"""The decide stage (pure): rows + parity + environment -> one `GateVerdict` and its findings.

Exit codes (`GateVerdict.exit_code`): 0 PASS, 1 REGRESSION, 2 PARITY_FAILURE, 3 ERROR.
When several apply, the most severe wins: ERROR > PARITY_FAILURE > REGRESSION > PASS, and every
reason is kept, with one exception (`headline`): a blocking case that stably regressed makes
the run a REGRESSION even when other cases could not be decided (they stay listed below it).
The policy fails closed: an error, an unknown state, a refused comparison or an empty
comparison is ERROR, never PASS. A run where every blocking case failed at head compared
nothing, yet is decided: a REGRESSION, as one failing case is, with that `RunCause`.
An inconclusive wall-clock case whose sim twin compared both sides is decided by the
simulator's count, and one the two instruments disagree on is an ERROR (`agreement`).
"""

from __future__ import annotations

from collections.abc import Sequence

from perfgate import agreement
from perfgate.config import GateConfig
from perfgate.model import (
    ASV_ENVIRONMENT,
    BROKEN_LABEL,
    CaseComparison,
    EnvironmentCheck,
    Finding,
    GateDecision,
    ParityResult,
    ParityStatus,
    RunCause,
    VariantComparison,
)
from perfgate.twins import SideBySide, side_by_side
from perfgate.verdict import CaseVerdict, GateVerdict

_SEVERITY = tuple(GateVerdict)  # ordered by exit code, which is also severity


def _worst(verdicts: Sequence[GateVerdict]) -> GateVerdict:
    return max(verdicts, key=_SEVERITY.index, default=GateVerdict.PASS)


def _row_finding(
    row: CaseComparison,
    config: GateConfig,
    what: str,
    missing: frozenset[CaseVerdict] = frozenset({CaseVerdict.REMOVED}),
    failed_sides: frozenset[str] = frozenset({"head", "both"}),
) -> tuple[GateVerdict, str] | None:
    """What one blocking row contributes to the decision (None: nothing).

    ``missing`` are the verdicts that mean a blocking case has no result where it must have
    one: REMOVED for head vs base (a pull request that deletes or renames a blocking
    benchmark would otherwise pass unmeasured); NEW and REMOVED for a variant vs its
    baseline (either side of the pair is gone). They block like a failure at head.
    ``failed_sides`` are the sides whose failure blocks: the head for head vs base (a case
    failing on the base commit only does not); either side for a variant row, whose two
    sides both ran at head (a baseline failing there leaves nothing to compare with).
    """
    label = row.key.label()
    v = row.verdict
    if v is CaseVerdict.REGRESSED and row.instrument == "sim":
        text = f"{what} {label}: simulated {row.figure} ratio {row.ratio:.4f} ({row.note})"
        return GateVerdict.REGRESSION, text
    if v is CaseVerdict.REGRESSED and (row.ci_low is None or row.ci_high is None):
        # an instrument that measures once a side (a count): its two figures, no interval
        sides = f"{row.base_median:g} -> {row.head_median:g} {row.unit}"
        return GateVerdict.REGRESSION, f"{what} {label}: ratio {row.ratio:.3f} ({sides})"
    if v is CaseVerdict.REGRESSED:
        ci = f"{row.ci_low:.3f}–{row.ci_high:.3f}"
        return GateVerdict.REGRESSION, f"{what} {label}: ratio {row.ratio:.3f} (CI {ci})"
    if v is CaseVerdict.BROKEN:
        return _BROKEN[config.broken], f"{what} {label}: {row.note}"
    if v is CaseVerdict.FAILED and row.failed_side in failed_sides and config.failed_blocks:
        return GateVerdict.REGRESSION, f"{what} {label}: {row.note}"
    if v in missing and config.failed_blocks:
        return GateVerdict.REGRESSION, f"{what} {label}: {row.note} (a blocking case is missing)"
    if v is CaseVerdict.INVALID:
        return GateVerdict.ERROR, f"{what} {label}: invalid data ({row.note})"
    if v is CaseVerdict.INCONCLUSIVE and straddles(row, config):
        text = f"{what} {label}: CI {row.ci_low:.3f}–{row.ci_high:.3f} straddles 1 + threshold"
        text += f" {1 + row.threshold:.3f} with enough samples: not a stable regression"
        return _STRADDLE[config.straddle], text
    if v is CaseVerdict.INCONCLUSIVE:
        kind = GateVerdict.ERROR if config.inconclusive == "error" else GateVerdict.REGRESSION
        return kind, f"{what} {label}: inconclusive ({row.note})"
    return None


#: The exit a benchmark broken on both sides asks for, by ``broken`` (`GateConfig.broken`).
_BROKEN = {"error": GateVerdict.ERROR, "block": GateVerdict.REGRESSION}

_STRADDLE = {
    "report": GateVerdict.PASS,
    "error": GateVerdict.ERROR,
    "block": GateVerdict.REGRESSION,
}


def straddles(row: CaseComparison, config: GateConfig) -> bool:
    """An inconclusive row with enough samples whose CI contains 1 + threshold.

    Unlike "too few samples" (never a pass), such a case was measured as much as the budget
    allowed and the data neither shows nor excludes a change beyond the threshold; the
    ``straddle`` setting says what it does ("report": listed as a finding, does not block).
    """
    if row.verdict is not CaseVerdict.INCONCLUSIVE or row.ci_low is None or row.ci_high is None:
        return False
    if min(row.n_base, row.n_head) < config.min_samples:
        return False
    return row.ci_low <= 1.0 + row.threshold < row.ci_high


def parity_failure_decision(parity: ParityResult) -> GateDecision:
    """The decision when parity failed before anything was measured (exit 2, or 3 on error)."""
    finding = _parity_finding(parity, required=True)
    if finding is None:
        raise ValueError(f"parity status {parity.status.value!r} is not a failure")
    return GateDecision(finding[0], (Finding(*finding),))


def _parity_finding(parity: ParityResult | None, required: bool) -> tuple[GateVerdict, str] | None:
    if parity is None or parity.status is ParityStatus.NOT_RUN:
        if required:
            return GateVerdict.ERROR, "parity command was not run"
        return None
    if parity.status is ParityStatus.FAILED:
        return (
            GateVerdict.PARITY_FAILURE,
            f"parity failed: {parity.command} {parity.details}".strip(),
        )
    if parity.status is ParityStatus.ERROR:
        return GateVerdict.ERROR, f"parity could not run: {parity.details}".strip()
    return None


#: Verdicts of rows that had results on both sides (whatever the statistics then said).
_COMPARED = frozenset(
    {CaseVerdict.REGRESSED, CaseVerdict.IMPROVED, CaseVerdict.UNCHANGED, CaseVerdict.INCONCLUSIVE}
)
_VARIANT_MISSING = frozenset({CaseVerdict.NEW, CaseVerdict.REMOVED})
_VARIANT_FAILED = frozenset({"base", "head", "both"})


def _nothing_compared(rows: Sequence[CaseComparison]) -> str:
    """Why no blocking case counts as compared (a gate that measured nothing never passes)."""
    if not rows:
        return "no benchmark case was compared"
    counts: dict[str, int] = {}
    for r in rows:
        kind = r.verdict.value if r.blocking else "not blocking"
        counts[kind] = counts.get(kind, 0) + 1
    seen = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
    return f"no blocking benchmark case has results on both sides ({seen})"


def _environment_findings(env: EnvironmentCheck) -> list[tuple[GateVerdict, str]]:
    """The refusals of the environment check: results of two asv environments, and machine
    fingerprints that differ (each names both sides' values)."""
    differing = env.differing_keys
    out = []
    if ASV_ENVIRONMENT in differing:
        base, head = env.base.get(ASV_ENVIRONMENT), env.head.get(ASV_ENVIRONMENT)
        out.append(
            f"comparison refused: base and head results come from different asv environments "
            f"(base {base!r}, head {head!r})"
        )
    machine = [k for k in differing if k != ASV_ENVIRONMENT]
    if machine:
        keys = "; ".join(env.differences(machine))
        out.append(f"comparison refused: machine fingerprints differ in {keys}")
    return [(GateVerdict.ERROR, text) for text in out]


def decide(
    rows: Sequence[CaseComparison],
    variants: Sequence[VariantComparison],
    config: GateConfig,
    *,
    parity: ParityResult | None = None,
    parity_required: bool = False,
    environment: EnvironmentCheck | None = None,
    construction_failures: Sequence[str] = (),
    errors: Sequence[str] = (),
) -> GateDecision:
    """Combine everything into one `GateDecision` (pure; see module docstring for the order)."""
    findings: list[tuple[GateVerdict, str]] = [(GateVerdict.ERROR, e) for e in errors]
    if environment is not None:
        findings += _environment_findings(environment)
    findings += [
        (GateVerdict.PARITY_FAILURE, f"construction failed: {f}") for f in construction_failures
    ]
    parity_finding = _parity_finding(parity, parity_required)
    if parity_finding:
        findings.append(parity_finding)
    case_findings: list[tuple[GateVerdict, str]] = []
    broken: set[int] = set()
    pairs = side_by_side(rows, config)
    left_to_sim = _left_to_sim(pairs)
    for row in rows:
        finding = _row_finding(row, config, "head vs base") if row.blocking else None
        if finding and id(row) in left_to_sim:
            finding = _decided_by_sim(finding, left_to_sim[id(row)])
        if finding:
            case_findings.append(finding)
            if row.verdict is CaseVerdict.BROKEN:
                broken.add(id(finding))
    for v in variants:
        for row in v.rows:
            what = v.pair.label if row is v.row else f"{v.pair.label}, change from base"
            finding = (
                _row_finding(row, config, what, _VARIANT_MISSING, _VARIANT_FAILED)
                if row.blocking
                else None
            )
            if finding:
                case_findings.append(finding)
    # instruments that disagree leave a case undecided (`agreement`): fail closed
    case_findings += agreement.findings((b.wall, b.sim) for b in pairs)
    cause = None
    if not any(r.blocking and r.verdict in _COMPARED for r in rows) and not _only_broken(rows):
        cause = _failing_at_head(rows, config)
        if cause is None:
            findings.append((GateVerdict.ERROR, _nothing_compared(rows)))
        else:
            blocking = sum(r.blocking for r in rows)
            findings.append(
                (GateVerdict.REGRESSION, f"{cause.value} ({blocking} blocking case(s))")
            )
    findings += case_findings
    return headline(findings, case_findings, cause, frozenset(broken))


def _left_to_sim(pairs: Sequence[SideBySide]) -> dict[int, CaseComparison]:
    """id of each inconclusive wall row the simulator decides -> its sim twin
    (`agreement.undecided_by_the_wall_clock`), a blocking one: a twin whose regression
    would not block cannot stand for a wall case that does."""
    return {
        id(p.wall): p.sim
        for p in pairs
        if p.wall is not None
        and p.sim is not None
        and p.sim.blocking
        and agreement.undecided_by_the_wall_clock(p.wall, p.sim)
    }


def _decided_by_sim(
    finding: tuple[GateVerdict, str], sim: CaseComparison
) -> tuple[GateVerdict, str]:
    """An undecided wall row's finding, reported only: its sim twin's count decides the
    case (and blocks through its own row when it regressed)."""
    text = f"{finding[1]}; the wall clock could not see it: decided by the simulator"
    return GateVerdict.PASS, f"{text} ({sim.verdict.value}, {sim.key.label()})"


def _only_broken(rows: Sequence[CaseComparison]) -> bool:
    """Every blocking case is broken on both sides or fails at head, and one is broken:
    nothing was compared, and the broken cases' findings say why (never a pass: each asks
    for the ``broken`` policy's exit), not a generic "nothing compared"."""
    blocking = [r for r in rows if r.blocking]
    return any(r.verdict is CaseVerdict.BROKEN for r in blocking) and all(
        r.verdict is CaseVerdict.BROKEN or _fails_at_head(r) for r in blocking
    )


def _fails_at_head(row: CaseComparison) -> bool:
    return row.verdict is CaseVerdict.FAILED and row.failed_side in ("head", "both")


def _failing_at_head(rows: Sequence[CaseComparison], config: GateConfig) -> RunCause | None:
    """When nothing blocking was compared because every blocking case failed at head (and
    failures block): the cause, said in the headline. Such a run is a regression, as one
    failing case is, not a run that "could not decide"; otherwise None."""
    blocking = [r for r in rows if r.blocking]
    if not (config.failed_blocks and blocking and all(map(_fails_at_head, blocking))):
        return None
    if all(map(_fails_at_head, rows)):
        return RunCause.EVERY_CASE_FAILS_AT_HEAD
    return RunCause.EVERY_BLOCKING_CASE_FAILS


def headline(
    findings: Sequence[tuple[GateVerdict, str]],
    case_findings: Sequence[tuple[GateVerdict, str]],
    cause: RunCause | None = None,
    broken: frozenset[int] = frozenset(),
) -> GateDecision:
    """The verdict and its findings in report order: the headline follows the evidence.

    ``findings`` are all findings in the order they were made; ``case_findings`` are those
    that came from single blocking cases (the rest concern the whole run: errors, a refused
    comparison, parity). The most severe finding wins, except that a case that stably
    regressed (a REGRESSION case finding) outranks cases that could not be decided (ERROR
    case findings): the run is a REGRESSION, said first, and the undecided cases are listed
    below it, so exit 3 is left for runs where nothing stable was found. A run-level ERROR
    (the comparison itself is in doubt) still wins. ``cause`` (a run-wide cause of the
    verdict) is kept when the verdict is the one it explains. ``broken`` are the ids of the
    findings of benchmarks broken on both sides: they are labelled `BROKEN_LABEL`, and when
    they alone give the verdict its cause is `RunCause.BROKEN_ON_BOTH` (never a
    "REGRESSION" headline, whatever exit code the policy gives them).
    """
    regressed = any(f[0] is GateVerdict.REGRESSION for f in case_findings)
    undecided = {id(f) for f in case_findings if regressed and f[0] is GateVerdict.ERROR}
    verdict = _worst([f[0] for f in findings if id(f) not in undecided])
    ordered = sorted(findings, key=lambda f: (f[0] is not verdict, -_SEVERITY.index(f[0])))
    kept = cause if verdict is GateVerdict.REGRESSION else None
    deciding = [f for f in findings if f[0] is verdict and id(f) not in undecided]
    if verdict is not GateVerdict.PASS and deciding and all(id(f) in broken for f in deciding):
        kept = RunCause.BROKEN_ON_BOTH
    labelled = tuple(Finding(*f, BROKEN_LABEL if id(f) in broken else "") for f in ordered)
    return GateDecision(verdict, labelled, kept)
