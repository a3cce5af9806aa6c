"""perfgate.agreement: where the wall clock sees a stable slowdown by its own rule and the
simulator counted "same", the case is undecided and not seen (issue 37, 6: head code can tell
it is being counted and skip work there); where the wall clock is merely undecided, the
simulator's count decides (issue 48, 1: scatter made a clean A/A an ERROR)."""

from __future__ import annotations

from dataclasses import replace

from perfgate import twins
from perfgate.agreement import disagree, disagreements
from perfgate.config import parse_config
from perfgate.gate import decide
from perfgate.model import CaseComparison, CaseKey, Measurement
from perfgate.sim.compare import compare_sim
from perfgate.verdict import CaseVerdict, GateVerdict
from perfgate.wall import visibility

FAMILY = "sim_hot.SimHot"
CONFIG = parse_config(
    {
        "blocking": ["^sim_hot\\.", "^hot\\."],
        "sim": {"bench": ["^sim_hot\\."], "wall": "hot.Hot.time_compute", "tolerance": 0.001},
        "scaling": {"thread_param": "threads"},
    }
)
PARAMS = (("task", "g1"), ("path", "assembled"))
WALL_KEY = CaseKey("hot.Hot.time_compute", (("threads", "1"), *PARAMS))


def _sim(head_cycles: float) -> CaseComparison:
    """The sim row of a base counted twice at 1e6 cycles and a head at ``head_cycles``."""

    def side(cycles: float) -> dict[CaseKey, Measurement]:
        figures = {"track_cycles": cycles, "track_instructions": cycles * 0.8}
        keys = {name: CaseKey(f"{FAMILY}.{name}", PARAMS) for name in figures}
        return {
            keys[n]: Measurement(keys[n], (v,), version="sim-1", unit="cycles")
            for n, v in figures.items()
        }

    (row,) = compare_sim(side(1e6), side(head_cycles), side(1e6), CONFIG)
    return row


def _wall(ratio: float, low: float, high: float, verdict: CaseVerdict) -> CaseComparison:
    return replace(
        CaseComparison(WALL_KEY, verdict, 0.05, True),
        n_base=10, n_head=10, ratio=ratio, ci_low=low, ci_high=high, paired=True,
    )  # fmt: skip


#: The probe's case (ci/probe_holes item 6): a head 4x the work except under valgrind; the
#: wall clock's 4.23 (CI 4.14-4.28) waits for its confirmation run, the simulator counted
#: 1.001 ("same").
DODGED = _wall(4.23, 4.14, 4.28, CaseVerdict.INCONCLUSIVE)
#: issue 48's A/A: identical code, the wall clock's 1.124 (CI 1.009-1.450) at a 3% threshold
SCATTER = replace(_wall(1.124, 1.009, 1.450, CaseVerdict.INCONCLUSIVE), threshold=0.03)


def test_a_stable_wall_slowdown_and_a_simulated_same_disagree() -> None:
    same = _sim(1.001e6)
    assert same.verdict is CaseVerdict.UNCHANGED
    assert disagree(DODGED, same)
    assert disagree(replace(DODGED, verdict=CaseVerdict.REGRESSED), same)  # confirmed
    assert not disagree(_wall(1.02, 0.95, 1.09, CaseVerdict.INCONCLUSIVE), same)  # within
    assert not disagree(DODGED, _sim(1.02e6))  # the simulator found it slower too
    assert not disagree(DODGED, None) and not disagree(None, same)


def test_a_wall_interval_that_reaches_the_threshold_is_scatter_not_a_disagreement() -> None:
    """The A/A runs' noisy wall clock: 1.051 (CI 0.864-1.079) and 1.124 (CI 1.009-1.450), for
    identical code, are beyond the 3% threshold by scatter; their intervals include 1.03, so
    the wall clock's own rule sees no slowdown and the simulator's "same" is no disagreement
    (the second made an A/A quick gate an ERROR)."""
    noisy = replace(_wall(1.051, 0.864, 1.079, CaseVerdict.INCONCLUSIVE), threshold=0.03)
    assert not disagree(noisy, _sim(1e6))
    assert not disagree(SCATTER, _sim(1e6))
    assert not disagree(_wall(1.064, 1.038, 1.099, CaseVerdict.INCONCLUSIVE), _sim(1e6))
    assert disagree(replace(SCATTER, ci_low=1.031), _sim(1e6))


def test_the_instruments_disagreeing_leaves_the_case_undecided_exit_3() -> None:
    """Alone, the wall row waiting for its confirmation is an inconclusive ERROR; with a
    simulated "same" it stays undecided, a finding naming both figures (fail closed), and
    the simulator does not decide it."""
    rows = [DODGED, _sim(1.001e6)]
    decision = decide.decide(rows, [], CONFIG)
    assert decision.verdict is GateVerdict.ERROR
    (finding,) = [f for f in decision.findings if "instruments disagree" in f.text]
    assert "4.230 (CI 4.140–4.280)" in finding.text and "1.0010 cycles" in finding.text
    (pair,) = twins.side_by_side(rows, CONFIG)
    assert pair.decided_by == "neither: the instruments disagree (undecided)"
    assert len(disagreements([(pair.wall, pair.sim)])) == 1
    confirmed = decide.decide(
        [replace(DODGED, verdict=CaseVerdict.REGRESSED), rows[1]], [], CONFIG
    )
    assert confirmed.verdict is GateVerdict.REGRESSION  # the wall clock blocks on its own


def test_an_undecided_wall_clock_leaves_the_case_to_the_simulator() -> None:
    """Issue 48: a clean A/A (identical counts) whose wall interval straddles the threshold,
    or has too few rounds, passes on the simulator's exact count; a simulated regression
    still blocks; without a sim twin the wall clock's own rule decides (an ERROR)."""
    few = replace(SCATTER, n_base=2, n_head=2, note="too few samples")
    for wall in (SCATTER, few):
        decision = decide.decide([wall, _sim(1e6)], [], CONFIG)
        assert decision.verdict is GateVerdict.PASS, decision.reasons
        assert any("decided by the simulator" in f.text for f in decision.findings)
        (pair,) = twins.side_by_side([wall, _sim(1e6)], CONFIG)
        assert pair.decided_by == "sim (the wall clock could not exclude a slowdown)"
    assert decide.decide([few], [], CONFIG).verdict is GateVerdict.ERROR
    slower = decide.decide([few, _sim(1.05e6)], [], CONFIG)
    assert slower.verdict is GateVerdict.REGRESSION
    reported_only = replace(_sim(1e6), blocking=False)
    assert decide.decide([few, reported_only], [], CONFIG).verdict is GateVerdict.ERROR


def test_a_disagreeing_simulator_row_does_not_count_as_having_seen_the_case() -> None:
    (seen,) = [
        v for v in visibility.visibility([DODGED, _sim(1.001e6)], CONFIG) if v.row is DODGED
    ]
    assert seen.covered_by is None
    assert "simulator" not in seen.seen


def test_a_wall_clock_blind_spot_stays_one_whatever_the_simulator_counted() -> None:
    """A wide wall CI (blind by the wall clock's rule) with an agreeing simulator: still a
    blind spot, the simulator named as having counted the work too."""
    wide = _wall(1.0, 0.92, 1.09, CaseVerdict.INCONCLUSIVE)
    sim = _sim(1.0e6)
    assert visibility.blind_spots([wide, sim], CONFIG) == [wide]
    (seen,) = [v for v in visibility.visibility([wide, sim], CONFIG) if v.row is wide]
    assert seen.blind and seen.covered_by is sim
    assert seen.seen == "blind spot (also counted by the simulator)"
