"""The watch's real prober (`perfgate.watch.probes.gate_prober`): one case of the gate's pipeline,
A against B, on a throwaway repository with the gate tests' fake side runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from gate_fakes import CONFIG, FakeSides, commit_speed, fingerprint, hooks, make_repo

from perfgate.config_files import config_from_text
from perfgate.model import CaseComparison, CaseKey, EnvironmentCheck, Reason
from perfgate.verdict import CaseVerdict
from perfgate.watch.probes.gate_prober import GateProber, probe_from_row
from perfgate.watch.probes.prober import ProbeCase, ProbeVerdict

pytestmark = pytest.mark.subprocess

BENCH = "suite.Kernel.time_run"
CASE = ProbeCase(BENCH, ("assembled", "8"), r"^suite\.Kernel\.time_run\('assembled', 8\)$")


def _prober(tmp_path: Path, sides: FakeSides, prints: list | None = None) -> GateProber:
    repo = tmp_path / "repo"
    config = config_from_text(CONFIG, "test")
    out: list[str] = []
    return GateProber(repo, config, "fake-machine", tmp_path / "work", hooks(sides, out, prints))


def test_a_slowdown_of_the_case_is_worse_and_the_same_code_is_not(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    good = commit_speed(repo, {}, "good")
    same = commit_speed(repo, {"b": {"factor": 1.3}}, "another case slower")
    slow = commit_speed(repo, {"c": {"factor": 1.2}}, "slower assembled")
    sides = FakeSides()
    prober = _prober(tmp_path, sides)
    worse = prober.measure(CASE, "fake-machine", good, slow, 120.0)
    assert worse.verdict is ProbeVerdict.WORSE and (worse.base, worse.head) == (good, slow)
    assert worse.ratio is not None and 1.15 < worse.ratio < 1.25
    assert worse.ci_low is not None and worse.ci_low > 1.05
    assert all(count == 1 for _, count in sides.calls)  # one --bench regex: the one case
    unchanged = prober.measure(CASE, "fake-machine", good, same, 120.0)
    assert unchanged.verdict is ProbeVerdict.NOT_WORSE and unchanged.note == ""
    assert not list((tmp_path / "work" / "runs").glob("*/exports"))  # exports discarded


def test_what_cannot_be_measured_is_unknown_never_an_exception(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    good = commit_speed(repo, {}, "good")
    prober = _prober(tmp_path, FakeSides())
    elsewhere = prober.measure(CASE, "other-machine", good, good, 60.0)
    assert elsewhere.verdict is ProbeVerdict.UNKNOWN and "other-machine" in elsewhere.note
    missing = prober.measure(CASE, "fake-machine", good, "0" * 40, 60.0)
    assert missing.verdict is ProbeVerdict.UNKNOWN and "not measured" in missing.note
    gone = ProbeCase(BENCH, ("nope", "8"), r"^nothing$")
    assert prober.measure(gone, "fake-machine", good, good, 60.0).verdict is ProbeVerdict.UNKNOWN


def test_a_fingerprint_that_changed_while_measuring_is_unknown(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    good = commit_speed(repo, {}, "good")
    slow = commit_speed(repo, {"c": {"factor": 1.2}}, "slower assembled")
    prints = [fingerprint(), fingerprint(governor="powersave")]
    probe = _prober(tmp_path, FakeSides(), prints).measure(CASE, "fake-machine", good, slow, 60.0)
    assert probe.verdict is ProbeVerdict.UNKNOWN and "governor" in probe.note


def test_rows_map_to_probe_verdicts() -> None:
    key = CaseKey(BENCH, (("path", "assembled"), ("n", "8")))
    same = EnvironmentCheck({"a": 1}, {"a": 1})
    for verdict, expected in [
        (CaseVerdict.REGRESSED, ProbeVerdict.WORSE),
        (CaseVerdict.UNCHANGED, ProbeVerdict.NOT_WORSE),
        (CaseVerdict.IMPROVED, ProbeVerdict.NOT_WORSE),
        (CaseVerdict.INCONCLUSIVE, ProbeVerdict.UNKNOWN),
        (CaseVerdict.FAILED, ProbeVerdict.UNKNOWN),
    ]:
        row = CaseComparison(key, verdict, 0.05, True, ratio=1.1, ci_low=1.0, ci_high=1.2)
        probe = probe_from_row(row, same, "a" * 40, "b" * 40, 10.0)
        assert (probe.verdict, probe.ratio, probe.ci_low, probe.ci_high) == (
            expected,
            1.1,
            1.0,
            1.2,
        )
    assert probe_from_row(None, same, "a" * 40, "b" * 40, 1.0).verdict is ProbeVerdict.UNKNOWN


class _Scripted(GateProber):
    """A prober whose measurements are the given rows, in order (each takes 60 s)."""

    def __init__(self, rows: list[CaseComparison], clock: list[float]) -> None:
        super().__init__(Path("."), config_from_text(CONFIG, "test"), "m", clock=lambda: clock[0])
        self.rows, self.now, self.calls = rows, clock, 0

    def _measure(
        self, case: ProbeCase, sha_a: str, sha_b: str, budget_s: float
    ) -> tuple[CaseComparison | None, EnvironmentCheck]:
        self.calls += 1
        self.now[0] += 60.0
        return self.rows.pop(0), EnvironmentCheck({"a": 1}, {"a": 1})


def _row(verdict: CaseVerdict, ratio: float) -> CaseComparison:
    key = CaseKey(BENCH, (("path", "assembled"), ("n", "8")))
    ci = {"ci_low": ratio - 0.04, "ci_high": ratio + 0.04}
    return CaseComparison(key, verdict, 0.03, True, ratio=ratio, note="undecided", **ci)


def test_an_undecided_measurement_is_measured_once_more_and_the_second_counts() -> None:
    rows = [_row(CaseVerdict.INCONCLUSIVE, 1.074), _row(CaseVerdict.REGRESSED, 1.081)]
    prober = _Scripted(rows, [0.0])
    probe = prober.measure(CASE, "m", "a" * 40, "b" * 40, 600.0)
    assert prober.calls == 2 and probe.verdict is ProbeVerdict.WORSE
    assert probe.ratio == pytest.approx(1.081) and probe.seconds == pytest.approx(120.0)
    assert "first was undecided" in probe.note and "1.074" in probe.note


def test_a_second_undecided_measurement_stays_unknown_and_there_is_no_third() -> None:
    rows = [_row(CaseVerdict.INCONCLUSIVE, 1.05), _row(CaseVerdict.INCONCLUSIVE, 1.04)]
    prober = _Scripted(rows, [0.0])
    probe = prober.measure(CASE, "m", "a" * 40, "b" * 40, 600.0)
    assert prober.calls == 2 and probe.verdict is ProbeVerdict.UNKNOWN


def test_no_second_measurement_when_decided_or_the_budget_is_spent() -> None:
    decided = _Scripted([_row(CaseVerdict.UNCHANGED, 1.0)], [0.0])
    assert decided.measure(CASE, "m", "a" * 40, "b" * 40, 600.0).verdict is ProbeVerdict.NOT_WORSE
    assert decided.calls == 1
    spent = _Scripted([_row(CaseVerdict.INCONCLUSIVE, 1.05)], [0.0])
    probe = spent.measure(CASE, "m", "a" * 40, "b" * 40, 90.0)  # 30 s left after the first
    assert spent.calls == 1 and probe.verdict is ProbeVerdict.UNKNOWN


def test_a_worse_second_look_after_a_first_that_leaned_better_stays_unknown() -> None:
    rows = [_row(CaseVerdict.INCONCLUSIVE, 0.99), _row(CaseVerdict.REGRESSED, 1.08)]
    probe = _Scripted(rows, [0.0]).measure(CASE, "m", "a" * 40, "b" * 40, 600.0)
    assert probe.verdict is ProbeVerdict.UNKNOWN and "leaned the other way" in probe.note


def test_a_version_mismatch_is_not_measured_again() -> None:
    row = _row(CaseVerdict.INCONCLUSIVE, 1.05)
    mismatch = CaseComparison(row.key, row.verdict, 0.03, True, reason=Reason.VERSION_DIFFERS)
    prober = _Scripted([mismatch], [0.0])
    assert prober.measure(CASE, "m", "a" * 40, "b" * 40, 600.0).verdict is ProbeVerdict.UNKNOWN
    assert prober.calls == 1


def test_a_sim_case_is_probed_with_the_sim_instrument(tmp_path: Path) -> None:
    """A case of the sim family is counted, not timed: A twice and B once, no wall round,
    worse from 1.5% more cycles."""
    from gate_fakes import FakeSim
    from test_pl_gate_sim import SAME, SIM_CONFIG, _commit_sim

    repo = make_repo(tmp_path, SIM_CONFIG)
    good = _commit_sim(repo, SAME, "counts")
    slow = _commit_sim(repo, {"numpy": {**SAME["numpy"], "cycles": 9.135e6}}, "more work")
    sides, sim = FakeSides(), FakeSim()
    config = config_from_text(SIM_CONFIG, "test")
    found = hooks(sides, [], sim=sim, valgrind="3.19.0")
    prober = GateProber(repo, config, "fake-machine", tmp_path / "work", found)
    selection = r"^sim_suite\.SimKernel\.track_cycles\('numpy', 8\)$"
    case = ProbeCase("sim_suite.SimKernel.track_cycles", ("numpy", "8"), selection)
    probe = prober.measure(case, "fake-machine", good, slow, 60.0)
    assert probe.verdict is ProbeVerdict.WORSE and probe.ratio is not None
    assert abs(probe.ratio - 1.015) < 1e-9 and sides.calls == []
    assert [len(runs) for runs in sim.runs] == [3]
