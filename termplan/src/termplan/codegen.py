"""Resolved plan -> Python source text of the fused kernels (pure, deterministic, golden-tested).

The text is one module holding, for one plan:

* ``step_parallel`` / ``step_parallel_log``: ``prange`` over envs, without / with per-term
  logging through Numba scalar reductions (the non-logging variant has no log arithmetic);
* ``step_serial`` / ``step_serial_log``: the same body over ``range`` for small N;
* ``first_touch``: a ``prange`` fill of the outputs with the kernels' own partitioning.

Everything specific to the plan is a literal: the active term set and order, observation
offsets and multipliers, parameters, ``scale * reward_multiplier`` products (or, in the
runtime-scales mode, a read of ``scales[k]`` without any branch). Zero-scale terms do not
appear. Each named fragment is emitted once however many terms need it (CSE), and all
per-axis work of one env shares one loop per axis; no intermediate per-env arrays exist.
Tiled kernels index per-env arrays through 1-D views with literal row widths
(:mod:`termplan.flat`); one-loop kernels keep ``a[i, ...]`` (for Motion the views changed no
timing and nearly doubled compile time: 4.3 -> 8.1 s for the serial pair).

Kernel signature (``input names`` from :attr:`ResolvedPlan.inputs`)::

    step_*(n, in_<input>..., scales, out_reward, out_terminated, out_<group>..., out_logs,
           scratch)

Plans that split (:mod:`termplan.lanes`) run each tile of envs as a row loop and a
vectorised lane loop; ``scratch`` carries the row loop's accumulators to the lane loop.
Others run one env per iteration and ignore ``scratch``.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace

from termplan import intrinsics
from termplan.errors import TermPlanError
from termplan.flat import flat_line, flat_views
from termplan.kernel_options import LLVM_OPTIONS, PARALLEL_OPTIONS, SERIAL_OPTIONS
from termplan.lanes import TILE, LaneSplit, lane_line, lane_split
from termplan.names import INLINE_HELPERS
from termplan.plan import ResolvedPlan, ResolvedTerm, variable_stem
from termplan.spec import ENV_STAGE, POST_STAGE, Constant, Fragment, TermKind, VectorSource

INDENT = "    "
VARIANTS: tuple[str, ...] = (
    "step_parallel",
    "step_parallel_log",
    "step_serial",
    "step_serial_log",
)


class ScaleMode(enum.Enum):
    """How reward weights enter the kernel."""

    BAKED = "baked"  # literal scale * reward_multiplier per active term
    RUNTIME = "runtime"  # active set baked; weights read from ``scales[k]`` (no branches)


@dataclass(frozen=True)
class KernelSource:
    """Generated module text plus the argument contract the runtime binds against."""

    text: str
    inputs: tuple[str, ...]
    groups: tuple[str, ...]
    rewards: tuple[str, ...]
    scale_mode: ScaleMode
    #: Rows of a thread's lane scratch, ``(threads, scratch_rows, lanes.TILE)`` float64.
    scratch_rows: int = 1

    def arguments(self) -> tuple[str, ...]:
        """Kernel parameter names, in order."""
        outs = tuple(f"out_{g}" for g in self.groups)
        ins = tuple(f"in_{n}" for n in self.inputs)
        return ("n", *ins, "scales", "out_reward", "out_terminated", *outs, "out_logs", "scratch")


def generate_source(plan: ResolvedPlan, scale_mode: ScaleMode = ScaleMode.BAKED) -> KernelSource:
    """Render the kernel module of ``plan`` (pure: equal plans give byte-equal text)."""
    rewards = plan.active(TermKind.REWARD)
    split = lane_split(plan)
    contract = KernelSource(
        "",
        tuple(s.name for s in plan.inputs),
        tuple(g for g, _ in plan.groups),
        tuple(t.name for t in rewards),
        scale_mode,
        split.scratch_rows() if split else 1,
    )
    args = ", ".join(contract.arguments())
    placed = _placement(plan, _stages(plan))  # checks the stage order of both layouts
    if split is None:
        body = _inline_helpers(_env_body(plan, scale_mode, placed))
        kernels = [_kernel(v, args, body, rewards, "_log" in v) for v in VARIANTS]
        text = "\n".join(body)
    else:
        tiled = _tiled_bodies(plan, scale_mode, split)
        text = "\n".join(tiled[0] + tiled[1])
        kernels = [_tiled_kernel(v, args, plan, tiled, rewards, "_log" in v) for v in VARIANTS]
    helpers = tuple(h for h in INLINE_HELPERS if f"{h}(" in text)
    touch = _first_touch(plan, tiled=split is not None)
    parts = [_header(plan, scale_mode, helpers), *_constants(plan), *kernels, touch]
    return replace(contract, text="\n\n".join(parts) + "\n")


def local_name(prefix: str, term: ResolvedTerm) -> str:
    """Stable local variable name of a term's value (``r_`` reward, ``d_`` termination);
    :func:`~termplan.plan.resolve_plan` refuses two names that map to the same one."""
    return prefix + variable_stem(term.name)


def literal(value: float) -> str:
    """A float64 literal that round-trips exactly."""
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        raise TermPlanError(f"literal {value}: non-finite values cannot be baked")
    return text


def _header(plan: ResolvedPlan, scale_mode: ScaleMode, helpers: tuple[str, ...]) -> str:
    active = ", ".join(t.name for t in plan.active()) or "(none)"
    lines = [
        f'"""Fused kernels of plan {plan.task!r} (generated by termplan.codegen; do not edit).',
        "",
        f"Scale mode: {scale_mode.value}. Active terms: {active}.",
        '"""',
        "",
        f"# LLVM options (not in Numba's cache key): {' '.join(LLVM_OPTIONS)}",
        "import math",
        "",
        "import numpy as np",
        "from numba import get_thread_id, njit, prange",
    ]
    if helpers:
        # The digest puts the helpers' source into this text's hash (its cache key).
        lines.append(f"from termplan.intrinsics import {', '.join(helpers)}")
        lines.append(f"# termplan.intrinsics source digest: {intrinsics.source_digest()}")
    return "\n".join(lines)


