"""Change points of a short history, from the samples stored inside each measured commit.

A history of a few measured commits has too few per-commit values for a rank test between
regimes of commits, but each commit holds its own sample list (asv stores 10-30 timings). Here
every gap between two neighbouring commits is a candidate split, and a split is tested between
the pooled samples of the regimes on either side of it: a two-sided Mann-Whitney U test and the
ratio of the pooled medians beyond the threshold. As for long histories the weakest failing split
is removed first and its neighbours are re-tested against the wider regimes that leaves.

The splits tested in one series are one family: a kept set of k splits out of the n - 1
candidates must pass Benjamini-Hochberg's step-up rule, i.e. every one has p < alpha * k / (n - 1).

Samples of one commit share its build and its run, so pooled samples understate the noise
between commits: the p-value alone would flag a commit-to-commit wobble. The ratio beyond the
case's threshold is what keeps an unchanged history quiet, and a suspicion is only the trigger
for a paired A/B re-measurement of the two commits.

One commit is never a regime of its own between two regimes of at least `SPIKE_NEIGHBOURS`
commits each: if those two agree, it was a spike and both of its splits go; if not, it joins the
nearer one. With fewer commits on either side a lone commit stays a regime, so a step at the
last measured commit, or a regression fixed before the next measured commit, is suspected: with
one commit after it, a lasting change and a spike look the same, and the re-measurement decides.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from perfgate.watch.changes.splits import Split, compare_regimes

# The fewest measured commits on each side for a lone commit between them to count as a spike.
SPIKE_NEIGHBOURS = 2

_Groups = Sequence[npt.NDArray[np.float64]]


def sample_splits(groups: _Groups, min_effect: float, alpha: float) -> list[Split]:
    """The splits of `groups` (one sample array per measured commit, in order) that pass.

    A split passes if its two regimes' pooled samples differ at Benjamini-Hochberg level `alpha`
    over the len(groups) - 1 candidates and |log(ratio of medians)| > `min_effect`.
    """
    family = len(groups) - 1
    remaining = list(range(1, len(groups)))
    tested: dict[tuple[int, int, int], Split] = {}
    while remaining:
        splits = _test_splits(groups, remaining, tested)
        level = alpha * len(splits) / family
        drop = _weakest_failing(splits, level, min_effect)
        if not drop:
            drop = _lone_commit(groups, splits, level, min_effect)
            if not drop:
                return splits
        for cut in drop:
            remaining.remove(cut)
    return []


def _pooled(groups: _Groups, start: int, stop: int) -> npt.NDArray[np.float64]:
    return np.concatenate(list(groups[start:stop]))


def _test_splits(
    groups: _Groups, cuts: list[int], tested: dict[tuple[int, int, int], Split]
) -> list[Split]:
    """Each cut tested between the regimes on either side of it; `tested` memoises the tests."""
    bounds = [0, *cuts, len(groups)]
    splits = []
    for k, cut in enumerate(cuts, start=1):
        key = (bounds[k - 1], cut, bounds[k + 1])
        if key not in tested:
            before, after = _pooled(groups, key[0], cut), _pooled(groups, cut, key[2])
            tested[key] = compare_regimes(before, after, cut, asymptotic=True)
        splits.append(tested[key])
    return splits


def _weakest_failing(splits: list[Split], level: float, min_effect: float) -> list[int]:
    """The cut to remove next: the least significant, else the smallest; none if all pass."""
    weakest = max(splits, key=lambda s: s.p_value)
    if weakest.p_value >= level:
        return [weakest.index]
    smallest = min(splits, key=lambda s: s.effect)
    if smallest.effect <= min_effect:
        return [smallest.index]
    return []


def _lone_commit(
    groups: _Groups, splits: list[Split], level: float, min_effect: float
) -> list[int]:
    """The cuts around the first lone commit between two long enough regimes, or none.

    Both cuts if the regimes around it agree (a spike), else the one to its nearer neighbour.
    """
    bounds = [0, *(s.index for s in splits), len(groups)]
    for k in range(1, len(bounds) - 2):
        start, stop = bounds[k], bounds[k + 1]
        if stop - start != 1:
            continue
        if min(start - bounds[k - 1], bounds[k + 2] - stop) < SPIKE_NEIGHBOURS:
            continue
        before = _pooled(groups, bounds[k - 1], start)
        after = _pooled(groups, stop, bounds[k + 2])
        if not compare_regimes(before, after, stop, asymptotic=True).passes(level, min_effect):
            return [start, stop]
        into_before = splits[k - 1].effect <= splits[k].effect
        return [start] if into_before else [stop]
    return []
