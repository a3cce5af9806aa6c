"""perfgate.stats checked against SciPy (the oracle) and known values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from perfgate import stats


@pytest.mark.parametrize(("n", "m"), [(3, 4), (5, 5), (8, 7), (12, 20), (20, 20), (25, 30)])
@pytest.mark.parametrize("method", ["exact", "asymptotic"])
def test_mann_whitney_matches_scipy(n: int, m: int, method: str) -> None:
    """Statistic and two-sided p-value equal SciPy's for both methods."""
    rng = np.random.default_rng(n * 100 + m)
    x, y = rng.normal(size=n), rng.normal(0.6, size=m)
    ours = stats.mann_whitney_u(x, y, method)
    ref = scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=method)
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)


def test_mann_whitney_ties_use_tie_correction() -> None:
    """With ties, auto falls back to the tie-corrected normal approximation, as SciPy."""
    rng = np.random.default_rng(7)
    x, y = np.round(rng.normal(size=15), 1), np.round(rng.normal(0.4, size=12), 1)
    ours = stats.mann_whitney_u(x, y)
    ref = scipy.stats.mannwhitneyu(x, y, method="asymptotic")
    assert ours.method == "asymptotic"
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_mann_whitney_exact_distribution_is_complete() -> None:
    """The exact null counts cover all C(n+m, n) orderings and are symmetric."""
    counts = stats._mwu_counts(6, 9)
    assert counts.sum() == math.comb(15, 6)
    np.testing.assert_array_equal(counts, counts[::-1])


def test_mann_whitney_all_tied_has_no_evidence() -> None:
    """Identical samples give p = 1 instead of a division by zero."""
    assert stats.mann_whitney_u([1.0] * 30, [1.0] * 30).pvalue == 1.0


@pytest.mark.parametrize("n", [5, 10, 30, 60])
@pytest.mark.parametrize(
    ("method", "scipy_method"), [("exact", "exact"), ("asymptotic", "approx")]
)
def test_wilcoxon_matches_scipy(n: int, method: str, scipy_method: str) -> None:
    """Signed-rank statistic min(R+, R-) and p equal SciPy's."""
    d = np.random.default_rng(n).normal(0.3, size=n)
    ours = stats.wilcoxon_signed_rank(d, method)
    ref = scipy.stats.wilcoxon(d, method=scipy_method)
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_wilcoxon_ties_and_zeros() -> None:
    """Zeros are dropped (SciPy's "wilcox" method) and ties are corrected."""
    d = np.round(np.random.default_rng(3).normal(0.2, 1.0, size=25), 1)
    d[:3] = 0.0
    ours = stats.wilcoxon_signed_rank(d)
    ref = scipy.stats.wilcoxon(d, zero_method="wilcox", method="approx")
    assert ours.method == "asymptotic"
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert stats.wilcoxon_signed_rank([0.0, 0.0]).pvalue == 1.0


def test_wilcoxon_known_value() -> None:
    """Five positive differences: exact two-sided p = 2 / 2**5."""
    assert stats.wilcoxon_signed_rank([0.1, 0.2, 0.3, 0.4, 0.5]).pvalue == pytest.approx(1 / 16)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_benjamini_hochberg_matches_scipy(seed: int) -> None:
    """q-values equal scipy.stats.false_discovery_control(method='bh'), ties included."""
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(size=40) ** 3, [0.01, 0.01, 1.0, 0.0]])
    np.testing.assert_allclose(
        stats.benjamini_hochberg(p), scipy.stats.false_discovery_control(p), rtol=1e-12
    )


def test_benjamini_hochberg_known_and_bad_values() -> None:
    """Known small example; empty input; out-of-range p raises ValueError."""
    np.testing.assert_allclose(stats.benjamini_hochberg([0.01, 0.04, 0.03]), [0.03, 0.04, 0.04])
    assert stats.benjamini_hochberg([]).size == 0
    with pytest.raises(ValueError, match="pvalues"):
        stats.benjamini_hochberg([0.5, 1.5])
    with pytest.raises(ValueError, match="pvalues"):
        stats.benjamini_hochberg([math.nan])


def test_ratio_of_medians_known() -> None:
    """head/base medians; non-finite input is rejected."""
    assert stats.ratio_of_medians([1.0, 2.0, 3.0], [2.0, 4.0, 6.0, 100.0, 5.0]) == 2.5
    with pytest.raises(ValueError, match="non-finite"):
        stats.ratio_of_medians([1.0, math.inf], [1.0])


def test_bootstrap_ci_coverage() -> None:
    """The 95% CI covers the true ratio of medians about 95% of the time (fixed seeds)."""
    rng = np.random.default_rng(2026)
    true_ratio, covered, trials = 1.1, 0, 200
    for i in range(trials):
        base = np.exp(rng.normal(0.0, 0.05, 25))  # lognormal: median exactly 1
        head = true_ratio * np.exp(rng.normal(0.0, 0.05, 25))
        low, high = stats.bootstrap_ratio_ci(base, head, resamples=1000, seed=i)
        covered += low <= true_ratio <= high
    assert 0.88 <= covered / trials <= 0.99


def test_bootstrap_ci_is_deterministic_and_ordered() -> None:
    """Same seed, same interval; the point estimate lies inside."""
    rng = np.random.default_rng(5)
    base, head = rng.uniform(1, 2, 20), rng.uniform(1.5, 2.5, 20)
    ci1 = stats.bootstrap_ratio_ci(base, head, seed=9)
    assert ci1 == stats.bootstrap_ratio_ci(base, head, seed=9)
    assert ci1[0] <= stats.ratio_of_medians(base, head) <= ci1[1]


def test_paired_bootstrap_cancels_shared_drift() -> None:
    """Drift shared by both sides of a round widens the unpaired CI, not the paired one."""
    rng = np.random.default_rng(11)
    drift = np.exp(rng.normal(0.0, 0.15, 12))  # per-round machine state
    base = [list(d * np.exp(rng.normal(0, 0.01, 5))) for d in drift]
    head = [list(1.05 * d * np.exp(rng.normal(0, 0.01, 5))) for d in drift]
    paired = stats.paired_bootstrap_ratio_ci(base, head)
    flat_b = [s for r in base for s in r]
    flat_h = [s for r in head for s in r]
    unpaired = stats.bootstrap_ratio_ci(flat_b, flat_h)
    assert paired[1] - paired[0] < 0.5 * (unpaired[1] - unpaired[0])
    assert paired[0] <= 1.05 <= paired[1]
    with pytest.raises(ValueError, match="paired rounds"):
        stats.paired_bootstrap_ratio_ci(base, head[:-1])


def test_noise_floor_and_efficiency_known_values() -> None:
    """Noise floor from A/A ratios (max below 20 pairs), and parallel efficiency."""
    assert stats.noise_floor([1.02, 0.97, 1.01]) == pytest.approx(1 / 0.97 - 1)
    ratios = np.exp(np.linspace(-0.1, 0.1, 41))
    expected = math.expm1(float(np.quantile(np.abs(np.log(ratios)), 0.95)))
    assert stats.noise_floor(ratios) == pytest.approx(expected)
    assert stats.parallel_efficiency(8.0, 1.0, 32) == 0.25
    with pytest.raises(ValueError):
        stats.noise_floor([1.0, -1.0])
