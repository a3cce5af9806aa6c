"""Names the generated kernels bind themselves: plan code may not assign them."""

from __future__ import annotations

import ast
from dataclasses import replace

import numpy as np
import pytest
import tp_toy

from termplan.codegen import ScaleMode, generate_source
from termplan.errors import TermPlanError
from termplan.names import (
    KERNEL_LOCALS,
    RESERVED_PREFIXES,
    assigned_names,
    check_fragment,
    why_reserved,
)
from termplan.plan import ResolvedPlan, resolve_plan, variable_stem
from termplan.spec import TermCode, TermConfig, TermDefinition, TermKind, fragment
from termplan.tasks.g1_walk.config import check_default_angles
from termplan.tasks.g1_walk.profiles import resolve_profile
from termplan.tasks.g1_walk.terms import build_plan as g1_plan
from termplan.tasks.motion_tracking.profiles import resolve_profile as motion_profile
from termplan.tasks.motion_tracking.terms import build_plan as motion_plan


def _plan_with_fragment(name: str, line: str | None = None) -> ResolvedPlan:
    """The toy plan plus a reward reading a fragment ``name`` (the reviewer's case)."""
    reg = tp_toy.make_registry()
    loop = line or f"{name} += 1.0 if abs(dq) > 0.1 else 0.0"
    reg.add_fragment(fragment(name, needs=("dq",), env=f"{name} = 0.0", loop_joint=loop))
    reg.register(
        TermDefinition(
            "toy.reward.count.v1",
            TermKind.REWARD,
            (tp_toy.Q,),
            lambda c: np.zeros(1),
            emit=lambda p: TermCode(needs=(name,), value=name),
        )
    )
    configs = [*tp_toy.configs(), TermConfig("deviating", "toy.reward.count.v1", -1.0)]
    return resolve_plan(reg, configs, ("obs",), 0.02)


@pytest.mark.parametrize("name", ["count", "lo", "tid", "lane", "cells", "rew", "n", "i", "j"])
def test_a_fragment_named_like_a_kernel_variable_is_refused(name: str) -> None:
    """``count`` shortened every lane loop, ``lo`` shifted the row index, ``tid`` picked
    another thread's scratch: silently wrong rewards. Now refused when resolved."""
    with pytest.raises(TermPlanError, match=f"binds {name!r}"):
        _plan_with_fragment(name)


@pytest.mark.parametrize(
    ("line", "target"),
    [
        ("lane = dq", "lane"),
        ("tmp, lo = dq, dq", "lo"),
        ("out_obs = dq", "out_obs"),
        ("np = dq", "np"),
        ("min = dq", "min"),
        ("r_track = dq", "r_track"),  # the value of the reward term "track"
        ("C_Q0 = dq", "C_Q0"),  # a constant of the plan
    ],
)
def test_a_fragment_line_binding_a_reserved_name_is_refused(line: str, target: str) -> None:
    with pytest.raises(TermPlanError, match=f"binds {target!r}"):
        _plan_with_fragment("deviation_sum", line)


def test_ordinary_names_pass() -> None:
    plan = _plan_with_fragment("deviation_sum", "deviation_sum += dq * dq")
    assert any(f.name == "deviation_sum" for f in plan.fragments)
    assert why_reserved("pose_sum") is None and why_reserved("d_rate_sum") is None
    assert assigned_names("a, b = 1, 2") == ("a", "b")
    assert assigned_names("x **= 2") == ("x",) and assigned_names("x == 2") == ()
    assert assigned_names("for b in range(3):") == ("b",)
    check_fragment("ok", ["ok = 1.0", "ok += 2.0"], ("j",), {"C_X"})


@pytest.mark.parametrize("group", ["reward", "terminated", "logs"])
def test_a_group_named_like_a_fixed_output_is_refused(group: str) -> None:
    """Its ``out_<group>`` argument repeated ``out_reward`` (a SyntaxError at import)."""
    configs = [replace(c, group=group) if c.group else c for c in tp_toy.configs()]
    with pytest.raises(TermPlanError, match=f"group {group!r}"):
        resolve_plan(tp_toy.make_registry(), configs, (group,), 0.02)


def _plans() -> list[ResolvedPlan]:
    """Tiled kernels (toy, G1) and one-loop kernels (Motion)."""
    g1 = g1_plan(resolve_profile("sac_default", None), True, check_default_angles(None))
    motion = motion_plan(motion_profile("full_supported"), True)
    return [tp_toy.make_plan(), g1, motion]


@pytest.mark.parametrize("mode", list(ScaleMode))
def test_every_name_the_generated_kernels_bind_is_reserved(mode: ScaleMode) -> None:
    """Parse the generated modules: a name a kernel binds is a fragment's, a term value's,
    or listed in :mod:`termplan.names`. A new kernel variable that is not listed there
    fails this test (and could be silently overwritten by plan code)."""
    for plan in _plans():
        fragment_names = {f.name for f in plan.fragments}
        fragment_names |= {
            n for f in plan.fragments for _, lines in f.lines for ln in lines
            for n in assigned_names(ln)
        }  # fmt: skip
        terms = {p + variable_stem(t.name) for t in plan.terms for p in ("r_", "d_")}
        axes = {a.var for a in plan.axes}
        tree = ast.parse(generate_source(plan, mode).text)
        for func in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            bound = {a.arg for a in func.args.args}
            bound |= {
                n.id for n in ast.walk(func)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }  # fmt: skip
            stray = {
                b for b in bound - fragment_names - terms - axes - KERNEL_LOCALS
                if not b.startswith(RESERVED_PREFIXES)
            }  # fmt: skip
            assert not stray, f"{plan.task} {func.name}: unreserved names {sorted(stray)}"
