"""perfgate.sim.child: one case's calls, counted or (a preparing run) only made."""

from __future__ import annotations

import pytest

from perfgate.sim import child, client


def test_a_preparing_run_makes_the_calls_and_never_switches_instrumentation_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def refuse() -> None:
        raise AssertionError("instrumentation switched on in a preparing run")

    monkeypatch.setattr(client, "start_instrumentation", refuse)
    monkeypatch.setattr(client, "prepared_dump", lambda name: refuse)
    child.measure_case(lambda: calls.append(1), warmup=1, calls=3, name="c", count=False)
    assert len(calls) == 4


def test_a_counting_run_switches_instrumentation_on_around_the_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events: list[str] = []
    monkeypatch.setattr(client, "start_instrumentation", lambda: events.append("on"))
    monkeypatch.setattr(client, "stop_instrumentation", lambda: events.append("off"))
    monkeypatch.setattr(client, "zero_stats", lambda: events.append("zero"))
    monkeypatch.setattr(client, "prepared_dump", lambda name: lambda: events.append(name))
    child.measure_case(lambda: events.append("call"), warmup=1, calls=2, name="c")
    assert events == ["on", "call", "zero", "call", "c.0", "call", "c.1", "off"]
