"""Plan resolution (validation, layout, dead-term elimination) and the NumPy plan runtime."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tp_toy

from termplan.errors import TermPlanError
from termplan.plan import PlanNumpyRuntime, resolve_plan
from termplan.spec import TermConfig, TermKind


def test_layout_offsets_and_active_set() -> None:
    """Observation offsets follow config order; zero-scale terms leave the active set."""
    plan = tp_toy.make_plan(rate_scale=0.0)
    assert plan.group_width("obs") == 3 + 4 + 4
    assert [(t.name, t.offset) for t in plan.active(TermKind.OBSERVATION)] == [
        ("obs_vel", 0),
        ("obs_dq", 3),
        ("obs_act", 7),
    ]
    assert [t.name for t in plan.active(TermKind.REWARD)] == ["track", "pose"]


def test_dead_term_inputs_are_not_read() -> None:
    """An input only a zero-scale term reads is not bound at all."""
    live = [s.name for s in tp_toy.make_plan().inputs]
    dead = [s.name for s in tp_toy.make_plan(rate_scale=0.0).inputs]
    assert "last" in live
    assert "last" not in dead
    assert "rate_sum" not in [f.name for f in tp_toy.make_plan(rate_scale=0.0).fragments]


def _resolve(configs: list[TermConfig]) -> None:
    resolve_plan(tp_toy.make_registry(), configs, ("obs",), 0.02)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (TermConfig("x", "toy.reward.nope.v1", 1.0), "unknown in toy"),
        (TermConfig("x", "toy.reward.pose.v1", math.nan), "finite"),
        (TermConfig("x", "toy.reward.pose.v1", math.inf), "finite"),
        (TermConfig("x", "toy.reward.pose.v1", True), "scale must be a number, got True"),
        (TermConfig("x", "toy.reward.pose.v1", "1"), "scale must be a number, got '1'"),
        (TermConfig("x", "toy.termination.low.v1", 0.5), "must be 0 or 1"),
        (TermConfig("x", "toy.reward.track.v1", 1.0, {"sgima": 1.0}), "unknown parameters"),
        (TermConfig("x", "toy.observation.vel.v1", 1.0, {}, "critic"), "group 'critic'"),
    ],
)
def test_bad_configs_raise(config: TermConfig, message: str) -> None:
    """Each rule of the issue text gives a TermPlanError naming the term."""
    with pytest.raises(TermPlanError, match=message):
        _resolve([config])


def test_duplicate_names_raise() -> None:
    """Two entries may not share a name."""
    entry = TermConfig("pose", "toy.reward.pose.v1", 1.0)
    with pytest.raises(TermPlanError, match="duplicate name"):
        _resolve([entry, entry])


def test_names_that_generate_the_same_variable_raise() -> None:
    """The generator spells ``.`` as ``__``: 't.x' and 't__x' would share ``r_t__x``, and
    the second would silently overwrite the first in the kernel."""
    a = TermConfig("t.x", "toy.reward.track.v1", 2.0)
    b = TermConfig("t__x", "toy.reward.pose.v1", -0.1)
    with pytest.raises(TermPlanError, match="'t__x': same generated name as 't.x'"):
        _resolve([a, b])


def test_required_parameter() -> None:
    """A parameter without default must be given."""
    from termplan.tasks.g1_walk.terms import make_registry

    with pytest.raises(TermPlanError, match="'max_tilt_rad' is required"):
        resolve_plan(
            make_registry(), [TermConfig("t", "g1.walk.termination.tilt_or_height.v1")], ()
        )


def test_numpy_runtime_matches_formulas() -> None:
    """The NumPy runtime combines terms as ``dt * sum_k s_k f_k`` and logs ``mean(s_k f_k)``."""
    n = 33
    plan = tp_toy.make_plan()
    rt = PlanNumpyRuntime(plan, n)
    x = tp_toy.make_inputs(n)
    logs = rt.execute(x, log=True)
    vel = x["vel"][:, 0].astype(np.float64)
    track = np.exp(-((vel - 1.0) ** 2) / 0.25)
    dq = (x["q"] - np.asarray(tp_toy.Q0, np.float32)).astype(np.float64)
    pose = np.sum(dq * dq, axis=1)
    da = x["act"].astype(np.float64) - x["last"]
    rate = np.sum(da * da, axis=1)
    want = 0.02 * (2.0 * track - 0.1 * pose - 0.5 * rate)
    np.testing.assert_allclose(rt.outputs.reward, want, rtol=1e-6)
    np.testing.assert_allclose(logs["reward/pose"], np.mean(-0.1 * pose), rtol=1e-12)
    np.testing.assert_array_equal(rt.outputs.terminated, ~(x["height"] >= 0.5))
    np.testing.assert_allclose(rt.outputs.groups["obs"][:, :3], x["vel"] * 0.5, rtol=1e-7)
    assert rt.execute(x, log=False) == {}


def test_numpy_runtime_checks_inputs_and_scales() -> None:
    """Missing or mis-shaped inputs are ValueErrors; set_scale only for active rewards."""
    rt = PlanNumpyRuntime(tp_toy.make_plan(rate_scale=0.0), 4)
    x = tp_toy.make_inputs(4)
    with pytest.raises(ValueError, match="input 'q'"):
        rt.execute({**x, "q": x["q"][:, :3]}, log=False)
    with pytest.raises(ValueError, match="'height': missing"):
        rt.execute({k: v for k, v in x.items() if k != "height"}, log=False)
    with pytest.raises(TermPlanError, match="not an active reward"):
        rt.set_scale("rate", 1.0)
    rt.set_scale("pose", 0.0)
    rt.execute(x, log=False)
