"""perfgate.sim.child: one case built, its calls counted, its outcome reported."""

from __future__ import annotations

import pytest

from perfgate.sim import child, client


def test_a_case_reports_its_state_and_the_seconds_of_its_building_and_its_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("start_instrumentation", "stop_instrumentation", "zero_stats"):
        monkeypatch.setattr(client, name, lambda: None)
    monkeypatch.setattr(client, "prepared_dump", lambda name: lambda: None)
    spec = {"warmup": 1, "calls": 2}
    done = child.run_case(lambda: lambda: None, {"id": "c", "params": []}, spec)
    assert done["state"] == "ok"
    assert float(done["build_seconds"]) >= 0 and float(done["seconds"]) >= 0


def test_a_case_that_cannot_be_built_is_skipped_or_failed_with_its_reason() -> None:
    def unsupported() -> None:
        raise NotImplementedError("no such path")

    def broken() -> None:
        raise RuntimeError("boom")

    spec = {"warmup": 1, "calls": 2}
    skipped = child.run_case(unsupported, {"id": "c", "params": []}, spec)
    failed = child.run_case(broken, {"id": "c", "params": []}, spec)
    assert skipped == {"state": "skipped", "message": "no such path"}
    assert failed["state"] == "failed" and "RuntimeError: boom" in failed["message"]


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
