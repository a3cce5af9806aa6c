"""Pure statistics for comparing benchmark timings: ratios, CIs, rank tests, FDR, noise floor.

No I/O and no SciPy at runtime (tests use SciPy as the oracle). All randomness comes from a
seeded ``numpy.random.Generator`` so that a report is reproducible bit for bit.

Why a bootstrap CI of the ratio of medians rather than a Hodges-Lehmann CI of the log-ratio:

* The reported effect is the ratio of medians (asv's convention), so the interval should be an
  interval for that same quantity. Hodges-Lehmann estimates the median of pairwise log
  differences, a different location that only equals the log-ratio under a pure shift model.
* Multi-threaded timings are often bimodal between processes (gating-anchors.md (e): the
  process, not the sample, is the unit of replication). A bootstrap can resample the *unit of
  replication*: whole rounds, jointly for base and head when they ran back to back (a paired
  cluster bootstrap), so slow drift that hits both sides of a round cancels instead of becoming
  variance. Hodges-Lehmann treats every sample as independent.
* It needs nothing but medians and a seeded RNG; the percentile interval is range-preserving
  (a ratio CI never goes below zero).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 20260
# Exact rank distributions are cheap up to these sizes (asv uses 20 for Mann-Whitney;
# SciPy's signed-rank test uses 50).
MWU_EXACT_MAX = 20
WILCOXON_EXACT_MAX = 50


@dataclass(frozen=True)
class TestResult:
    """A test statistic and its two-sided p-value; ``method`` is "exact" or "asymptotic"."""

    statistic: float
    pvalue: float
    method: str


def _as_1d(name: str, values: Sequence[float] | FloatArray) -> FloatArray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty 1-d sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains non-finite values")
    return arr


def normal_sf(z: float) -> float:
    """Upper tail of the standard normal distribution, P(Z > z)."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def ratio_of_medians(base: Sequence[float], head: Sequence[float]) -> float:
    """median(head) / median(base): > 1 means head is slower for a time."""
    b = float(np.median(_as_1d("base", base)))
    h = float(np.median(_as_1d("head", head)))
    if b <= 0.0:
        raise ValueError(f"base: median must be positive for a ratio, got {b}")
    return h / b


# --------------------------------------------------------------------------------------------
# Bootstrap confidence intervals of the ratio of medians
# --------------------------------------------------------------------------------------------


def _percentile_ci(ratios: FloatArray, confidence: float) -> tuple[float, float]:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence: expected a value in (0, 1), got {confidence}")
    tail = 50.0 * (1.0 - confidence)
    low, high = np.percentile(ratios, [tail, 100.0 - tail])
    return float(low), float(high)