#: ``math`` calls replaced by inline device helpers of :mod:`termplan.intrinsics`.
_HELPERS: tuple[tuple[str, str], ...] = (("math.exp(", "fast_exp"),)


def _inline_helpers(body: list[str]) -> list[str]:
    """Swap library calls for the inline helpers the hand-written kernels use as well (which
    helpers a kernel imports is read off its final text, in :func:`generate_source`)."""
    for call, helper in _HELPERS:
        body = [line.replace(call, helper + "(") for line in body]
    return body


def _constants(plan: ResolvedPlan) -> list[str]:
    seen: dict[str, Constant] = {}
    for frag in plan.fragments:
        for const in frag.constants:
            if seen.setdefault(const.name, const) != const:
                raise TermPlanError(f"constant {const.name!r}: defined twice with other values")
    lines = []
    for const in seen.values():
        values = ", ".join(repr(v) for v in const.values)
        lines.append(f"{const.name} = np.array([{values}], dtype=np.{const.dtype})")
    return ["\n".join(lines)] if lines else []


def _decorator(parallel: bool) -> str:
    options = PARALLEL_OPTIONS if parallel else SERIAL_OPTIONS
    rendered = []
    for key in sorted(options):
        value = options[key]
        if isinstance(value, (set, frozenset)):
            text = "{" + ", ".join(repr(v) for v in sorted(value)) + "}"
        else:
            text = repr(value)
        rendered.append(f"{key}={text}")
    return f"@njit({', '.join(rendered)})"


def _kernel(
    variant: str, args: str, body: list[str], rewards: tuple[ResolvedTerm, ...], log: bool
) -> str:
    parallel = "parallel" in variant
    loop = "prange" if parallel else "range"
    lines = [_decorator(parallel), f"def {variant}({args}):"]
    if log:
        lines += [f"{INDENT}log_{k} = 0.0" for k in range(len(rewards))]
    lines.append(f"{INDENT}for i in {loop}(n):")
    lines += _indented(body, 2, log)
    if log:
        lines += [f"{INDENT}out_logs[{k}] = log_{k}" for k in range(len(rewards))]
    return "\n".join(lines)


def _indented(body: list[str], depth: int, log: bool) -> list[str]:
    """``body`` at ``depth`` indents; ``#LOG`` lines kept (unmarked) only when ``log``."""
    lines = []
    for line in body:
        if line.startswith("#LOG "):
            if log:
                lines.append(INDENT * depth + line[5:])
            continue
        lines.append(INDENT * depth + line if line else "")
    return lines


def _first_touch(plan: ResolvedPlan, tiled: bool) -> str:
    """Zero the outputs with the kernel's own ``prange`` partitioning (envs, or tiles of
    ``TILE`` envs), so each page is first touched, hence placed, by the thread that writes it."""
    outs = "".join(f", out_{g}" for g, _ in plan.groups)
    lines = [_decorator(True), f"def first_touch(n, out_reward, out_terminated{outs}):"]
    if tiled:
        lines += [
            f"{INDENT}for t in prange((n + {TILE - 1}) // {TILE}):",
            f"{INDENT * 2}for i in range(t * {TILE}, min(n, (t + 1) * {TILE})):",
        ]
    else:
        lines.append(f"{INDENT}for i in prange(n):")
    pad = INDENT * (3 if tiled else 2)
    lines += [f"{pad}out_reward[i] = 0.0", f"{pad}out_terminated[i] = False"]
    for group, width in plan.groups:
        lines += [f"{pad}for k in range({width}):", f"{pad}{INDENT}out_{group}[i, k] = 0.0"]
    return "\n".join(lines)


