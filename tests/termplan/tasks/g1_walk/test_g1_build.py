"""Building G1 walk hot slices: registry dispatch, errors, reused outputs, logging steps."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from termplan import tasks
from termplan.errors import TermPlanError
from termplan.tasks import g1_walk
from termplan.tasks.g1_walk import HandwrittenG1Walk, NumpyG1Walk, make_batch

pytestmark = pytest.mark.numba("g1_walk")

PATHS = ("numpy", "handwritten")


def test_paths_list_assembled_only_when_its_module_exists() -> None:
    present = importlib.util.find_spec("termplan.tasks.g1_walk.assembled") is not None
    assert ("assembled" in g1_walk.PATHS) is present
    assert g1_walk.PATHS[:2] == PATHS


@pytest.mark.parametrize(
    ("path", "cls"), [("numpy", NumpyG1Walk), ("handwritten", HandwrittenG1Walk)]
)
def test_registry_builds_each_path(path, cls) -> None:
    hot = tasks.build("g1_walk", "sac_default", 8, path, num_threads=1)
    assert isinstance(hot, cls)
    assert (hot.task, hot.profile, hot.path, hot.num_envs) == ("g1_walk", "sac_default", path, 8)
    batch = tasks.make_batch("g1_walk", 8, seed=0, profile="sac_default")
    assert hot.compute(batch).reward.shape == (8,)


def test_unknown_path_and_profile_are_named() -> None:
    with pytest.raises(ValueError, match="'gpu'"):
        g1_walk.build("sac_default", 4, "gpu")
    with pytest.raises(ValueError, match="'sac_fast'"):
        g1_walk.build("sac_fast", 4, "numpy")
    with pytest.raises(ValueError, match="colour"):
        g1_walk.build("sac_default", 4, "numpy", colour="red")


@pytest.mark.parametrize("path", PATHS)
def test_unknown_active_term_is_a_term_plan_error(path) -> None:
    with pytest.raises(TermPlanError, match="'jump_height'"):
        g1_walk.build("sac_default", 4, path, scales={"alive": 1.0, "jump_height": 2.0})
    hot = g1_walk.build("sac_default", 4, path, scales={"alive": 1.0, "jump_height": 0.0})
    assert list(hot.compute(make_batch(4)).logs) == ["reward/alive"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("bad", [0, -1, "8"])
def test_bad_num_envs(path, bad) -> None:
    with pytest.raises(ValueError, match="num_envs"):
        g1_walk.build("sac_default", bad, path)


def test_bad_thread_count() -> None:
    with pytest.raises(ValueError, match="num_threads"):
        g1_walk.build("sac_default", 4, "handwritten", num_threads=0)


@pytest.mark.parametrize("path", PATHS)
def test_outputs_are_reused_and_logs_follow_the_step(path) -> None:
    hot = g1_walk.build("ppo_default", 16, path, num_threads=1)
    first = make_batch(16, seed=0)
    out0 = hot.compute(first, step=0)
    arrays = (out0.reward, out0.terminated, out0.obs, out0.critic)
    reward0, logs0 = out0.reward.copy(), out0.logs
    assert len(logs0) == len(g1_walk.get_profile("ppo_default").active_terms)
    out1 = hot.compute(make_batch(16, seed=1), step=1)
    assert out1 is out0
    assert all(a is b for a, b in zip(arrays, (out1.reward, out1.terminated, out1.obs,
                                               out1.critic), strict=True))  # fmt: skip
    assert out1.logs == {}
    assert not np.array_equal(out1.reward, reward0)
    assert hot.compute(first, step=8).logs == pytest.approx(logs0)
    assert hot.compute(first, step=6).logs == {}


@pytest.mark.parametrize("path", PATHS)
def test_wrong_batch_size_is_rejected(path) -> None:
    hot = g1_walk.build("sac_default", 8, path)
    with pytest.raises(ValueError, match=r"'linvel'.*\(8, 3\)"):
        hot.compute(make_batch(9))