def bootstrap_ratio_ci(
    base: Sequence[float],
    head: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap CI of median(head)/median(base), resampling each side independently.

    Use this when base and head samples are not paired (separate asv runs).
    """
    b = _as_1d("base", base)
    h = _as_1d("head", head)
    rng = np.random.default_rng(seed)
    b_med = np.median(b[rng.integers(0, b.size, (resamples, b.size))], axis=1)
    h_med = np.median(h[rng.integers(0, h.size, (resamples, h.size))], axis=1)
    if np.any(b_med <= 0.0):
        raise ValueError("base: samples must be positive for a ratio")
    return _percentile_ci(h_med / b_med, confidence)


def _rounds_matrix(name: str, rounds: Sequence[Sequence[float]]) -> FloatArray:
    """Rounds of possibly unequal length as a NaN-padded (rounds, max_len) matrix."""
    arrays = [_as_1d(f"{name} round {i}", r) for i, r in enumerate(rounds)]
    if not arrays:
        raise ValueError(f"{name}: expected at least one round")
    width = max(a.size for a in arrays)
    out = np.full((len(arrays), width), np.nan)
    for i, a in enumerate(arrays):
        out[i, : a.size] = a
    return out


def paired_bootstrap_ratio_ci(
    base_rounds: Sequence[Sequence[float]],
    head_rounds: Sequence[Sequence[float]],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float]:
    """Paired cluster bootstrap CI of median(head)/median(base).

    Whole rounds are resampled, with the same round indices for base and head: round *i* of
    both sides ran back to back, so what drifts between rounds moves both sides together.
    """
    if len(base_rounds) != len(head_rounds):
        raise ValueError(
            f"paired rounds: base has {len(base_rounds)} rounds, head has {len(head_rounds)}"
        )
    b = _rounds_matrix("base", base_rounds)
    h = _rounds_matrix("head", head_rounds)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, b.shape[0], (resamples, b.shape[0]))
    b_med = np.nanmedian(b[idx].reshape(resamples, -1), axis=1)
    h_med = np.nanmedian(h[idx].reshape(resamples, -1), axis=1)
    if np.any(b_med <= 0.0):
        raise ValueError("base: samples must be positive for a ratio")
    return _percentile_ci(h_med / b_med, confidence)


# --------------------------------------------------------------------------------------------
# Rank tests
# --------------------------------------------------------------------------------------------


def _average_ranks(values: FloatArray) -> tuple[FloatArray, FloatArray]:
    """1-based ranks with ties averaged, and the sizes of the tie groups."""
    order = np.argsort(values, kind="mergesort")
    sorted_vals = values[order]
    boundaries = np.flatnonzero(np.diff(sorted_vals) != 0) + 1
    starts = np.concatenate(([0], boundaries))
    ends = np.concatenate((boundaries, [values.size]))
    ranks = np.empty(values.size)
    for start, end in zip(starts, ends, strict=True):
        ranks[order[start:end]] = 0.5 * (start + 1 + end)
    return ranks, (ends - starts).astype(np.float64)


def _mwu_counts(n: int, m: int) -> FloatArray:
    """Number of orderings of n x's and m y's (no ties) giving each U_x = 0..n*m."""
    prev = [np.ones(1) for _ in range(m + 1)]
    for i in range(1, n + 1):
        cur = [np.ones(1)]
        for j in range(1, m + 1):
            out = np.zeros(i * j + 1)
            shifted = prev[j]  # largest value is an x: it beats all j y's
            out[j : j + shifted.size] += shifted
            out[: cur[j - 1].size] += cur[j - 1]  # largest value is a y
            cur.append(out)
        prev = cur
    return prev[m]


def mann_whitney_u(x: Sequence[float], y: Sequence[float], method: str = "auto") -> TestResult:
    """Two-sided Mann-Whitney U test; statistic is U for *x* (as SciPy reports it).

    ``method="exact"`` uses the exact null distribution (valid without ties);
    ``"asymptotic"`` the normal approximation with tie correction and continuity correction;
    ``"auto"`` is exact when there are no ties and both samples have at most 20 values.
    """
    a = _as_1d("x", x)
    b = _as_1d("y", y)
    n, m = a.size, b.size
    ranks, ties = _average_ranks(np.concatenate((a, b)))
    u1 = float(ranks[:n].sum() - n * (n + 1) / 2.0)
    u_big = max(u1, n * m - u1)
    has_ties = bool(np.any(ties > 1))
    if method == "auto":
        method = "exact" if not has_ties and max(n, m) <= MWU_EXACT_MAX else "asymptotic"
    if method == "exact":
        counts = _mwu_counts(n, m)
        upper = counts[int(round(u_big)) :].sum() / counts.sum()
        return TestResult(u1, float(min(1.0, 2.0 * upper)), "exact")
    if method != "asymptotic":
        raise ValueError(f"method: expected 'auto', 'exact' or 'asymptotic', got {method!r}")
    total = n + m
    tie_term = float(np.sum(ties**3 - ties)) / (total * (total - 1))
    sigma = math.sqrt(n * m / 12.0 * ((total + 1) - tie_term))
    if sigma == 0.0:
        return TestResult(u1, 1.0, "asymptotic")  # every value tied: no evidence
    z = (u_big - n * m / 2.0 - 0.5) / sigma
    return TestResult(u1, float(min(1.0, max(0.0, 2.0 * normal_sf(z)))), "asymptotic")


def _signed_rank_counts(n: int) -> FloatArray:
    """Number of sign assignments of ranks 1..n giving each positive-rank sum 0..n(n+1)/2."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[:-k].copy()
    return counts


def wilcoxon_signed_rank(differences: Sequence[float], method: str = "auto") -> TestResult:
    """Two-sided Wilcoxon signed-rank test on paired differences (e.g. per-round log-ratios).

    Zero differences are dropped ("wilcox" zero method, SciPy's default). The statistic is
    min(R+, R-). ``"auto"`` is exact for at most 50 non-zero differences without ties, else the
    normal approximation with tie correction (no continuity correction, as SciPy's default).
    With no non-zero difference there is no evidence of a change and the p-value is 1.
    """
    d = _as_1d("differences", differences)
    d = d[d != 0.0]
    n = d.size
    if n == 0:
        return TestResult(0.0, 1.0, "exact")
    ranks, ties = _average_ranks(np.abs(d))
    r_plus = float(ranks[d > 0].sum())
    stat = min(r_plus, n * (n + 1) / 2.0 - r_plus)
    has_ties = bool(np.any(ties > 1))
    if method == "auto":
        method = "exact" if not has_ties and n <= WILCOXON_EXACT_MAX else "asymptotic"
    if method == "exact":
        counts = _signed_rank_counts(n)
        lower = counts[: int(math.floor(stat)) + 1].sum() / counts.sum()
        return TestResult(stat, float(min(1.0, 2.0 * lower)), "exact")
    if method != "asymptotic":
        raise ValueError(f"method: expected 'auto', 'exact' or 'asymptotic', got {method!r}")
    mean = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0 - float(np.sum(ties**3 - ties)) / 48.0
    if var <= 0.0:
        return TestResult(stat, 1.0, "asymptotic")
    z = (stat - mean) / math.sqrt(var)
    return TestResult(stat, float(min(1.0, 2.0 * normal_sf(abs(z)))), "asymptotic")


# --------------------------------------------------------------------------------------------
# Multiple comparisons and noise
# --------------------------------------------------------------------------------------------


def benjamini_hochberg(pvalues: Sequence[float]) -> FloatArray:
    """Benjamini-Hochberg adjusted p-values (q-values), in the input order.

    q_(i) = min over j >= i of p_(j) * m / j, capped at 1: a case with q < alpha is a discovery
    at false discovery rate alpha across all cases tested together.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"pvalues: expected a 1-d sequence, got shape {p.shape}")
    if p.size == 0:
        return p.copy()
    if not np.all(np.isfinite(p)) or np.any(p < 0.0) or np.any(p > 1.0):
        raise ValueError("pvalues: every p-value must be a finite number in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="mergesort")
    scaled = p[order] * m / np.arange(1, m + 1)
    q_sorted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out = np.empty(m)
    out[order] = q_sorted
    return out


def noise_floor(aa_ratios: Sequence[float], quantile: float = 0.95) -> float:
    """Relative noise floor of one case from A/A ratios (the same code measured twice).

    Returns exp(Q) - 1 where Q is the *quantile* of |ln ratio| over the A/A pairs: the relative
    change that A/A noise alone exceeds only (1 - quantile) of the time. With fewer than
    1 / (1 - quantile) pairs the quantile cannot be resolved and the maximum is used instead,
    which errs on the high (less alarming) side.
    """
    r = _as_1d("aa_ratios", aa_ratios)
    if np.any(r <= 0.0):
        raise ValueError("aa_ratios: ratios must be positive")
    if not 0.0 < quantile < 1.0:
        raise ValueError(f"quantile: expected a value in (0, 1), got {quantile}")
    dev = np.abs(np.log(r))
    if r.size < 1.0 / (1.0 - quantile):
        return float(math.expm1(float(dev.max())))
    return float(math.expm1(float(np.quantile(dev, quantile))))


def parallel_efficiency(t_one: float, t_p: float, threads: int) -> float:
    """Parallel efficiency T1 / (p * Tp): 1.0 is perfect scaling."""
    if t_one <= 0 or t_p <= 0 or threads < 1:
        raise ValueError(f"efficiency needs positive times and threads, got {t_one, t_p, threads}")
    return t_one / (threads * t_p)
