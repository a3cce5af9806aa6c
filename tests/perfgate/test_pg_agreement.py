"""perfgate.agreement: where the wall clock's estimate is beyond the
threshold and the simulator counted "same", the case is undecided and not seen (issue 37, 6:
head code can tell it is being counted and skip work there)."""

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


#: The probe's case: the wall clock's +6.4% (CI 1.038-1.099 straddles 1.05), the simulator's
#: 1.001 ("same") for a head that skipped work under valgrind.
DODGED = _wall(1.064, 1.038, 1.099, CaseVerdict.INCONCLUSIVE)


def test_a_wall_estimate_beyond_the_threshold_and_a_simulated_same_disagree() -> None:
    same = _sim(1.001e6)
    assert same.verdict is CaseVerdict.UNCHANGED
    assert disagree(DODGED, same)
    assert not disagree(_wall(1.02, 0.95, 1.09, CaseVerdict.INCONCLUSIVE), same)  # within
    assert not disagree(DODGED, _sim(1.02e6))  # the simulator found it slower too
    assert not disagree(DODGED, None) and not disagree(None, same)


def test_a_wall_estimate_whose_ci_reaches_below_1_is_scatter_not_a_disagreement() -> None:
    """An A/A run of ``make gate`` on this VM: the wall clock's 1.051 (CI 0.864-1.079) for
    identical code is beyond the 3% threshold only by scatter; with the simulator's "same"
    it is not a disagreement (it was, and made the A/A run an ERROR)."""
    noisy = replace(_wall(1.051, 0.864, 1.079, CaseVerdict.INCONCLUSIVE), threshold=0.03)
    assert not disagree(noisy, _sim(1e6))
    assert disagree(replace(noisy, ci_low=1.004), _sim(1e6))


def test_the_instruments_disagreeing_leaves_the_case_undecided_exit_3() -> None:
    """Without the simulator this straddle would be a reported-only PASS; disagreeing
    instruments make it an ERROR finding naming both figures (fail closed)."""
    rows = [DODGED, _sim(1.001e6)]
    alone = decide.decide([DODGED], [], CONFIG)
    assert alone.verdict is GateVerdict.PASS  # the straddle rule ("report") on its own
    decision = decide.decide(rows, [], CONFIG)
    assert decision.verdict is GateVerdict.ERROR
    (finding,) = [f for f in decision.findings if "instruments disagree" in f.text]
    assert "1.064 (CI 1.038–1.099)" in finding.text and "1.0010 cycles" in finding.text
    (pair,) = twins.side_by_side(rows, CONFIG)
    assert pair.decided_by == "neither: the instruments disagree (undecided)"
    assert len(disagreements([(pair.wall, pair.sim)])) == 1


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
