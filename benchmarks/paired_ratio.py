"""Variant-vs-baseline time ratios measured in one process, calls alternating.

asv compares commits; "is the assembled kernel as fast as the hand-written one?" is a
question about two paths at the *same* commit. Here both paths run on the same batch, call
after call in alternating order, and the ratio of their median times is tracked, so that
ratio has its own history (and regression detection) on the dashboard. A ratio above 1 means
the variant is slower than its baseline; lower is better, as for times.
"""

from __future__ import annotations

from ._common import NUM_ENVS, PROFILES, TASKS, THREADS, Case, interleaved_medians

#: "variant/baseline" pairs. NumPy always runs at one thread; the Numba side at ``threads``.
PAIRS: tuple[str, ...] = ("assembled/handwritten", "handwritten/numpy", "assembled/numpy")


def split_pair(pair: str) -> tuple[str, str]:
    """``"a/b"`` -> ``("a", "b")``; anything else is a ValueError naming the pair."""
    variant, sep, baseline = pair.partition("/")
    if not sep or not variant or not baseline or "/" in baseline:
        raise ValueError(f"pair: expected 'variant/baseline', got {pair!r}")
    return variant, baseline


class PairedRatio:
    """Median time of the variant over median time of the baseline (same process, same data)."""

    params = (TASKS, PROFILES, PAIRS, NUM_ENVS, THREADS)
    param_names = ("task", "profile", "pair", "num_envs", "threads")
    unit = "ratio"
    timeout = 300.0

    def setup(self, task: str, profile: str, pair: str, num_envs: int, threads: int) -> None:
        """Build both paths on the same batch size (skip if either is missing)."""
        variant, baseline = split_pair(pair)
        first = Case(task, profile, variant, num_envs, 1 if variant == "numpy" else threads)
        base_threads = 1 if baseline == "numpy" else threads
        self.cases = [first, Case(task, profile, baseline, num_envs, base_threads, first.batch)]

    def track_ratio(
        self, task: str, profile: str, pair: str, num_envs: int, threads: int
    ) -> float:
        """Alternate the two paths call by call; return median(variant) / median(baseline)."""
        variant_s, baseline_s = interleaved_medians(self.cases)
        return variant_s / baseline_s
