"""Pure comparison: measurements of two sides -> rows with ratio, CI, p, q and a verdict.

Three comparisons share one core (`compare_pairs`):

* head vs base, per case (`compare_runs`);
* variant vs baseline at the head commit, per remaining params (`compare_variants`), from the
  baseline map in `[tool.perfgate]`;
* thread scaling per problem size (`thread_scaling`), informational.

Decision rule for a tested case (time ratio r = head/base, threshold t, FDR level alpha):

* flagged slower when CI low > 1 + t and q < alpha; flagged faster when CI high < 1/(1 + t)
  and q < alpha. A flagged case is REGRESSED/IMPROVED only if the confirmation run agrees or
  confirmation is switched off; otherwise INCONCLUSIVE. The re-run *agrees* when it replicates
  the finding on its own data: its ratio is beyond the threshold in the same direction, its CI
  excludes 1 and its q (over the flagged set) is below alpha. The main run already bounds the
  effect from below (CI beyond 1 + t); the re-run guards against a one-off (a burst of load
  that hit one side), so asking its CI to clear the threshold as well would only cost power.
* UNCHANGED when CI high <= 1 + t (a slowdown beyond the threshold is implausible);
  otherwise INCONCLUSIVE (the data cannot exclude a regression).
* fewer than ``min_samples`` replication units (rounds when paired, else samples) on a side:
  INCONCLUSIVE, never a pass by default.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from perfgate import stats
from perfgate.config import BaselinePair, GateConfig, ScalingConfig
from perfgate.store import CaseKey, CaseState, ResultSet, SampleRun
from perfgate.verdict import CaseVerdict


@dataclass(frozen=True)
class Measurement:
    """Samples of one case on one side. ``rounds`` is set when rounds are paired across sides."""

    key: CaseKey
    samples: tuple[float, ...]
    rounds: tuple[tuple[float, ...], ...] | None = None
    failed: bool = False
    version: str | None = None
    unit: str = "seconds"

    @property
    def n(self) -> int:
        """Replication units: rounds when paired, else samples."""
        return len(self.rounds) if self.rounds is not None else len(self.samples)

    @property
    def valid(self) -> bool:
        """True when every sample is finite and positive (a usable time)."""
        return bool(self.samples) and all(math.isfinite(s) and s > 0 for s in self.samples)

    @property
    def median(self) -> float | None:
        """Median of all samples, or None when there is no usable sample."""
        return float(np.median(self.samples)) if self.valid else None


@dataclass(frozen=True)
class CasePair:
    """What to compare for one row: ``base`` is the reference side (base, or the baseline)."""

    key: CaseKey
    base: Measurement | None
    head: Measurement | None
    noise_floor: float | None = None
    threshold: float | None = None
    check_version: bool = True


@dataclass(frozen=True)
class CaseComparison:
    """One compared case: effect, uncertainty, significance and the verdict."""

    key: CaseKey
    verdict: CaseVerdict
    threshold: float
    blocking: bool
    n_base: int = 0
    n_head: int = 0
    base_median: float | None = None
    head_median: float | None = None
    ratio: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p: float | None = None
    q: float | None = None
    noise_floor: float | None = None
    paired: bool = False
    failed_side: str | None = None
    note: str = ""
    unit: str = "seconds"


def natural_key(key: CaseKey) -> tuple[object, ...]:
    """Sort key: benchmark name, then params with integers compared as numbers (8 < 16)."""
    params = tuple(
        (name, (0, int(value), "") if value.isdigit() else (1, 0, value))
        for name, value in key.params
    )
    return (key.benchmark, params)


# --------------------------------------------------------------------------------------------
# From stored data to measurements
# --------------------------------------------------------------------------------------------


def measurements_from_results(results: ResultSet) -> dict[CaseKey, Measurement]:
    """asv results -> measurements; skipped (NaN) cases are left out, failures kept."""
    out: dict[CaseKey, Measurement] = {}
    for key, case in results.cases.items():
        if case.state is CaseState.SKIPPED:
            continue
        if case.state is CaseState.FAILED:
            out[key] = Measurement(key, (), failed=True, version=case.version, unit=case.unit)
            continue
        samples = case.samples if case.samples else (float(case.value or math.nan),)
        out[key] = Measurement(key, samples, version=case.version, unit=case.unit)
    return out


def _side(key: CaseKey, rounds: Sequence[tuple[float, ...] | None], unit: str) -> Measurement:
    if any(r is None for r in rounds):
        return Measurement(key, (), failed=True, unit=unit)
    kept = tuple(r for r in rounds if r is not None)
    return Measurement(key, tuple(s for r in kept for s in r), rounds=kept, unit=unit)


def measurements_from_samples(
    run: SampleRun,
) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    """A perfgate sample file -> (base, head) measurements with paired rounds.

    A failure at head in any round marks head failed (it blocks). Rounds in which only base
    failed are dropped from both sides, so the pairing holds and the others still compare:
    one flaky base run must not turn a measured regression into "failed on base" (which
    does not block). Base failing in every round is a failed base.
    """
    base, head = {}, {}
    for k, c in run.cases.items():
        base_rounds, head_rounds = c.base_rounds, c.head_rounds
        if all(h is not None for h in head_rounds) and any(b is not None for b in base_rounds):
            kept = [i for i, b in enumerate(base_rounds) if b is not None]
            base_rounds = tuple(base_rounds[i] for i in kept)
            head_rounds = tuple(head_rounds[i] for i in kept)
        base[k] = _side(k, base_rounds, run.unit)
        head[k] = _side(k, head_rounds, run.unit)
    return base, head


def select(
    measurements: Mapping[CaseKey, Measurement], pattern: str | None
) -> dict[CaseKey, Measurement]:
    """Keep the cases whose benchmark name matches *pattern* (``re.search``); None keeps all."""
    if not pattern:
        return dict(measurements)
    regex = re.compile(pattern)
    return {k: m for k, m in measurements.items() if regex.search(k.benchmark)}


# --------------------------------------------------------------------------------------------
# The core: classify, test, adjust, decide
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tested:
    ratio: float
    ci_low: float
    ci_high: float
    p: float
    paired: bool


def _is_paired(a: Measurement, b: Measurement) -> bool:
    return a.rounds is not None and b.rounds is not None and len(a.rounds) == len(b.rounds)


def _cost_order(pair: CasePair, config: GateConfig) -> tuple[Measurement, Measurement]:
    """(base, head), or (head, base) for a higher-is-better benchmark: the tested ratio is
    then base/head, so that for every case a ratio above 1 means head is worse."""
    assert pair.base is not None and pair.head is not None
    if config.is_higher_better(pair.key.benchmark):
        return pair.head, pair.base
    return pair.base, pair.head


def _test(a: Measurement, b: Measurement, config: GateConfig) -> _Tested:
    """Ratio b/a, bootstrap CI and two-sided rank-test p-value."""
    ratio = stats.ratio_of_medians(a.samples, b.samples)
    opts = {"confidence": config.confidence, "resamples": config.resamples, "seed": config.seed}
    if _is_paired(a, b):
        assert a.rounds is not None and b.rounds is not None
        low, high = stats.paired_bootstrap_ratio_ci(a.rounds, b.rounds, **opts)  # type: ignore[arg-type]
        diffs = [
            math.log(float(np.median(rb)) / float(np.median(ra)))
            for ra, rb in zip(a.rounds, b.rounds, strict=True)
        ]
        p = stats.wilcoxon_signed_rank(diffs).pvalue
        return _Tested(ratio, low, high, p, True)
    low, high = stats.bootstrap_ratio_ci(a.samples, b.samples, **opts)  # type: ignore[arg-type]
    p = stats.mann_whitney_u(b.samples, a.samples).pvalue
    return _Tested(ratio, low, high, p, False)


def _untestable(
    pair: CasePair, base_row: CaseComparison, min_samples: int
) -> CaseComparison | None:
    """Rows decided without statistics: NEW, REMOVED, FAILED, INVALID, too few samples."""
    a, b = pair.base, pair.head
    if a is None and b is None:
        return replace(base_row, verdict=CaseVerdict.INVALID, note="no data on either side")
    if a is None and b is not None and b.failed:
        note = "failed or timed out on head (no base result)"
        return replace(base_row, verdict=CaseVerdict.FAILED, failed_side="head", note=note)
    if a is None:
        return replace(base_row, verdict=CaseVerdict.NEW, note="no result on the base side")
    if b is None:
        return replace(base_row, verdict=CaseVerdict.REMOVED, note="no result on the head side")
    if a.failed or b.failed:
        side = "both" if a.failed and b.failed else ("base" if a.failed else "head")
        note = f"failed or timed out on {side}"
        return replace(base_row, verdict=CaseVerdict.FAILED, failed_side=side, note=note)
    if not a.valid or not b.valid:
        note = "non-finite or non-positive samples on " + ("base" if not a.valid else "head")
        return replace(base_row, verdict=CaseVerdict.INVALID, note=note)
    if pair.check_version and a.version and b.version and a.version != b.version:
        note = "benchmark version differs between sides (not comparable)"
        return replace(base_row, verdict=CaseVerdict.INCONCLUSIVE, note=note)
    if a.n < min_samples or b.n < min_samples:
        note = f"too few samples (base {a.n}, head {b.n}; need {min_samples})"
        return replace(base_row, verdict=CaseVerdict.INCONCLUSIVE, note=note)
    return None


def _flag(t: _Tested, q: float, threshold: float, alpha: float) -> CaseVerdict | None:
    if q < alpha and t.ci_low > 1.0 + threshold:
        return CaseVerdict.REGRESSED
    if q < alpha and t.ci_high < 1.0 / (1.0 + threshold):
        return CaseVerdict.IMPROVED
    return None


def _unflagged(t: _Tested, q: float, threshold: float) -> tuple[CaseVerdict, str]:
    if t.ci_high <= 1.0 + threshold:
        return CaseVerdict.UNCHANGED, ""
    if t.ci_low > 1.0 + threshold:
        return CaseVerdict.INCONCLUSIVE, f"CI above the threshold but q = {q:.3g} is not small"
    return CaseVerdict.INCONCLUSIVE, f"CI reaches above 1 + {threshold:.3g}; cannot exclude it"


def _confirmations(
    flagged: Mapping[CaseKey, CaseVerdict],
    rows: Mapping[CaseKey, CaseComparison],
    confirm: Mapping[CaseKey, CasePair],
    config: GateConfig,
) -> dict[CaseKey, bool]:
    """Does the re-run agree with each flagged case? Same rule, BH over the flagged set."""
    tested: dict[CaseKey, _Tested] = {}
    for key in flagged:
        pair = confirm.get(key)
        if pair is None or _untestable(pair, rows[key], config.min_samples) is not None:
            continue
        tested[key] = _test(*_cost_order(pair, config), config)
    qs = stats.benjamini_hochberg([t.p for t in tested.values()])
    agree = {key: False for key in flagged}
    for (key, t), q in zip(tested.items(), qs, strict=True):
        interval = (t.ci_low, t.ci_high)
        found = replicates(t.ratio, interval, float(q), rows[key].threshold, config.alpha)
        agree[key] = found is flagged[key]
    return agree


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
    rows: dict[CaseKey, CaseComparison], tested: Mapping[CaseKey, _Tested], alpha: float
) -> dict[CaseKey, CaseVerdict]:
    """Add BH q-values, set verdicts, and return the flagged cases with their direction."""
    qs = stats.benjamini_hochberg([t.p for t in tested.values()])
    flagged: dict[CaseKey, CaseVerdict] = {}
    for (key, t), q_value in zip(tested.items(), qs, strict=True):
        q = float(q_value)
        row = replace(rows[key], q=q)
        direction = _flag(t, q, row.threshold, alpha)
        if direction is None:
            verdict, note = _unflagged(t, q, row.threshold)
            rows[key] = replace(row, verdict=verdict, note=note)
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
    tested: dict[CaseKey, _Tested] = {}
    for pair in pairs:
        row = _blank_row(pair, config, blocking(pair.key))
        decided = _untestable(pair, row, config.min_samples)
        if decided is not None:
            rows[pair.key] = decided
            continue
        t = _test(*_cost_order(pair, config), config)
        tested[pair.key] = t
        rows[pair.key] = replace(
            row, ratio=t.ratio, ci_low=t.ci_low, ci_high=t.ci_high, p=t.p, paired=t.paired
        )
    flagged = _decide_tested(rows, tested, config.alpha)
    _apply_confirmation(rows, flagged, confirm, config)
    return [_say_direction(rows[p.key], config) for p in pairs]


def _say_direction(row: CaseComparison, config: GateConfig) -> CaseComparison:
    """Mark a higher-is-better row, whose ratio and CI are base/head (see `_cost_order`)."""
    if row.ratio is None or not config.is_higher_better(row.key.benchmark):
        return row
    note = "higher is better: ratio = base/head"
    return replace(row, note=f"{note}; {row.note}" if row.note else note)


def _apply_confirmation(
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
            rows[key] = replace(rows[key], note="confirmed by re-run")
            continue
        again = confirm.get(key) if confirm is not None else None
        broken = _broken_rerun(again, rows[key], direction) if again is not None else None
        if broken is not None:
            rows[key] = broken
            continue
        why = "needs a confirmation run" if confirm is None else "the re-run disagrees"
        verdict = CaseVerdict.INCONCLUSIVE
        if flagged[key] is CaseVerdict.IMPROVED:
            verdict = CaseVerdict.UNCHANGED
        rows[key] = replace(rows[key], verdict=verdict, note=f"flagged {direction}; {why}")


def _broken_rerun(again: CasePair, row: CaseComparison, direction: str) -> CaseComparison | None:
    """The row for a re-run that crashed or measured garbage, instead of "it disagrees".

    A crash (or a vanished case) at head is a failure at head, which blocks; non-finite or
    non-positive samples on either side are invalid data, an error, as in the main run.
    Neither may turn a flagged improvement into "unchanged" (a pass).
    """
    if again.head is None or again.head.failed:
        note = f"flagged {direction}; failed or missing at head in the re-run"
        return replace(row, verdict=CaseVerdict.FAILED, failed_side="head", note=note)
    for side, m in (("head", again.head), ("base", again.base)):
        if m is not None and not m.failed and not m.valid:
            note = (
                f"flagged {direction}; non-finite or non-positive samples on {side} in the re-run"
            )
            return replace(row, verdict=CaseVerdict.INVALID, note=note)
    return None


# --------------------------------------------------------------------------------------------
# Head vs base
# --------------------------------------------------------------------------------------------


def _canonical(floors: Mapping[CaseKey, float]) -> dict[CaseKey, float]:
    """Noise floors keyed by `CaseKey.canonical`, so that param order does not matter."""
    return {k.canonical(): v for k, v in floors.items()}


def _run_pairs(
    base: Mapping[CaseKey, Measurement],
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
    noise_floors: Mapping[CaseKey, float],
) -> list[CasePair]:
    keys = sorted(
        (k for k in set(base) | set(head) if not config.is_compile_time(k.benchmark)),
        key=natural_key,
    )
    return [CasePair(k, base.get(k), head.get(k), noise_floors.get(k.canonical())) for k in keys]


def compare_runs(
    base: Mapping[CaseKey, Measurement],
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
    *,
    noise_floors: Mapping[CaseKey, float] | None = None,
    confirmation: tuple[Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement]]
    | None = None,
) -> list[CaseComparison]:
    """Head vs base for every case (compile-time benchmarks are reported apart)."""
    floors = _canonical(noise_floors or {})
    pairs = _run_pairs(base, head, config, floors)
    confirm = None
    if confirmation is not None:
        confirm = {p.key: p for p in _run_pairs(*confirmation, config, floors)}
    return compare_pairs(
        pairs, config, blocking=lambda k: config.can_block(k.benchmark), confirm=confirm
    )


# --------------------------------------------------------------------------------------------
# Variant vs baseline at one commit
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VariantComparison:
    """Variant vs baseline for one group of remaining params; ratio = variant / baseline time."""

    pair: BaselinePair
    row: CaseComparison
    reference_median: float | None = None
    higher_is_better: bool = False  # medians are throughputs, not times

    @property
    def speedup_variant(self) -> float | None:
        """How many times faster the variant is than the reference path (reference/variant
        for times, variant/reference for throughputs)."""
        return self._speedup(self.row.head_median)

    @property
    def speedup_baseline(self) -> float | None:
        """How many times faster the baseline is than the reference path."""
        return self._speedup(self.row.base_median)

    def _speedup(self, other: float | None) -> float | None:
        reference = self.reference_median
        if reference is None or other is None or other <= 0 or reference <= 0:
            return None
        return other / reference if self.higher_is_better else reference / other


def split_by_param(
    measurements: Mapping[CaseKey, Measurement], param: str, value: str, pattern: str = "."
) -> dict[CaseKey, Measurement]:
    """Cases whose *param* equals *value*, keyed without that param."""
    regex = re.compile(pattern)
    return {
        k.without(param): m
        for k, m in measurements.items()
        if k.param(param) == value and regex.search(k.benchmark)
    }


def _variant_pairs(
    head: Mapping[CaseKey, Measurement],
    pair: BaselinePair,
    config: GateConfig,
    floors: Mapping[CaseKey, float],
) -> list[CasePair]:
    regex = re.compile(pair.benchmarks)
    groups: dict[CaseKey, dict[str, CaseKey]] = {}
    for key in head:
        if config.is_compile_time(key.benchmark) or not regex.search(key.benchmark):
            continue
        value = key.param(pair.param)
        if value in (pair.variant, pair.baseline):
            groups.setdefault(key.without(pair.param), {})[value] = key
    out = []
    for group in sorted(groups, key=natural_key):
        vk = groups[group].get(pair.variant)
        bk = groups[group].get(pair.baseline)
        floor = max(
            floors.get(vk.canonical(), 0.0) if vk else 0.0,
            floors.get(bk.canonical(), 0.0) if bk else 0.0,
        )
        out.append(
            CasePair(
                key=group,
                base=head[bk] if bk else None,
                head=head[vk] if vk else None,
                noise_floor=floor or None,
                threshold=pair.threshold,
                check_version=False,
            )
        )
    return out


def compare_variants(
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
    *,
    noise_floors: Mapping[CaseKey, float] | None = None,
    confirmation_head: Mapping[CaseKey, Measurement] | None = None,
) -> list[VariantComparison]:
    """Variant vs baseline rows for every pair of the baseline map, at one commit."""
    floors = _canonical(noise_floors or {})
    out: list[VariantComparison] = []
    for pair in config.baselines:
        pairs = _variant_pairs(head, pair, config, floors)
        confirm = None
        if confirmation_head is not None:
            conf_pairs = _variant_pairs(confirmation_head, pair, config, floors)
            confirm = {p.key: p for p in conf_pairs}
        rows = compare_pairs(
            pairs, config, blocking=_always(pair.block_if_slower), confirm=confirm
        )
        rows = [replace(r, note=_variant_note(r, pair)) for r in rows]
        reference = (
            split_by_param(head, pair.param, pair.reference, pair.benchmarks)
            if pair.reference
            else {}
        )
        for r in rows:
            ref = reference.get(r.key)
            better = config.is_higher_better(r.key.benchmark)
            out.append(VariantComparison(pair, r, ref.median if ref else None, better))
    return out


def _always(value: bool) -> Callable[[CaseKey], bool]:
    def blocking(_key: CaseKey) -> bool:
        return value

    return blocking


def _variant_note(row: CaseComparison, pair: BaselinePair) -> str:
    if row.verdict is CaseVerdict.NEW:
        return f"no {pair.baseline} case to compare with"
    if row.verdict is CaseVerdict.REMOVED:
        return f"no {pair.variant} case"
    return row.note


# --------------------------------------------------------------------------------------------
# Thread scaling
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScalingPoint:
    """One thread count: median time and parallel efficiency (relative to the fewest threads)."""

    threads: int
    time: float
    efficiency: float


@dataclass(frozen=True)
class ScalingCurve:
    """Times over thread counts for one side."""

    label: str
    points: tuple[ScalingPoint, ...]

    @property
    def best(self) -> ScalingPoint:
        """The fastest thread count (ties -> fewer threads)."""
        return min(self.points, key=lambda p: (p.time, p.threads))

    def at(self, threads: int) -> ScalingPoint | None:
        """The point at *threads*, if measured."""
        return next((p for p in self.points if p.threads == threads), None)


@dataclass(frozen=True)
class ScalingRow:
    """Two sides' scaling curves for one group (e.g. one N); flags a moved optimum or drop."""

    group: CaseKey
    size: str | None
    a: ScalingCurve
    b: ScalingCurve
    compared_at: int
    efficiency_drop: float
    best_shifted: bool
    flagged: bool
    reason: str = ""


