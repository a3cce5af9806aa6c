"""The round planner (pure): what a run can afford and what it could see.

Rounds go to what can block: a case of a family that never blocks (compile time, segments;
``blocking`` in ``[tool.perfgate]``) is measured once per side, in the first round; blocking
cases get ``min_samples`` rounds when the budget affords them. A case's cost is the seconds
one round of it takes on both sides (from asv's per-benchmark durations, or a documented
default per family when no run has been measured yet).

What a run could see: the *detectable slowdown* of a blocking case is the smallest slowdown
whose paired CI, as wide as the one measured, would have cleared 1 + threshold, i.e. been
called stable. A case whose detectable slowdown is above its threshold plus the configured
margin is a *blind spot*: the report lists it first, so a PASS never hides it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from perfgate.config import GateConfig
from perfgate.formats.timeline import Timeline
from perfgate.model import CaseKey, natural_key

#: Seconds one round of one case takes on both sides when no run measured it yet, by the
#: first matching benchmark prefix: the first round of the full gate on the 2-core reference
#: machine (2026-12-02), per case and side, rounded up: compile time ~19 s (its cold probes
#: in setup_cache shared among its cases), collector ~11 s, hot slice and thread scaling
#: ~1.1 s.
DEFAULT_COSTS: tuple[tuple[str, float], ...] = (
    ("compile_time.", 40.0),
    ("collector.", 25.0),
    ("hot_slice.", 2.5),
    ("thread_scaling.", 2.5),
)
#: Cost of a case no prefix of :data:`DEFAULT_COSTS` matches.
FALLBACK_COST_S = 10.0


def default_cost(benchmark: str) -> float:
    """The documented default cost of one round of ``benchmark`` (both sides, seconds)."""
    for prefix, seconds in DEFAULT_COSTS:
        if benchmark.startswith(prefix):
            return seconds
    return FALLBACK_COST_S


_SETUP_CACHE = re.compile(r"<setup_cache (?P<module>\w+)[.:]")


def setup_cache_module(phase: str) -> str | None:
    """The suite module of an asv ``<setup_cache compile_time:95>`` phase (else None)."""
    found = _SETUP_CACHE.match(phase)
    return found["module"] if found else None


def case_costs(durations: Mapping[str, float], keys: Iterable[CaseKey]) -> dict[CaseKey, float]:
    """Per-case cost of one side from asv's per-benchmark ``durations`` (seconds).

    asv records one duration per benchmark, covering all its parameter combinations: it is
    shared evenly between the cases of that benchmark in ``keys``, and a module's
    ``setup_cache`` phase (run once before its cases) between the cases of that module.
    Benchmarks without a duration are left out (the caller falls back to another estimate).
    """
    by_bench: dict[str, list[CaseKey]] = {}
    for key in keys:
        by_bench.setdefault(key.benchmark, []).append(key)
    out: dict[CaseKey, float] = {}
    for bench, cases in by_bench.items():
        seconds = durations.get(bench)
        if seconds is not None and math.isfinite(seconds) and seconds >= 0:
            out.update({k: seconds / len(cases) for k in cases})
    for phase, seconds in durations.items():
        module = setup_cache_module(phase)
        mine = [k for k in out if module and k.benchmark.startswith(module + ".")]
        if mine and math.isfinite(seconds) and seconds >= 0:
            out.update({k: out[k] + seconds / len(mine) for k in mine})
    return out


@dataclass(frozen=True)
class CasePlan:
    """One case in a plan: whether it can block, its cost per round and its planned rounds."""

    key: CaseKey
    blocking: bool
    cost_s: float
    rounds: int

    @property
    def seconds(self) -> float:
        """Expected seconds of all its planned rounds."""
        return self.cost_s * self.rounds


@dataclass(frozen=True)
class Overheads:
    """What a run takes beyond its cases' own seconds, as an earlier run of the same kind
    took it (its ``timeline.json``): before measuring (exports, checks), parity, asv's own
    seconds per round (start-up, discovery, imports; the first round's apart), the extra
    rounds it gave undecided cases and blind spots (None: no earlier run says, and the plan
    expects them to last to the budget) and its confirmation re-run."""

    setup_s: float = 0.0
    parity_s: float = 0.0
    first_round_s: float = 0.0
    later_round_s: float = 0.0
    extra_s: float | None = 0.0
    confirm_s: float = 0.0


#: Seconds a run keeps after its last extra round to compare, render and write the report
#: (`perfgate.wall.measure` ends the optional rounds this much before the budget).
FINISH_S = 5.0


@dataclass(frozen=True)
class Plan:
    """The planned rounds of a run: per case, the total, and what the costs are based on.

    Times count from the gate's start without the instruments that measure before the
    wall clock (the sim phase, which the budget does not hold): set-up, parity and the
    rounds, as the gate's budget does."""

    cases: tuple[CasePlan, ...]
    budget_s: float
    min_samples: int
    basis: str
    overheads: Overheads = field(default_factory=Overheads)
    max_rounds: int = 30
    confirm: bool = True

    @property
    def cases_s(self) -> float:
        """Seconds of the planned rounds' cases (asv's own seconds for them)."""
        return sum(c.seconds for c in self.cases)

    @property
    def main_s(self) -> float:
        """Seconds of the main phase's planned rounds: their cases and asv's own seconds."""
        o, rounds = self.overheads, self.rounds
        return self.cases_s + (o.first_round_s + o.later_round_s * (rounds - 1) if rounds else 0.0)

    @property
    def extra_round_s(self) -> float:
        """Seconds of one extra round of every blocking case (all of them undecided)."""
        blocking = [c.cost_s for c in self.cases if c.blocking]
        return sum(blocking) + self.overheads.later_round_s if blocking else 0.0

    @property
    def extras_cap_s(self) -> float:
        """Seconds of the most extra rounds the policy allows (``max_rounds``), all cases
        undecided in each."""
        return max(0, self.max_rounds - self.rounds) * self.extra_round_s

    @property
    def extras_room_s(self) -> float:
        """Seconds the budget leaves for extra rounds: they end where the run's budget ends,
        counted from its start (set-up and parity included), less `FINISH_S`."""
        o = self.overheads
        return max(0.0, self.budget_s - FINISH_S - o.setup_s - o.parity_s - self.main_s)

    @property
    def extra_s(self) -> float:
        """Expected seconds of extra rounds: as long as the earlier run's, else (no earlier
        run) to the budget or ``max_rounds``; never beyond either."""
        known = self.overheads.extra_s
        cap = min(self.extras_room_s, self.extras_cap_s)
        return cap if known is None else min(known, cap)

    def extra_rounds(self) -> tuple[int, int]:
        """(expected, most) extra rounds: the expected seconds in rounds of every blocking
        case, and the policy's maximum (``max_rounds``) where the budget leaves room for
        any (rounds of the suspected regressions alone are cheaper, and fill the rest)."""
        per = self.extra_round_s
        if per <= 0 or self.extras_room_s <= 0:
            return 0, 0
        return round(self.extra_s / per), max(0, self.max_rounds - self.rounds)

    @property
    def measure_s(self) -> float:
        """Expected seconds of measuring: the main phase, the extra rounds and a confirmation
        re-run as long as the earlier run's (none without one)."""
        return self.main_s + self.extra_s + self.overheads.confirm_s

    @property
    def expected_s(self) -> float:
        """Expected seconds of the whole run: set-up, parity and measuring."""
        return self.overheads.setup_s + self.overheads.parity_s + self.measure_s

    @property
    def upper_s(self) -> float:
        """The most seconds the run can take as the gate schedules its rounds: every case
        undecided (extra rounds to the budget or ``max_rounds``), then a case flagged whose
        confirmation re-run gets half the budget of its own, and each phase's last round
        overrunning its estimate by a whole round of every blocking case."""
        o, margin = self.overheads, self.extra_round_s
        before = o.setup_s + o.parity_s
        main = before + max(self.main_s, min(self.budget_s, self.main_s + self.extras_cap_s))
        end = main + margin
        if self.confirm and margin > 0:
            end = max(before + self.budget_s, end + self.budget_s / 2.0) + margin
        return end

    @property
    def rounds(self) -> int:
        """Rounds of the main phase: the most any case gets."""
        return max((c.rounds for c in self.cases), default=0)

    @property
    def short(self) -> tuple[CaseKey, ...]:
        """Blocking cases the budget leaves below ``min_samples`` rounds (exit 3, named)."""
        return tuple(c.key for c in self.cases if c.blocking and c.rounds < self.min_samples)

    def parts(self) -> dict[str, float]:
        """Expected seconds per part of the run (set-up, parity, main, extra, confirmation)."""
        o = self.overheads
        return {
            "setup": o.setup_s,
            "parity": o.parity_s,
            "main": self.main_s,
            "extra": self.extra_s,
            "confirm": o.confirm_s,
        }

    def to_json(self) -> dict[str, object]:
        """The plan as a JSON-able document (``perfgate gate --plan --json``)."""
        return {
            "basis": self.basis,
            "budget_minutes": round(self.budget_s / 60.0, 2),
            "expected_minutes": round(self.expected_s / 60.0, 2),
            "upper_minutes": round(self.upper_s / 60.0, 2),
            "expected_parts_minutes": {
                **{name: round(s / 60.0, 2) for name, s in self.parts().items()},
                "cases": round(self.cases_s / 60.0, 2),
                "measure": round(self.measure_s / 60.0, 2),
            },
            "min_samples": self.min_samples,
            "max_rounds": self.max_rounds,
            "rounds": self.rounds,
            "extra_rounds": dict(zip(("expected", "most"), self.extra_rounds(), strict=True)),
            "short": [k.label() for k in self.short],
            "cases": [
                {
                    "case": c.key.label(),
                    "blocking": c.blocking,
                    "cost_s": round(c.cost_s, 3),
                    "rounds": c.rounds,
                }
                for c in self.cases
            ],
        }


def blocking_rounds(
    costs: Mapping[CaseKey, float], blocking: Iterable[CaseKey], min_samples: int, budget_s: float
) -> int:
    """How many rounds (1..min_samples) of the blocking cases fit in ``budget_s``, given that
    every case in ``costs`` runs once and only the blocking ones run again."""
    block = set(blocking)
    once = sum(costs.values())
    again = sum(costs[k] for k in block if k in costs)
    if again <= 0:
        return min_samples
    fit = 1 + math.floor(min(float(min_samples), max(0.0, budget_s - once) / again))
    return max(1, min(min_samples, fit))


def plan_rounds(
    costs: Mapping[CaseKey, float],
    config: GateConfig,
    budget_s: float,
    basis: str,
    overheads: Overheads | None = None,
) -> Plan:
    """Rounds per case: blocking cases as many as the budget affords up to ``min_samples``,
    the others once (asv's overhead per round counts against the budget too)."""
    overheads = overheads or Overheads()
    keys = sorted(costs, key=natural_key)
    block = [k for k in keys if config.can_block(k.benchmark)]
    per_round = {**costs}
    if block and overheads.later_round_s > 0:  # each later round carries asv's overhead
        share = overheads.later_round_s / len(block)
        per_round.update({k: costs[k] + share for k in block})
    left = budget_s - overheads.first_round_s + overheads.later_round_s
    n = blocking_rounds(per_round, block, config.min_samples, left)
    cases = tuple(
        CasePlan(k, k in set(block), costs[k], n if k in set(block) else 1) for k in keys
    )
    return Plan(
        cases, budget_s, config.min_samples, basis, overheads, config.max_rounds, config.confirm
    )


def overheads_from(
    timeline: Timeline | None, parity_command: str | None, min_samples: int
) -> tuple[Overheads, str]:
    """(overheads, what they rest on) from an earlier run's timeline. Its parity time counts
    only for the same parity command (``parity_command`` None: parity comes from CI, 0 s);
    extra rounds are the main-phase rounds after ``min_samples``, the confirmation its
    rounds; without a timeline the extra rounds are expected to last to the budget."""
    if timeline is None:
        note = (
            "no timeline of an earlier run: asv's overhead and parity not counted, extra "
            "rounds expected to last to the budget"
        )
        return Overheads(extra_s=None), note
    main = [r for r in timeline.rounds if r.phase == "main"]
    first = main[0].overhead_s if main else 0.0
    later = [r.overhead_s for r in main[1:min_samples]]
    extra = sum(r.seconds for r in main[min_samples:])
    confirm = sum(r.seconds for r in timeline.rounds if r.phase == "confirm")
    same = parity_command is not None and parity_command == timeline.parity_command
    parity_s = timeline.parity_s if same and timeline.parity_s is not None else 0.0
    note = "set-up, asv's overhead per round, extra rounds and confirmation as the earlier run's"
    if parity_command is None:
        note += "; parity from CI (0 s)"
    elif same and timeline.parity_s is not None:
        note += f"; parity ({parity_command}) as the earlier run's"
    else:
        note += f"; parity ({parity_command}) not counted: the earlier run did not run it"
    overheads = Overheads(
        setup_s=timeline.setup_s,
        parity_s=parity_s,
        first_round_s=first,
        later_round_s=sum(later) / len(later) if later else first,
        extra_s=extra,
        confirm_s=confirm,
    )
    return overheads, note


#: Samples per asv round the planner may ask for (few distinct values: each distinct set of
#: attributes is one more asv process per side and round).
REPEAT_STEPS = (5, 10, 20)
#: At most this many seconds of samples per case and side in one round.
MAX_SAMPLE_S = 10.0
#: A sample at least this long is its own warm-up: the case's setup made the first call
#: (compile or cache load), and one such call is a full pass over the batch's memory.
WARM_SAMPLE_S = 0.05
#: A case whose samples of a round take less than this keeps the benchmark's own repeat
#: unless it needs more: fewer samples would save less than the extra asv process costs.
CHEAP_ROUND_S = 0.5


def relative_spread(samples: Sequence[float]) -> float | None:
    """Interquartile range / median of one case's samples in one round (None: too few)."""
    values = sorted(x for x in samples if math.isfinite(x))
    if len(values) < 3 or values[len(values) // 2] <= 0:
        return None
    q1, q3 = values[len(values) // 4], values[(3 * len(values)) // 4]
    return (q3 - q1) / values[len(values) // 2]


def asv_attributes(
    samples: Sequence[float], threshold: float, max_repeat: int | None = None
) -> dict[str, str]:
    """asv ``-a`` overrides for one case from one round of its samples (empty: keep the
    benchmark's own attributes).

    ``repeat``: enough samples that the median's standard error (1.2533 sigma / sqrt(n),
    sigma ~ IQR / 1.349) is a quarter of the threshold, rounded up to a step of
    :data:`REPEAT_STEPS` and never more than :data:`MAX_SAMPLE_S` of samples. Raised for
    any case; lowered only for a case whose samples cost :data:`CHEAP_ROUND_S` or more (the
    paired rounds, not the samples inside one, carry most of the evidence: a quiet 300 ms
    case spent 3 s a side on samples it did not need). ``warmup_time``: 0 for samples of
    :data:`WARM_SAMPLE_S` or more, always with an explicit ``repeat`` so that few distinct
    attribute sets (asv processes) arise. ``max_repeat`` caps the samples (a raise the
    budget cannot pay for, see `budgeted_attributes`).
    """
    spread = relative_spread(samples)
    if not samples or spread is None:
        return {}
    sample_s = sorted(samples)[len(samples) // 2]
    need = math.ceil((1.2533 * spread / 1.349 / (threshold / 4.0)) ** 2)
    affordable = math.floor(MAX_SAMPLE_S / sample_s) if sample_s > 0 else len(samples)
    fits = [s for s in REPEAT_STEPS if s <= affordable]
    if not fits:
        return {"warmup_time": "0"} if sample_s >= WARM_SAMPLE_S else {}
    n = next((s for s in fits if s >= need), fits[-1])
    if max_repeat is not None:
        n = min(n, max_repeat)
    if n < len(samples) and sample_s * len(samples) < CHEAP_ROUND_S:
        n = len(samples)
    out = {"repeat": f"({n}, {n}, {MAX_SAMPLE_S:g})"}
    if sample_s >= WARM_SAMPLE_S:
        out["warmup_time"] = "0"
    elif n == len(samples):
        return {}
    return out


#: asv batches calls into samples of at least about this many seconds (the hot slice's
#: ``sample_time``), so one more sample of a case costs at least this much.
MIN_SAMPLE_S = 0.02


def repeat_count(attributes: Mapping[str, str], default: int) -> int:
    """The samples an attribute set asks for (``default``: it keeps the benchmark's own)."""
    text = attributes.get("repeat")
    return int(text.strip("()").split(",")[0]) if text else default


def added_seconds(samples: Sequence[float], attributes: Mapping[str, str]) -> float:
    """Seconds a round (both sides) of a case gains from ``attributes`` over the samples it
    took (negative: it saves): each sample at least :data:`MIN_SAMPLE_S`."""
    if not samples:
        return 0.0
    sample_s = max(sorted(samples)[len(samples) // 2], MIN_SAMPLE_S)
    return 2.0 * (repeat_count(attributes, len(samples)) - len(samples)) * sample_s


def budgeted_attributes(
    first: Mapping[CaseKey, Sequence[float]], thresholds: Mapping[CaseKey, float], slack_s: float
) -> dict[CaseKey, dict[str, str]]:
    """`asv_attributes` per case, with raises (more samples per round) granted only while the
    round's budget pays for them: the cheapest first, within ``slack_s`` (seconds a later
    round may grow by) plus what the lowered cases save. A raise that does not fit keeps the
    case's sample count: the budget buys ``min_samples`` paired rounds first, which carry
    more of the evidence than samples inside one round."""
    out = {k: asv_attributes(s, thresholds[k]) for k, s in first.items()}
    extra = {k: added_seconds(first[k], a) for k, a in out.items()}
    left = slack_s - sum(e for e in extra.values() if e < 0)
    for key in sorted(
        (k for k, e in extra.items() if e > 0), key=lambda k: (extra[k], natural_key(k))
    ):
        if extra[key] <= left:
            left -= extra[key]
        else:
            out[key] = asv_attributes(first[key], thresholds[key], len(first[key]))
    return out
