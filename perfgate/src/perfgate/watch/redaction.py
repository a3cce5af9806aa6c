"""The watch shows each case under its redacted name, everywhere it shows it.

A benchmark parameter (or an asv machine name) may hold a secret: the watch prints it, files
it in an issue's title and body and commits it to the ``perf-results`` branch in the watch
state. Redacting each output alone would not do: the state is read back and matched to the
series by (benchmark, params, machine), so a redacted state would never match a raw series
again. The series' parameters and machine are redacted once, as they are loaded; the state,
the issues and the output all see that identity, and only the re-measurement of a case
(`perfgate.watch.changes.load.case_selector`) goes back to the raw parameters it must select.
Benchmark names are code, not data: they stay (the thresholds and the sim family are
matched on them), and the alerts and the state are redacted again as a whole on the way out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

from perfgate.secrets import Redactor
from perfgate.watch.changes.series import Series
from perfgate.watch.probes.prober import ProbeCase

Case = tuple[str, tuple[str, ...], str]
Selector = Callable[[str, tuple[str, ...]], ProbeCase | None]


def watch_redactor(env: Mapping[str, str]) -> Redactor:
    """The redactor of a watch run: the environment's secrets and the posting token."""
    return Redactor.from_env(env, (env.get("GITHUB_TOKEN", ""),))


def redacted_series(
    series: Iterable[Series], redactor: Redactor
) -> tuple[tuple[Series, ...], dict[Case, tuple[str, ...]]]:
    """Each series with its parameters and machine redacted, and each shown case's raw
    parameters (to select the case for a re-measurement)."""
    shown: list[Series] = []
    raw: dict[Case, tuple[str, ...]] = {}
    for one in series:
        params = tuple(redactor.text(p) for p in one.params)
        safe = dataclasses.replace(one, params=params, machine=redactor.text(one.machine))
        shown.append(safe)
        raw[(safe.benchmark, safe.params, safe.machine)] = one.params
    return tuple(shown), raw


def raw_selector(select: Selector, raw: Mapping[Case, tuple[str, ...]]) -> Selector:
    """``select`` over a shown case's benchmark and its raw parameters (any machine: the
    selector does not look at it): the probe measures and finds the case by them."""
    by_shown = {(benchmark, params): found for (benchmark, params, _), found in raw.items()}

    def pick(benchmark: str, params: tuple[str, ...]) -> ProbeCase | None:
        return select(benchmark, by_shown.get((benchmark, params), params))

    return pick