def _curve(label: str, times: Mapping[int, float]) -> ScalingCurve:
    """Efficiency is T_min * p_min / (p * T_p), i.e. T1 / (p Tp) when 1 thread was measured."""
    p0 = min(times)
    t0 = times[p0]
    points = tuple(
        ScalingPoint(p, times[p], stats.parallel_efficiency(t0 * p0, times[p], p))
        for p in sorted(times)
    )
    return ScalingCurve(label, points)


def _by_group(
    measurements: Mapping[CaseKey, Measurement],
    thread_param: str,
    higher_is_better: Callable[[str], bool],
) -> dict[CaseKey, dict[int, float]]:
    """Median times per thread count of each group; throughput benchmarks are left out
    (the curves, their best point and efficiency are defined on times)."""
    groups: dict[CaseKey, dict[int, float]] = {}
    for key, m in measurements.items():
        if higher_is_better(key.benchmark):
            continue
        value = key.param(thread_param)
        median = m.median
        if value is None or median is None or m.failed or not value.isdigit() or int(value) < 1:
            continue
        groups.setdefault(key.without(thread_param), {})[int(value)] = median
    return groups


def thread_scaling(
    a: Mapping[CaseKey, Measurement],
    b: Mapping[CaseKey, Measurement],
    scaling: ScalingConfig,
    labels: tuple[str, str] = ("base", "head"),
    higher_is_better: Callable[[str], bool] = lambda _name: False,
) -> list[ScalingRow]:
    """Per group: best thread count and efficiency on each side, compared at the largest
    thread count both sides measured. Flags a moved optimum or an efficiency drop larger than
    ``scaling.max_efficiency_drop`` (absolute, e.g. 0.10 = 10 points). Benchmarks for which
    ``higher_is_better(name)`` holds are not time curves and are skipped."""
    param = scaling.thread_param
    ga, gb = _by_group(a, param, higher_is_better), _by_group(b, param, higher_is_better)
    rows = []
    for group in sorted(set(ga) & set(gb), key=natural_key):
        common = set(ga[group]) & set(gb[group])
        if len(common) < 2:
            continue
        ca = _curve(labels[0], {p: ga[group][p] for p in common})
        cb = _curve(labels[1], {p: gb[group][p] for p in common})
        at = max(common)
        pa, pb = ca.at(at), cb.at(at)
        assert pa is not None and pb is not None
        drop = pa.efficiency - pb.efficiency
        shifted = ca.best.threads != cb.best.threads
        size = group.param(scaling.size_param) if scaling.size_param else None
        reasons = []
        if shifted:
            reasons.append(f"best thread count moved {ca.best.threads} -> {cb.best.threads}")
        if drop > scaling.max_efficiency_drop:
            reasons.append(f"efficiency at {at} threads dropped {100 * drop:.1f} points")
        row = ScalingRow(group, size, ca, cb, at, drop, shifted, bool(reasons), "; ".join(reasons))
        rows.append(row)
    return rows


