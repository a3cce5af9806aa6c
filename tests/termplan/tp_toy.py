"""A small toy plan shared by the term-plan infrastructure tests (4 joints, 3 rewards)."""

from __future__ import annotations

import numpy as np

from termplan.plan import ResolvedPlan, resolve_plan
from termplan.registry import TermRegistry
from termplan.spec import (
    Axis,
    Constant,
    InputSpec,
    NumpyContext,
    ParamKind,
    ParamSpec,
    TermCode,
    TermConfig,
    TermDefinition,
    TermKind,
    VectorSource,
    fragment,
)

J = 4
Q0 = (0.1, -0.1, 0.2, 0.0)
VEL = InputSpec("vel", (3,), "float32")
Q = InputSpec("q", (J,), "float32", axis="joint")
ACT = InputSpec("act", (J,), "float32", axis="joint")
LAST = InputSpec("last", (J,), "float32", axis="joint")
HEIGHT = InputSpec("height", (), "float32")


def _dq(ctx: NumpyContext) -> np.ndarray:
    return ctx.inputs["q"] - np.asarray(Q0, np.float32)


def _track(ctx: NumpyContext) -> np.ndarray:
    err = (ctx.inputs["vel"][:, 0].astype(np.float64) - 1.0) ** 2
    return np.exp(-err / ctx.params["sigma"])


def _pose(ctx: NumpyContext) -> np.ndarray:
    return np.sum(_dq(ctx).astype(np.float64) ** 2, axis=1)


def _rate(ctx: NumpyContext) -> np.ndarray:
    diff = ctx.inputs["act"].astype(np.float64) - ctx.inputs["last"]
    return np.sum(diff**2, axis=1)


def _low(ctx: NumpyContext) -> np.ndarray:
    return ~(ctx.inputs["height"].astype(np.float64) >= ctx.params["min_height"])


def make_registry() -> TermRegistry:
    """Registry of the toy task."""
    reg = TermRegistry("toy", axes=(Axis("joint", J, "j"),))
    reg.add_fragment(
        fragment(
            "dq",
            inputs=("q",),
            constants=(Constant("C_Q0", Q0, "float32"),),
            loop_joint="dq = in_q[i, j] - C_Q0[j]",
        )
    )
    reg.add_fragment(
        fragment("pose_sum", needs=("dq",), env="pose_sum = 0.0", loop_joint="pose_sum += dq * dq")
    )
    reg.add_fragment(
        fragment(
            "rate_sum",
            inputs=("act", "last"),
            env="rate_sum = 0.0",
            loop_joint=("da = in_act[i, j] - in_last[i, j]", "rate_sum += da * da"),
        )
    )
    reg.add_source(VectorSource("dq", J, "dq", axis="joint", needs=("dq",)))
    sigma = ParamSpec("sigma", ParamKind.FLOAT, 0.25)
    reg.register(
        TermDefinition(
            "toy.reward.track.v1",
            TermKind.REWARD,
            (VEL,),
            _track,
            (sigma,),
            emit=lambda p: TermCode(
                value=f"np.exp(-((in_vel[i, 0] - 1.0) ** 2) / {p['sigma']!r})",
                inputs=("vel",),
            ),
        )
    )
    reg.register(
        TermDefinition(
            "toy.reward.pose.v1",
            TermKind.REWARD,
            (Q,),
            _pose,
            emit=lambda p: TermCode(needs=("pose_sum",), value="pose_sum"),
        )
    )
    reg.register(
        TermDefinition(
            "toy.reward.rate.v1",
            TermKind.REWARD,
            (ACT, LAST),
            _rate,
            emit=lambda p: TermCode(needs=("rate_sum",), value="rate_sum"),
        )
    )
    reg.register(
        TermDefinition(
            "toy.termination.low.v1",
            TermKind.TERMINATION,
            (HEIGHT,),
            _low,
            (ParamSpec("min_height", ParamKind.FLOAT, 0.5),),
            emit=lambda p: TermCode(
                value=f"not (float(in_height[i]) >= {p['min_height']!r})", inputs=("height",)
            ),
        )
    )
    for name, spec in (("vel", VEL), ("act", ACT)):
        reg.register(_copy(name, spec.name, lambda ctx, s=spec.name: ctx.inputs[s]))
    reg.register(_copy("dq", "dq", _dq))
    return reg


def _copy(label: str, source: str, fn: object) -> TermDefinition:
    def numpy_fn(ctx: NumpyContext) -> np.ndarray:
        return fn(ctx) * ctx.params["multiplier"]  # type: ignore[operator]

    return TermDefinition(
        f"toy.observation.{label}.v1",
        TermKind.OBSERVATION,
        (VEL, Q, ACT) if label == "vel" else (Q, ACT),
        numpy_fn,
        (ParamSpec("multiplier", ParamKind.FLOAT, 1.0),),
        sources=(source,),
    )


def configs(rate_scale: float = -0.5, sigma: float = 0.25) -> list[TermConfig]:
    """The toy plan's entries (``rate_scale=0`` makes the rate term dead)."""
    return [
        TermConfig("track", "toy.reward.track.v1", 2.0, {"sigma": sigma}),
        TermConfig("pose", "toy.reward.pose.v1", -0.1),
        TermConfig("rate", "toy.reward.rate.v1", rate_scale),
        TermConfig("low", "toy.termination.low.v1", 1.0, {"min_height": 0.5}),
        TermConfig("obs_vel", "toy.observation.vel.v1", 1.0, {"multiplier": 0.5}, "obs"),
        TermConfig("obs_dq", "toy.observation.dq.v1", 1.0, {}, "obs"),
        TermConfig("obs_act", "toy.observation.act.v1", 1.0, {}, "obs"),
    ]


def make_plan(rate_scale: float = -0.5, sigma: float = 0.25) -> ResolvedPlan:
    """The toy plan resolved (ctrl_dt 0.02)."""
    return resolve_plan(make_registry(), configs(rate_scale, sigma), ("obs",), 0.02)


def make_inputs(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded toy inputs."""
    rng = np.random.default_rng(seed)
    return {
        "vel": rng.normal(1.0, 0.3, (n, 3)).astype(np.float32),
        "q": rng.normal(0.0, 0.2, (n, J)).astype(np.float32),
        "act": rng.normal(0.0, 0.2, (n, J)).astype(np.float32),
        "last": rng.normal(0.0, 0.2, (n, J)).astype(np.float32),
        "height": rng.normal(0.6, 0.1, n).astype(np.float32),
    }
