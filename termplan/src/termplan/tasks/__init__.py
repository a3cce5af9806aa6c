"""Task registry: look tasks up by name and build a hot slice for a path.

Every task package (``termplan.tasks.<name>``) has the same modules (see
:class:`~termplan.tasks.base.TaskSpec`) and exports, from its declared ``TASK`` spec:

* ``TASK``: the :class:`~termplan.tasks.base.TaskSpec`;
* ``PROFILES``: the benchmark profile names, a tuple in report order;
* ``PATHS``: the path names it implements (a subset of :data:`base.PATHS`);
* ``make_batch(num_envs, seed=0, profile=None)``: the deterministic synthetic batch;
* ``build(profile, num_envs, path, **options) -> HotSlice`` and ``profile_names()``.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from termplan.tasks.base import PATHS, HotSlice, StepOutputs

TASKS: tuple[str, ...] = ("g1_walk", "motion_tracking")

__all__ = ["PATHS", "TASKS", "HotSlice", "StepOutputs", "build", "make_batch", "task_module"]


def task_module(task: str) -> ModuleType:
    """Import the package of ``task``; an unknown name is a ValueError listing the known ones."""
    if task not in TASKS:
        raise ValueError(f"task {task!r}: expected one of {', '.join(TASKS)}")
    return importlib.import_module(f"termplan.tasks.{task}")


def build(task: str, profile: str, num_envs: int, path: str, **options: Any) -> HotSlice:
    """Build the hot slice of ``task`` x ``profile`` x ``path`` for ``num_envs`` envs."""
    module = task_module(task)
    if path not in module.PATHS:
        raise ValueError(f"path {path!r}: task {task!r} offers {', '.join(module.PATHS)}")
    hot_slice: HotSlice = module.build(profile, num_envs, path, **options)
    return hot_slice


def make_batch(task: str, num_envs: int, seed: int = 0, profile: str | None = None) -> Any:
    """The deterministic synthetic batch of ``task`` (see the task's ``make_batch``)."""
    return task_module(task).make_batch(num_envs, seed=seed, profile=profile)
