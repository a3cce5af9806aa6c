"""Every task package has the same shape: a declared spec, the same modules, one class per
path named after the task, and the public API the registry and the benchmarks read."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from termplan import tasks
from termplan.tasks.base import PATHS, TaskPath, TaskSpec

#: The modules of every task package (``terms`` is a package of its kinds).
MODULES = (
    "task",
    "config",
    "profiles",
    "batch",
    "terms",
    "terms.inputs",
    "terms.fragments",
    "terms.rewards",
    "terms.termination",
    "terms.observations",
    "numpy_path",
    "handwritten",
    "handwritten_kernel",
    "assembled",
)


@pytest.mark.parametrize("task", tasks.TASKS)
def test_every_task_has_the_same_modules(task: str) -> None:
    for module in MODULES:
        name = f"termplan.tasks.{task}.{module}"
        assert importlib.util.find_spec(name) is not None, f"{name} is missing"


@pytest.mark.parametrize("task", tasks.TASKS)
def test_the_package_exposes_its_declared_spec(task: str) -> None:
    package = tasks.task_module(task)
    spec = importlib.import_module(f"termplan.tasks.{task}.task").TASK
    assert isinstance(spec, TaskSpec) and spec.name == task
    assert package.TASK is spec
    assert package.PATHS == spec.paths == PATHS
    assert isinstance(package.PROFILES, tuple) and package.PROFILES == spec.profiles
    assert package.profile_names() == (*spec.profiles, *spec.owner_variants)
    for name in package.profile_names():
        assert spec.resolve_profile(name).name == name


@pytest.mark.parametrize("task", tasks.TASKS)
@pytest.mark.parametrize("path", PATHS)
def test_each_path_class_derives_from_the_path_base(task: str, path: str) -> None:
    cls = tasks.task_module(task).TASK.path_class(path)
    assert issubclass(cls, TaskPath)
    assert (cls.task, cls.path, cls.spec.name) == (task, path, task)


def test_an_unknown_path_is_named_with_the_offered_ones() -> None:
    spec = tasks.task_module("g1_walk").TASK
    with pytest.raises(ValueError, match="path 'gpu': g1_walk offers numpy, handwritten"):
        spec.path_class("gpu")
