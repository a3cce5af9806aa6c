"""Which stored results of one case make its points: a bad one costs one point, not a series.

Pure. `perfgate.watch.changes.load` gathers, per case and commit, every stored result of it (the
file, its asv environment, the case's figures); here

* a result whose value or samples are not finite numbers > 0 (a sample of -1, 0 or inf
  written by a broken run) is left out with a warning naming file, commit and case;
* a commit stored in several asv environments (another numba, another Python) is not one
  pool of samples: the results of one environment are kept, the series' own (the one most
  of its commits were stored in; ties by name), and the others are left out with a warning
  naming each file. Re-runs in one environment stay one point, their samples pooled.

Every other point of the series is still watched.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfgate.formats.asv_results import CaseResult


@dataclass(frozen=True)
class StoredCase:
    """One stored result of a case: the file it came from and its asv environment."""

    path: str
    env: str
    case: CaseResult


def bad_figures(case: CaseResult) -> str | None:
    """What makes ``case``'s figures unusable (None: every one a finite number > 0)."""
    figures = case.samples if case.samples else (case.value,)
    bad = [v for v in figures if v is None or not math.isfinite(v) or v <= 0]
    if not bad:
        return None
    kind = "sample(s)" if case.samples else "value"
    return f"{kind} {bad[:3]} not a finite number > 0"


def usable(
    label: str, by_commit: Mapping[str, Sequence[StoredCase]]
) -> tuple[dict[str, list[StoredCase]], list[str]]:
    """The results of ``by_commit`` (commit -> stored results of the case ``label``) that
    make points, and a warning per result left out (see the module docstring)."""
    warnings: list[str] = []
    good: dict[str, list[StoredCase]] = {}
    for commit, stored in by_commit.items():
        for item in stored:
            problem = bad_figures(item.case)
            if problem is None:
                good.setdefault(commit, []).append(item)
            else:
                warnings.append(
                    f"{item.path}: commit {commit[:12]} {label}: {problem}; this point is left "
                    "out, the rest of the series is watched"
                )
    kept = _series_env(good)
    out: dict[str, list[StoredCase]] = {}
    for commit, stored in good.items():
        envs = sorted({s.env for s in stored}, key=lambda e: (e != kept, e))
        out[commit] = [s for s in stored if s.env == envs[0]]
        warnings.extend(
            f"{s.path}: commit {commit[:12]} {label}: also stored in environment {envs[0]}; "
            f"{s.env} is kept apart (left out), never pooled with it"
            for s in stored
            if s.env != envs[0]
        )
    return out, warnings


def _series_env(by_commit: Mapping[str, Sequence[StoredCase]]) -> str | None:
    """The environment most commits of the series were stored in (ties: by name)."""
    counts = Counter(env for stored in by_commit.values() for env in {s.env for s in stored})
    if not counts:
        return None
    return min(counts, key=lambda env: (-counts[env], env))
