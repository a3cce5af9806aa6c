"""Row/lane split of a plan's env body (pure; used by :mod:`termplan.codegen`).

A per-env body that mixes a joint loop with a few dozen scalar reward formulas runs the
scalar part one env at a time. Split, each tile of :data:`TILE` envs runs two loops:

* the **row loop** (env by env): every fragment that has axis-loop lines, their
  accumulator initialisations, the axis loops, and every observation copy;
* the **lane loop** (branch-free, vectorised by LLVM across the tile's envs): the other
  env-stage fragments, the rewards and the termination, reading the loop accumulators
  back from a per-thread scratch (``scratch[tid, k, lane]``, through its flat view ``cells``).

Both loops index per-env arrays through 1-D views with unsigned, literal-width indices
(:mod:`termplan.flat`), and in the lane loop ``fast_exp`` becomes the branch-free
``lane_exp``: with a runtime row stride or a conditional call the loop stays scalar (see
:mod:`termplan.intrinsics`). A plan splits only when that is sound: axis-loop fragments
read no value of another env-stage fragment, nothing but observation copies runs after the
loops, and every carried accumulator is a fragment-named variable its env line initialises.
"""

from __future__ import annotations

from dataclasses import dataclass

from termplan.flat import flat_line
from termplan.plan import ResolvedPlan
from termplan.spec import ENV_STAGE, POST_STAGE, Fragment, TermKind

#: Envs per tile (the lane loop's trip count). Of 128, 256 and 512, measured side by side in one
#: process (G1, N=65536, two threads), 512 was fastest for both G1 kernels: ~7% below 128.
TILE = 512


@dataclass(frozen=True)
class LaneSplit:
    """Which fragments run in the row loop, and what the lane loop reads back."""

    row_fragments: frozenset[str]
    carried: tuple[str, ...]

    def scratch_rows(self) -> int:
        """Rows of a thread's scratch (at least one, so the argument always has a shape)."""
        return max(1, len(self.carried))


def _is_row(frag: Fragment) -> bool:
    return any(stage.startswith("loop:") for stage, _ in frag.lines)


def _carried_name(frag: Fragment) -> str | None:
    """The accumulator a row fragment carries: its name, initialised by its one env line."""
    env = frag.stage_lines(ENV_STAGE)
    if not env:
        return ""
    if len(env) == 1 and env[0].startswith(f"{frag.name} = "):
        return frag.name
    return None


def lane_split(plan: ResolvedPlan) -> LaneSplit | None:
    """The split of ``plan``, or None when its body must stay one loop (module docstring)."""
    rows = {f.name for f in plan.fragments if _is_row(f)}
    if not rows:
        return None
    for term in plan.active(TermKind.OBSERVATION):
        if any(dep not in rows for src in plan.term_sources(term.name) for dep in src.needs):
            return None
    carried = []
    for frag in plan.fragments:
        if frag.stage_lines(POST_STAGE):
            return None
        if frag.name not in rows:
            continue
        if any(dep not in rows for dep in frag.needs):
            return None
        name = _carried_name(frag)
        if name is None:
            return None
        if name:
            carried.append(name)
    if _lane_reads_uncarried(plan, rows, set(carried)):
        return None
    return LaneSplit(frozenset(rows), tuple(carried))


def _lane_reads_uncarried(plan: ResolvedPlan, rows: set[str], carried: set[str]) -> bool:
    """Whether lane code (a lane fragment, a reward or a termination) needs a row fragment
    that the scratch does not carry: it would read whatever the tile's last env left in that
    variable (e.g. a per-joint value), for every env."""
    needs = [dep for f in plan.fragments if f.name not in rows for dep in f.needs]
    for kind in (TermKind.REWARD, TermKind.TERMINATION):
        needs += [dep for term in plan.active(kind) for dep in term.code().needs]
    return any(dep in rows and dep not in carried for dep in needs)


def lane_line(plan: ResolvedPlan, line: str) -> str:
    """``line`` in flat form (:func:`termplan.flat.flat_line`) with the branch-free exp."""
    line = flat_line(plan, line)
    return line.replace("math.exp(", "lane_exp(").replace("fast_exp(", "lane_exp(")
