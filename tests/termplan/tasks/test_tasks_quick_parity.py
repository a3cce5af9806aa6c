"""The quick gate's parity (``quick_parity_command`` in ``[tool.perfgate]``): every path of
every task against NumPy for exactly the cases the quick grid measures (profile
``sac_default``, one thread), so that the quick gate compiles no kernel its benchmarks do
not run. Sizes 1, 7 and 512 and the grid's 2048, two seeds, noise off and on, a logging and
a plain step; the project's tolerances (README, *Numerics*). Every profile, size and thread
count is checked by the full suite (``make test-all``).

Each (task, compiled path) is its own xdist group, so on two or more workers the slowest
compile (the hand-written G1 kernel) runs beside the others instead of before them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hot_slices import SESSION

from termplan import tasks
from termplan.tasks.base import StepOutputs

PROFILE = "sac_default"
#: (reward rtol, reward atol, obs rtol/atol, logs rtol, logs atol) per task.
TOLERANCES = {
    "g1_walk": (5e-5, 5e-5, 1e-6, 5e-5, 5e-5),
    "motion_tracking": (1e-4, 1e-5, 1e-5, 1e-3, 1e-6),
}
CASES = [
    pytest.param(task, path, marks=pytest.mark.numba(f"{task}-{path}"), id=f"{task}-{path}")
    for task in tasks.TASKS
    for path in ("handwritten", "assembled")
]


def _noise(task: str, on: bool) -> object:
    config = tasks.task_module(task).NoiseConfig
    return config(level=1.0) if on else config()


def _agree(task: str, ref: StepOutputs, got: StepOutputs) -> None:
    r_rtol, r_atol, obs_tol, l_rtol, l_atol = TOLERANCES[task]
    np.testing.assert_allclose(got.reward, ref.reward, rtol=r_rtol, atol=r_atol)
    np.testing.assert_array_equal(got.terminated, ref.terminated)
    np.testing.assert_allclose(got.obs, ref.obs, rtol=obs_tol, atol=obs_tol)
    np.testing.assert_allclose(got.critic, ref.critic, rtol=obs_tol, atol=obs_tol)
    assert got.logs.keys() == ref.logs.keys()
    for key, value in ref.logs.items():
        assert got.logs[key] == pytest.approx(value, rel=l_rtol, abs=l_atol), key


@pytest.mark.parametrize(("task", "path"), CASES)
@pytest.mark.parametrize("num_envs", [1, 7, 512, 2048])
@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("noisy", [False, True])
def test_quick_grid_paths_agree_with_numpy(
    task: str, path: str, num_envs: int, seed: int, noisy: bool
) -> None:
    """Step 0 (a logging step) and step 1 of the path agree with NumPy's."""
    module = tasks.task_module(task)
    noise = _noise(task, noisy)
    batch = module.make_batch(num_envs, seed=seed, profile=PROFILE)
    module.draw_noise(batch, np.random.default_rng(seed + 100), noise)
    ref = SESSION.get(task, PROFILE, num_envs, "numpy", num_threads=1, noise=noise)
    got = SESSION.get(task, PROFILE, num_envs, path, num_threads=1, noise=noise)
    for step in (0, 1):
        expected = ref.compute(batch, step)
        snapshot = StepOutputs(
            expected.reward.copy(), expected.terminated.copy(), expected.obs.copy(),
            expected.critic.copy(), dict(expected.logs),
        )  # fmt: skip
        _agree(task, snapshot, got.compute(batch, step))
        assert bool(snapshot.logs) == (step == 0)