# ------------------------------------------------------------------------------ tiled


def _tiled_bodies(
    plan: ResolvedPlan, scale_mode: ScaleMode, split: LaneSplit
) -> tuple[list[str], list[str]]:
    """Row-loop lines and lane-loop lines of one env (relative indent)."""
    writes = _observation_writes(plan)
    row: list[str] = []
    for frag in plan.fragments:
        if frag.name in split.row_fragments:
            row += frag.stage_lines(ENV_STAGE)
    for axis in plan.axes:
        stage = f"loop:{axis.name}"
        lines = [ln for f in plan.fragments for ln in f.stage_lines(stage)]
        lines += writes.get(stage, [])
        if lines:
            row.append(f"for {axis.var} in range({axis.extent}):")
            row += [INDENT + ln for ln in lines]
    row += writes.get(POST_STAGE, [])
    row = _inline_helpers(row)
    row = [flat_line(plan, ln) for ln in row]
    cells = [_scratch_cell(split, k) for k in range(len(split.carried))]
    row += [f"{cell} = {name}" for cell, name in zip(cells, split.carried, strict=True)]
    lane = [f"{name} = {cell}" for cell, name in zip(cells, split.carried, strict=True)]
    for frag in plan.fragments:
        if frag.name not in split.row_fragments:
            lane += frag.stage_lines(ENV_STAGE)
    lane += _reward_lines(plan, scale_mode) + _termination_lines(plan)
    return row, [lane_line(plan, ln) for ln in lane]


def _scratch_cell(split: LaneSplit, k: int) -> str:
    """``scratch[tid, k, lane]`` through the flat view ``cells`` (literal strides)."""
    row = f"{k * TILE} + lane" if k else "lane"
    return f"cells[lane_index(tid, {split.scratch_rows() * TILE}, {row})]"


def _tiled_kernel(
    variant: str,
    args: str,
    plan: ResolvedPlan,
    bodies: tuple[list[str], list[str]],
    rewards: tuple[ResolvedTerm, ...],
    log: bool,
) -> str:
    """One variant as tiles of a row loop and a lane loop (see :mod:`termplan.lanes`)."""
    parallel = "parallel" in variant
    row, lane = bodies
    lines = [_decorator(parallel), f"def {variant}({args}):"]
    lines += [INDENT + view for view in flat_views(plan, row + lane)]
    lines.append(f"{INDENT}cells = scratch.reshape(scratch.size)")
    if log:
        lines += [f"{INDENT}log_{k} = 0.0" for k in range(len(rewards))]
    lines += [
        f"{INDENT}for t in {'prange' if parallel else 'range'}((n + {TILE - 1}) // {TILE}):",
        f"{INDENT * 2}tid = {'get_thread_id()' if parallel else '0'}",
        f"{INDENT * 2}lo = t * {TILE}",
        f"{INDENT * 2}count = min({TILE}, n - lo)",
    ]
    for body in (row, lane):
        lines += [f"{INDENT * 2}for lane in range(count):", f"{INDENT * 3}i = lo + lane"]
        lines += _indented(body, 3, log)
    if log:
        lines += [f"{INDENT}out_logs[{k}] = log_{k}" for k in range(len(rewards))]
    return "\n".join(lines)


# ------------------------------------------------------------------------------ env body


def _stages(plan: ResolvedPlan) -> list[str]:
    """The stages of one env iteration, in order: env, one loop per axis, post."""
    return [ENV_STAGE, *(f"loop:{a.name}" for a in plan.axes), POST_STAGE]


def _env_body(
    plan: ResolvedPlan, scale_mode: ScaleMode, placed: dict[str, dict[str, tuple[str, ...]]]
) -> list[str]:
    """Lines of one env iteration (relative indent); ``#LOG`` lines only in log variants.
    ``placed`` is :func:`_placement` of the plan."""
    stages = _stages(plan)
    writes = _observation_writes(plan)
    lines: list[str] = []
    for stage in stages:
        stage_lines = [ln for f in plan.fragments for ln in placed[f.name].get(stage, ())]
        stage_lines += writes.get(stage, [])
        if not stage_lines:
            continue
        if stage.startswith("loop:"):
            axis = next(a for a in plan.axes if f"loop:{a.name}" == stage)
            lines.append(f"for {axis.var} in range({axis.extent}):")
            lines += [INDENT + ln for ln in stage_lines]
        else:
            lines += stage_lines
    lines += _reward_lines(plan, scale_mode)
    lines += _termination_lines(plan)
    return lines