def scaling_rows(
    base: Mapping[CaseKey, Measurement], head: Mapping[CaseKey, Measurement], config: GateConfig
) -> tuple[list[ScalingRow], list[ScalingRow]]:
    """Thread scaling of head vs base, and of each variant vs its baseline at head."""
    if config.scaling is None:
        return [], []
    better = config.is_higher_better
    runs = thread_scaling(base, head, config.scaling, higher_is_better=better)
    variants: list[ScalingRow] = []
    for pair in config.baselines:
        a = split_by_param(head, pair.param, pair.baseline, pair.benchmarks)
        b = split_by_param(head, pair.param, pair.variant, pair.benchmarks)
        labels = (pair.baseline, pair.variant)
        variants += thread_scaling(a, b, config.scaling, labels, higher_is_better=better)
    return runs, variants


# --------------------------------------------------------------------------------------------
# Compile times
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompileRow:
    """A compile-time benchmark: reported base vs head, never gated."""

    key: CaseKey
    base: float | None
    head: float | None
    unit: str

    @property
    def ratio(self) -> float | None:
        """head / base."""
        if self.base is None or self.head is None or self.base <= 0:
            return None
        return self.head / self.base


def compile_times(
    base: Mapping[CaseKey, Measurement],
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
) -> list[CompileRow]:
    """Rows for the benchmarks matching ``config.compile_time``."""
    keys = sorted(
        (k for k in set(base) | set(head) if config.is_compile_time(k.benchmark)), key=natural_key
    )
    rows = []
    for k in keys:
        mb, mh = base.get(k), head.get(k)
        unit = (mh or mb).unit if (mh or mb) else "seconds"  # type: ignore[union-attr]
        rows.append(CompileRow(k, mb.median if mb else None, mh.median if mh else None, unit))
    return rows
