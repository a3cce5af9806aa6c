"""Timing summaries agree with numpy's definitions."""

import numpy as np
import pytest

from termplan.bench.timing import parse_int_list, summarize_ms


def test_summary_matches_numpy() -> None:
    """Median, min, mean and sample std equal numpy's; p95 is a nearest-rank sample."""
    rng = np.random.default_rng(0)
    samples = list(rng.lognormal(0.0, 0.3, 101))
    s = summarize_ms(samples)
    assert s["median_ms"] == pytest.approx(np.median(samples))
    assert s["min_ms"] == min(samples)
    assert s["mean_ms"] == pytest.approx(np.mean(samples))
    assert s["std_ms"] == pytest.approx(np.std(samples, ddof=1))
    assert s["p95_ms"] == sorted(samples)[95]


def test_empty_is_an_error() -> None:
    """No samples is refused, never summarised as zero."""
    with pytest.raises(ValueError, match="samples_ms"):
        summarize_ms([])


def test_parse_int_list() -> None:
    """Comma lists parse; junk and non-positive values name the option."""
    assert parse_int_list("2048, 65536", "--num-envs") == [2048, 65536]
    for bad in ("", "a,b", "0", "-3"):
        with pytest.raises(ValueError, match="--num-envs"):
            parse_int_list(bad, "--num-envs")


@pytest.mark.parametrize("n", [1, 11, 20, 30, 70, 100, 101])
def test_p95_is_the_nearest_rank_sample(n: int) -> None:
    """The ceil(0.95 n)-th smallest sample, numpy's inverted-CDF percentile (round() picked
    the 10th of 11 and the 28th of 30)."""
    samples = [float(v) for v in range(1, n + 1)]
    expected = float(np.percentile(samples, 95, method="inverted_cdf"))
    assert summarize_ms(samples[::-1])["p95_ms"] == expected