def _placement(plan: ResolvedPlan, stages: list[str]) -> dict[str, dict[str, tuple[str, ...]]]:
    """Each fragment's lines per stage, as the one-loop kernel emits them.

    A line may read a fragment only once that fragment is complete: in an earlier stage, or
    the same one (a loop reading a value of its own iteration). A fragment with only env
    lines that reads one completed later (``mean = sum / 4`` over a loop sum) runs after the
    loops instead, as in the tiled layout, where such code is in the lane loop; any other
    read of an unfinished value is refused, in both layouts (it read the value before the
    loop ran).
    """
    done: dict[str, int] = {}
    placed: dict[str, dict[str, tuple[str, ...]]] = {}
    for frag in plan.fragments:
        unknown = [s for s, _ in frag.lines if s not in stages]
        if unknown:
            raise TermPlanError(f"fragment {frag.name!r}: unknown stages {unknown}")
        by_stage = dict(frag.lines)
        if set(by_stage) == {ENV_STAGE} and _ready(frag, by_stage[ENV_STAGE], done) > 0:
            by_stage = {POST_STAGE: by_stage[ENV_STAGE]}
        for stage, lines in by_stage.items():
            ready = _ready(frag, lines, done)
            if ready > stages.index(stage):
                raise TermPlanError(
                    f"fragment {frag.name!r}: its {stage} lines read a value that is complete "
                    f"only in {stages[ready]}; move them to a later stage"
                )
        placed[frag.name] = by_stage
        done[frag.name] = max((stages.index(s) for s in by_stage), default=0)
    return placed


def _ready(frag: Fragment, lines: tuple[str, ...], done: dict[str, int]) -> int:
    """The stage index at which every fragment that ``lines`` read is complete."""
    read = [d for d in frag.needs if d in done and any(_mentions(ln, d) for ln in lines)]
    return max((done[d] for d in read), default=0)


def _mentions(line: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", line) is not None


def _reward_lines(plan: ResolvedPlan, scale_mode: ScaleMode) -> list[str]:
    rewards = plan.active(TermKind.REWARD)
    lines = []
    for term in rewards:
        lines.append(f"{local_name('r_', term)} = {term.code().value}")
    terms = []
    for k, term in enumerate(rewards):
        if scale_mode is ScaleMode.RUNTIME:
            terms.append(f"weigh({local_name('r_', term)}, scales[{k}])")
        else:
            weight = term.scale * plan.reward_multiplier
            factor = "" if weight == 1.0 else f" * {literal(weight)}"
            terms.append(f"{local_name('r_', term)}{factor}")
    lines.append("rew = 0.0")
    lines += [f"rew += {t}" for t in terms]
    lines.append("out_reward[i] = rew")
    lines += [f"#LOG log_{k} += {local_name('r_', t)}" for k, t in enumerate(rewards)]
    return lines


def _termination_lines(plan: ResolvedPlan) -> list[str]:
    terms = plan.active(TermKind.TERMINATION)
    lines = [f"{local_name('d_', t)} = {t.code().value}" for t in terms]
    expr = " | ".join(f"{local_name('d_', t)}" for t in terms) or "False"
    return [*lines, f"out_terminated[i] = {expr}"]


def _observation_writes(plan: ResolvedPlan) -> dict[str, list[str]]:
    """Obs copy lines per stage: per-axis sources inside their loop, others after loops."""
    writes: dict[str, list[str]] = {}
    for term in plan.active(TermKind.OBSERVATION):
        mult = float(term.param_map.get("multiplier", 1.0))
        offset = term.offset
        for source in plan.term_sources(term.name):
            stage, lines = _copy_lines(plan, source, f"out_{term.group}", offset, mult)
            writes.setdefault(stage, []).extend(lines)
            offset += source.width
    return writes


def _copy_lines(
    plan: ResolvedPlan, source: VectorSource, out: str, offset: int, mult: float
) -> tuple[str, list[str]]:
    factor = "" if mult == 1.0 else f" * {literal(mult)}"
    if source.axis is None:
        lines = [
            f"{out}[i, {offset + c}] = {source.element.format(c=c)}{factor}"
            for c in range(source.width)
        ]
        return POST_STAGE, lines
    axis = next(a for a in plan.axes if a.name == source.axis)
    stride = f"{axis.var}" if source.per_iter == 1 else f"{source.per_iter} * {axis.var}"
    lines = [
        f"{out}[i, {offset + c} + {stride}] = {source.element.format(c=c)}{factor}"
        for c in range(source.per_iter)
    ]
    return f"loop:{axis.name}", lines
