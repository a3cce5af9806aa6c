"""Every task x path rejects bad construction arguments the same way: a ValueError that names
the argument, the value given and what was expected (never a TypeError from deep inside)."""

from __future__ import annotations

import numpy as np
import pytest

from termplan import tasks
from termplan.tasks.g1_walk.config import NoiseConfig as G1Noise
from termplan.tasks.motion_tracking.config import NoiseConfig as MotionNoise
from termplan.threads import max_threads

CASES = [(task, path) for task in tasks.TASKS for path in tasks.task_module(task).PATHS]
NOISE = {"g1_walk": G1Noise, "motion_tracking": MotionNoise}


@pytest.mark.parametrize(("task", "path"), CASES)
@pytest.mark.parametrize("bad", [0, -1, True, 2.5, "8"])
def test_bad_num_envs(task: str, path: str, bad: object) -> None:
    with pytest.raises(ValueError, match="num_envs: expected a positive int") as info:
        tasks.build(task, "sac_default", bad, path)  # type: ignore[arg-type]
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize(("task", "path"), CASES)
@pytest.mark.parametrize("bad", [0, 10_000, True, 1.5, "2"])
def test_bad_num_threads(task: str, path: str, bad: object) -> None:
    """Also on the NumPy path, which runs single-threaded: a bad value is never ignored."""
    with pytest.raises(ValueError, match=rf"num_threads: .* 1\.\.{max_threads()}"):
        tasks.build(task, "sac_default", 4, path, num_threads=bad)


@pytest.mark.numba
@pytest.mark.parametrize(("task", "path"), CASES)
def test_numpy_integer_sizes_are_accepted(task: str, path: str) -> None:
    """Sizes computed with NumPy (np.int64) build the same slice as plain ints."""
    hot = tasks.build(task, "sac_default", np.int64(4), path, num_threads=np.int64(1))
    assert hot.num_envs == 4 and type(hot.num_envs) is int


@pytest.mark.numba
@pytest.mark.parametrize(("task", "path"), CASES)
def test_noise_of_the_other_task_is_named(task: str, path: str) -> None:
    """Both tasks have a NoiseConfig; passing the wrong one (or a dict) is an error."""
    other = NOISE["motion_tracking" if task == "g1_walk" else "g1_walk"]()
    wanted = f"{NOISE[task].__module__}.NoiseConfig"
    for bad in (other, {"level": 1.0}):
        with pytest.raises(ValueError, match=f"noise: expected {wanted} or None"):
            tasks.build(task, "sac_default", 4, path, noise=bad)
    assert tasks.build(task, "sac_default", 4, path, noise=None).noise == NOISE[task]()


@pytest.mark.parametrize("task", tasks.TASKS)
@pytest.mark.parametrize("bad", [0, True, 3.0])
def test_bad_batch_size(task: str, bad: object) -> None:
    with pytest.raises(ValueError, match="num_envs: expected a positive int"):
        tasks.make_batch(task, bad)  # type: ignore[arg-type]
