"""Term contracts: names, shapes, dtypes and parameter kinds are validated when declared."""

from __future__ import annotations

import math

import numpy as np
import pytest

from termplan.errors import TermPlanError
from termplan.spec import (
    Axis,
    InputSpec,
    NumpyContext,
    ParamKind,
    ParamSpec,
    TermConfig,
    TermDefinition,
    TermKind,
    VectorSource,
    fragment,
)


def _zeros(ctx: NumpyContext) -> np.ndarray:
    return np.zeros(ctx.num_envs)


def test_input_spec_width_and_checks() -> None:
    """Inputs know their per-env width; bad names, dims and dtypes are rejected."""
    assert InputSpec("q", (14, 3), "float32").width == 42
    assert InputSpec("h", (), "float32").width == 1
    with pytest.raises(TermPlanError, match="identifier"):
        InputSpec("Bad-Name", (3,), "float32")
    with pytest.raises(TermPlanError, match="positive"):
        InputSpec("q", (0,), "float32")
    with pytest.raises(TermPlanError, match="numeric or bool"):
        InputSpec("q", (3,), "U4")


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        (ParamKind.FLOAT, 2, 2.0),
        (ParamKind.INT, 3.0, 3),
        (ParamKind.BOOL, np.bool_(True), True),
        (ParamKind.FLOATS, [1, 2.5], (1.0, 2.5)),
        (ParamKind.FLOATS, np.array([0.5, 1.5], np.float32), (0.5, 1.5)),
        (ParamKind.FLOAT, np.float32(0.5), 0.5),
        (ParamKind.INTS, (3, 6), (3, 6)),
    ],
)
def test_param_coerce_accepts(kind: ParamKind, value: object, expected: object) -> None:
    """Parameters become canonical Python values (they are baked as literals)."""
    assert ParamSpec("p", kind).coerce("t", value) == expected


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        (ParamKind.FLOAT, math.nan),
        (ParamKind.FLOAT, "x"),
        (ParamKind.INT, 2.5),
        (ParamKind.INT, True),
        (ParamKind.BOOL, 1),
        (ParamKind.FLOATS, (1.0, math.inf)),
        (ParamKind.FLOAT, "0.25"),  # float() took strings
        (ParamKind.FLOAT, True),  # ... and bools (1.0)
        (ParamKind.FLOATS, "123"),  # ... and a string as (1.0, 2.0, 3.0)
        (ParamKind.FLOATS, {1.0: 2.0}),  # ... and a dict as its keys
        (ParamKind.FLOATS, (1.0, "2")),
        (ParamKind.INTS, "12"),
    ],
)
def test_param_coerce_rejects(kind: ParamKind, value: object) -> None:
    """Non-finite, fractional or mistyped parameters fail with the parameter's name."""
    with pytest.raises(TermPlanError, match="parameter 'p'"):
        ParamSpec("p", kind).coerce("t", value)


@pytest.mark.parametrize("value", [math.nan, (1.0, math.inf)])
def test_non_finite_parameter_says_so(value: object) -> None:
    """The "must be finite" error is not swallowed into "expected float, got nan"."""
    kind = ParamKind.FLOAT if isinstance(value, float) else ParamKind.FLOATS
    with pytest.raises(TermPlanError, match="parameter 'p' must be finite"):
        ParamSpec("p", kind).coerce("t", value)


def test_definition_requires_emit_and_sources() -> None:
    """Rewards need generated code; observations need a source; keys are validated."""
    with pytest.raises(TermPlanError, match="need emit"):
        TermDefinition("a.reward.x.v1", TermKind.REWARD, (), _zeros)
    with pytest.raises(TermPlanError, match="need sources"):
        TermDefinition("a.obs.x.v1", TermKind.OBSERVATION, (), _zeros)
    with pytest.raises(TermPlanError, match="dotted"):
        TermDefinition("A B", TermKind.PREAMBLE, (), _zeros)
    with pytest.raises(TermPlanError, match="duplicate parameter"):
        p = ParamSpec("s", ParamKind.FLOAT)
        TermDefinition("a.pre.v1", TermKind.PREAMBLE, (), _zeros, (p, p))


def test_fragment_builder_maps_stages() -> None:
    """``loop_<axis>`` keywords become ``loop:<axis>`` stages; strings become one line."""
    frag = fragment("acc", env="acc = 0.0", loop_joint=("x = 1.0", "acc += x"))
    assert frag.stage_lines("env") == ("acc = 0.0",)
    assert frag.stage_lines("loop:joint") == ("x = 1.0", "acc += x")
    assert frag.stage_lines("post") == ()


def test_axis_and_config() -> None:
    """Axes need a positive extent; configs are hashable (plans are cached by value)."""
    with pytest.raises(TermPlanError, match="extent"):
        Axis("joint", 0, "j")
    a = TermConfig("x", "k.v1", 1.0, {"s": 1.0})
    assert hash(a) == hash(TermConfig("x", "k.v1", 1.0, {"s": 1.0}))


@pytest.mark.parametrize(("width", "per_iter"), [(-4, -1), (0, 1), (3, 0), (2.0, 1), (True, 1)])
def test_vector_source_needs_positive_integer_widths(width: object, per_iter: object) -> None:
    """A width of -4 with per_iter -1 passed the axis check (4 x -1) and gave an offset that
    overwrote the previous observation's columns."""
    with pytest.raises(TermPlanError, match="must be an integer >= 1"):
        VectorSource("bad", width, "x", axis="joint", per_iter=per_iter)  # type: ignore[arg-type]
    with pytest.raises(TermPlanError, match="identifier"):
        VectorSource("Bad-Name", 3, "x")
