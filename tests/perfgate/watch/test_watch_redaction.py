"""perfgate.watch.redaction: the watch's cases under their redacted names."""

from __future__ import annotations

from perfgate.secrets import Redactor
from perfgate.watch.changes.series import HistoryPoint, Series
from perfgate.watch.probes.prober import ProbeCase
from perfgate.watch.redaction import raw_selector, redacted_series

SECRET = "ghp_0123456789abcdef"


def _series(param: str, machine: str = "runner") -> Series:
    point = HistoryPoint("a" * 40, 0, 1.0)
    return Series("m.K.time_k", (param, "8"), machine, False, (point,))


def test_params_and_machine_are_redacted_and_the_raw_ones_kept_for_probes() -> None:
    redactor = Redactor.of([SECRET])
    raw = _series(f"'{SECRET}'", machine=f"box-{SECRET}")
    (shown,), raw_params = redacted_series([raw], redactor)
    assert (shown.params, shown.machine) == (("'***'", "8"), "box-***")
    assert shown.points == raw.points and shown.benchmark == raw.benchmark
    seen: list[tuple[str, ...]] = []

    def select(benchmark: str, params: tuple[str, ...]) -> ProbeCase:
        seen.append(params)
        return ProbeCase(benchmark, params, "^x$")

    pick = raw_selector(select, raw_params)
    assert pick(shown.benchmark, shown.params) == ProbeCase(raw.benchmark, raw.params, "^x$")
    assert seen == [raw.params]


def test_a_case_without_a_secret_is_unchanged() -> None:
    raw = _series("'plain'")
    (shown,), _ = redacted_series([raw], Redactor.of([SECRET]))
    assert shown == raw
