"""The task API every hot-slice path implements.

A *hot slice* is one step's reward + termination + actor/critic observation assembly for N
parallel envs. Each task offers the same computation through several *paths* (NumPy,
hand-written Numba, plan-assembled Numba); the benchmark and the parity tests only speak
this API.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import numpy as np

#: Every path name a task may offer, in the order reports list them.
PATHS: tuple[str, ...] = ("numpy", "handwritten", "assembled")

#: Per-term reward logs are produced on steps where ``step % LOG_EVERY == 0`` (upstream: 4).
LOG_EVERY = 4


def available_paths(assembled_module: str) -> tuple[str, ...]:
    """A task's paths: NumPy and hand-written always, "assembled" once its module exists.

    Checked with ``find_spec`` (no import), so asv can benchmark commits that predate the
    assembled path with today's suites.
    """
    paths: tuple[str, ...] = ("numpy", "handwritten")
    if importlib.util.find_spec(assembled_module) is not None:
        paths += ("assembled",)
    return paths


_Config = TypeVar("_Config")


def check_config(name: str, value: object, cls: type[_Config]) -> _Config:
    """``value`` if it is a ``cls``; ``None`` gives ``cls()`` (its defaults).

    Anything else (a dict, or the other task's config class of the same name) is an error
    naming ``name`` and the class wanted, by module, since both tasks have a ``NoiseConfig``.
    """
    if value is None:
        return cls()
    if not isinstance(value, cls):
        raise ValueError(
            f"{name}: expected {cls.__module__}.{cls.__qualname__} or None, "
            f"got {type(value).__module__}.{type(value).__qualname__}"
        )
    return value


def is_log_step(step: int) -> bool:
    """True when per-term logs are due at ``step``."""
    return step % LOG_EVERY == 0


@dataclass
class StepOutputs:
    """What one hot-slice call produces.

    The arrays are owned by the task object and reused call after call (same ``id``), so
    callers copy what they keep. ``logs`` maps ``"reward/<term>"`` to the mean over envs of
    ``scale * term`` (without ``ctrl_dt``), and is empty on non-logging steps.
    """

    reward: np.ndarray  # (N,) float32, already multiplied by ctrl_dt
    terminated: np.ndarray  # (N,) bool
    obs: np.ndarray  # (N, actor_dim) float32
    critic: np.ndarray  # (N, critic_dim) float32
    logs: dict[str, float] = field(default_factory=dict)


class HotSlice(Protocol):
    """One task x profile x path, sized for ``num_envs``; outputs preallocated once."""

    task: str
    profile: str
    path: str
    num_envs: int

    def compute(self, batch: Any, step: int = 0) -> StepOutputs:
        """Run the hot slice on ``batch`` (validated) and return the reused outputs."""
        ...


#: Constructor parameters every path class takes positionally or by name.
_COMMON_PARAMS = ("self", "profile", "num_envs", "num_threads")


def path_class(task: str, path: str, classes: Mapping[str, str]) -> Any:
    """The class implementing ``path`` of ``task``, from ``{path: "module:Class"}``.

    Imported on demand, so a task whose assembled module is absent still builds its other
    paths; an unknown path is a ValueError naming the ones on offer.
    """
    if path not in classes:
        raise ValueError(f"path {path!r}: {task} offers {', '.join(classes)}")
    module, _, name = classes[path].partition(":")
    return getattr(importlib.import_module(module), name)


def build_path(
    task: str,
    classes: Mapping[str, str],
    path: str,
    profile: Callable[[], Any],
    num_envs: int,
    num_threads: int | None,
    options: Mapping[str, Any],
) -> HotSlice:
    """Construct ``path`` of ``task``: the one builder of all tasks.

    Checks in order: the path (``classes``, see :func:`path_class`), then the keyword
    ``options`` (they must be constructor parameters of the path class; anything else is a
    ValueError listing what that path accepts, so a typo never silently does nothing), then
    calls ``profile()`` to resolve the task's profile and constructs the class with it.
    """
    cls = path_class(task, path, classes)
    accepted = [n for n in inspect.signature(cls).parameters if n not in _COMMON_PARAMS]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(f"options {unknown}: path {path!r} accepts {', '.join(accepted)}")
    hot_slice: HotSlice = cls(profile(), num_envs, num_threads=num_threads, **options)
    return hot_slice
