"""A gate run's whole plan (pure): the wall clock's rounds within the budget and the sim
phase on top, with the run's expected and most minutes, as ``--plan`` prints them.

The gate's budget holds set-up, parity and the wall clock's rounds; the sim phase's counts
come on top of it (`perfgate.wall.face.budget_start`): the plan says both, and its totals
count every instrument the run will measure with.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfgate.sim.plan import COUNTS, SimPlan
from perfgate.wall.plan import Plan


@dataclass(frozen=True)
class RunPlan:
    """The wall clock's plan, the sim phase's (None: the run counts nothing) and a note on
    why the simulator counts nothing or how its run would go."""

    wall: Plan
    sim: SimPlan | None = None
    sim_note: str = ""

    @property
    def sim_s(self) -> float:
        """Expected seconds of the sim phase (0: no sim case)."""
        return self.sim.expected_s if self.sim is not None else 0.0

    @property
    def expected_s(self) -> float:
        """Expected seconds of the whole run: the wall clock's plan and the sim phase."""
        return self.wall.expected_s + self.sim_s

    @property
    def upper_s(self) -> float:
        """The most seconds of the whole run (`Plan.upper_s` and the sim phase)."""
        return self.wall.upper_s + self.sim_s

    def phases(self) -> dict[str, float]:
        """Expected seconds per phase, in run order (set-up, parity, sim, the rounds)."""
        parts = self.wall.parts()
        return {
            "setup": parts["setup"],
            "parity": parts["parity"],
            "sim": self.sim_s,
            **{k: v for k, v in parts.items() if k not in ("setup", "parity")},
        }

    def to_json(self) -> dict[str, object]:
        """``perfgate gate --plan --json``: the wall clock's document with the run's
        totals, its phases and the sim phase's cases."""
        doc = self.wall.to_json()
        parts = doc["expected_parts_minutes"]
        assert isinstance(parts, dict)
        return {
            **doc,
            "expected_minutes": round(self.expected_s / 60.0, 2),
            "upper_minutes": round(self.upper_s / 60.0, 2),
            "budget_holds": "set-up, parity and the wall clock's rounds (the sim phase on top)",
            "budgeted_minutes": {
                "expected": round(self.wall.expected_s / 60.0, 2),
                "upper": round(self.wall.upper_s / 60.0, 2),
            },
            "expected_parts_minutes": {**parts, "sim": round(self.sim_s / 60.0, 2)},
            "sim": None if self.sim is None else self.sim.to_json(),
            "sim_note": self.sim_note,
        }


def render_text(p: RunPlan) -> str:
    """The plan for a terminal: the run's totals, the wall clock's rounds, the sim phase,
    one line per case."""
    w = p.wall
    expected, most = w.extra_rounds()
    phases = ", ".join(f"{name} {seconds / 60:.1f}" for name, seconds in p.phases().items())
    lines = [
        f"plan based on: {w.basis}",
        f"expected {p.expected_s / 60:.1f} min ({phases}); at most {p.upper_s / 60:.1f} min",
        f"budget {w.budget_s / 60:.1f} min for set-up, parity and the wall clock's rounds "
        f"(expected {w.expected_s / 60:.1f}, at most {w.upper_s / 60:.1f}: every case "
        "undecided to the budget"
        + (", then a confirmation re-run of half the budget" if w.confirm else "")
        + ", each phase's last round overrunning by one); the sim phase "
        f"({p.sim_s / 60:.1f}) comes on top",
        f"wall clock: main phase {w.rounds} round(s), then extra rounds for undecided "
        f"cases: {expected} expected, at most {most} (max_rounds {w.max_rounds})",
    ]
    if w.short:
        lines.append(
            f"short: {len(w.short)} blocking case(s) would get fewer than {w.min_samples} "
            "rounds (exit 3, never a pass): " + ", ".join(k.label() for k in w.short)
        )
    lines.append("case | blocking | seconds per round (both sides) | rounds")
    for c in w.cases:
        lines.append(
            f"{c.key.label()} | {'yes' if c.blocking else 'no'} | {c.cost_s:.1f} | {c.rounds}"
        )
    return "\n".join([*lines, *_sim_lines(p)]) + "\n"


def _sim_lines(p: RunPlan) -> list[str]:
    """The sim phase's lines: its families, then one line per counted case."""
    if p.sim is None or not p.sim.cases:
        return [p.sim_note] if p.sim_note else []
    lines = [f"sim phase based on: {p.sim.basis}"]
    lines += [p.sim_note] if p.sim_note else []
    for f in p.sim.families():
        threads = f", threads {'/'.join(map(str, f.threads))}" if f.threads else ""
        lines.append(f"sim {f.family}: {f.cases} case(s){threads}, {f.seconds / 60:.1f} min")
    lines.append("sim case | threads | counts (base, head) | seconds per count")
    counts = ", ".join(str(n) for _side, n in COUNTS)
    for c in p.sim.cases:
        threads = "" if c.threads is None else str(c.threads)
        lines.append(f"{c.key.label()} | {threads} | {counts} | {c.count_s:.1f}")
    return lines
