"""Actor, replay ring, CPU counters, bucket sizes and the window metrics (no physics)."""

from __future__ import annotations

import numpy as np
import pytest

from termplan.collector.actor import HIDDEN, MlpActor
from termplan.collector.cpu import CpuTimes, parse_cpu_line, utilisation_pct
from termplan.collector.loop import ENV_PARTS, PHASES, WindowResult
from termplan.collector.metrics import window_record
from termplan.collector.replay import ReplayRing, Transition
from termplan.collector.row_refresh import bucket_size

pytestmark = pytest.mark.mujoco


def test_actor_matches_a_plain_numpy_forward_pass() -> None:
    actor = MlpActor(5, 7, 3, seed=1)
    obs = np.random.default_rng(0).normal(size=(5, 7)).astype(np.float32)
    (w1, b1), (w2, b2), (w3, b3) = actor.layers
    assert w1.shape == (7, HIDDEN) and w3.shape == (HIDDEN, 3)
    h = np.maximum(obs @ w1 + b1, 0)
    h = np.maximum(h @ w2 + b2, 0)
    expected = np.tanh(h @ w3 + b3)
    out = actor.act(obs)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert actor.act(obs) is out  # preallocated output
    with pytest.raises(ValueError, match="obs"):
        actor.act(obs[:, :6])


def _transition(n: int, value: float, done_rows: list[int]) -> Transition:
    rows = np.array(done_rows, dtype=np.int64)
    done = np.zeros(n, dtype=bool)
    done[rows] = True
    return Transition(
        obs=np.full((n, 2), value, np.float32), critic=np.full((n, 3), value, np.float32),
        action=np.full((n, 1), value, np.float32), reward=np.full(n, value, np.float32),
        next_obs=np.full((n, 2), value + 1, np.float32),
        next_critic=np.full((n, 3), value + 1, np.float32), done=done,
        terminated=done & (np.arange(n) % 2 == 0), done_rows=rows,
        terminal_obs=np.full((rows.size, 2), -9, np.float32),
        terminal_critic=np.full((rows.size, 3), -9, np.float32),
    )  # fmt: skip


def test_replay_ring_wraps_and_keeps_terminal_observations() -> None:
    ring = ReplayRing(2, 4, obs_dim=2, critic_dim=3, action_dim=1)
    for value in (1.0, 2.0, 3.0):
        ring.add(_transition(4, value, [1] if value == 3.0 else []))
    assert ring.size == 2 and ring.cursor == 1
    assert ring.obs[0, 0, 0] == 3.0 and ring.obs[1, 0, 0] == 2.0  # slot 0 overwritten
    assert ring.next_obs[0, 0, 0] == 4.0 and ring.next_obs[0, 1, 0] == -9.0
    assert ring.next_critic[0, 1, 2] == -9.0 and ring.done[0].tolist() == [0, 1, 0, 0]
    assert not ring.terminated[0].any()  # row 1 was done by truncation (odd rows here)
    with pytest.raises(ValueError, match="capacity_steps"):
        ReplayRing(1, 4, 2, 3, 1)
    with pytest.raises(ValueError, match="capacity_steps: expected an int >= 2, got True"):
        ReplayRing(True, 4, 2, 3, 1)
    assert ReplayRing(np.int64(2), 4, 2, 3, 1).capacity_steps == 2  # type: ignore[arg-type]


def test_cpu_line_and_utilisation() -> None:
    times = parse_cpu_line("cpu  100 0 50 800 50 0 0 0 0 0")
    assert times == CpuTimes(busy=150, total=1000)
    assert utilisation_pct(times, CpuTimes(busy=250, total=1200)) == pytest.approx(50.0)
    assert utilisation_pct(None, times) is None
    with pytest.raises(ValueError, match="cpu"):
        parse_cpu_line("intr 1 2 3")


@pytest.mark.parametrize(("rows", "size"), [(1, 1), (2, 2), (3, 4), (5, 8), (512, 512)])
def test_bucket_size(rows: int, size: int) -> None:
    assert bucket_size(rows) == size


def test_window_record_decomposes_the_mean_step() -> None:
    result = WindowResult()
    for k in range(4):
        for name in PHASES:
            result.phases[name].append(10.0 if name == "env_step" else 1.0 + k)
        for name in ENV_PARTS:
            result.env_parts[name].append({"physics": 6.0, "update_state": 2.0}.get(name, 1.0))
    record = window_record(result, num_envs=100)
    step_ms = 10.0 + 4 * 2.5  # env_step + four phases of mean 2.5
    assert record["collector_step_ms"] == pytest.approx(step_ms)
    assert record["steps_per_s"] == pytest.approx(100 / (step_ms * 1e-3))
    assert record["other_ms"] == pytest.approx(step_ms - 6.0 - 2.0)
    assert record["update_state_share_pct"] == pytest.approx(100 * 2.0 / step_ms)
    assert record["action_select_median_ms"] == pytest.approx(2.5)
    with pytest.raises(ValueError, match="measured step"):
        window_record(WindowResult(), 1)


def test_refresher_buckets_are_built_before_any_step() -> None:
    """Every bucket up to bucket_size(N) exists once an env is built: no hot slice is
    constructed inside a measured step."""
    from termplan.collector.g1_env import G1WalkEnv

    env = G1WalkEnv("sac_default", 6, "handwritten", physics_threads=1, numba_threads=1)
    try:
        assert sorted(env.refresher._slices) == [1, 2, 4, 8]
    finally:
        env.close()


def test_replay_ring_refuses_transitions_whose_rows_do_not_fit() -> None:
    """A one-row transition filled all four rows of the slot (np.copyto broadcasts)."""
    from dataclasses import replace

    ring = ReplayRing(2, 4, obs_dim=2, critic_dim=3, action_dim=1)
    with pytest.raises(ValueError, match="transition obs: expected 4 rows"):
        ring.add(_transition(1, 1.0, []))
    short = replace(_transition(4, 1.0, [1, 2]), terminal_obs=np.zeros((1, 2), np.float32))
    with pytest.raises(ValueError, match="terminal_obs: expected one row per done row"):
        ring.add(short)
    assert ring.size == 0  # nothing was written
