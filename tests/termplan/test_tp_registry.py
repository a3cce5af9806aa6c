"""The registry: keys are unique, lookups of unknown names say what exists."""

from __future__ import annotations

import numpy as np
import pytest
import tp_toy

from termplan.errors import TermPlanError
from termplan.registry import TermRegistry
from termplan.spec import (
    Axis,
    InputSpec,
    NumpyContext,
    TermCode,
    TermDefinition,
    TermKind,
    VectorSource,
    fragment,
)


def _fn(ctx: NumpyContext) -> np.ndarray:
    return np.zeros(ctx.num_envs)


def _reward(key: str, *inputs: InputSpec) -> TermDefinition:
    return TermDefinition(key, TermKind.REWARD, inputs, _fn, emit=lambda p: TermCode(value="0.0"))


def test_duplicate_key_is_rejected() -> None:
    """A key is registered once; a new formula gets a new version instead."""
    reg = TermRegistry("t")
    reg.register(_reward("t.reward.a.v1"))
    with pytest.raises(TermPlanError, match="already registered"):
        reg.register(_reward("t.reward.a.v1"))


def test_unknown_key_lists_known_keys() -> None:
    """The error names the unknown key and the known ones."""
    reg = tp_toy.make_registry()
    with pytest.raises(TermPlanError, match=r"unknown in toy; known: .*toy\.reward\.pose\.v1"):
        reg.resolve("toy.reward.nope.v1")


def test_conflicting_input_specs_are_rejected() -> None:
    """Two terms may share an input only with the same shape and dtype."""
    reg = TermRegistry("t")
    reg.register(_reward("t.reward.a.v1", InputSpec("x", (3,), "float32")))
    with pytest.raises(TermPlanError, match="conflicting specs"):
        reg.register(_reward("t.reward.b.v1", InputSpec("x", (3,), "float64")))


def test_fragment_and_source_checks() -> None:
    """Fragments are unique by name; a per-axis source must tile its axis."""
    reg = TermRegistry("t", axes=(Axis("joint", 4, "j"),))
    reg.add_fragment(fragment("dq", loop_joint="dq = 1.0"))
    with pytest.raises(TermPlanError, match="different code"):
        reg.add_fragment(fragment("dq", loop_joint="dq = 2.0"))
    with pytest.raises(TermPlanError, match="width 5"):
        reg.add_source(VectorSource("s", 5, "x", axis="joint"))
    with pytest.raises(TermPlanError, match="unknown"):
        reg.axis("body")


def test_inputs_are_sources() -> None:
    """An input copies at env level, or inside its axis loop when it has one."""
    reg = tp_toy.make_registry()
    assert reg.source("vel").element == "in_vel[i, {c}]"
    q = reg.source("q")
    assert (q.axis, q.per_iter, q.element) == ("joint", 1, "in_q[i, j]")
    with pytest.raises(TermPlanError, match="neither"):
        reg.source("missing")
