"""The task API every hot-slice path implements.

A *hot slice* is one step's reward + termination + actor/critic observation assembly for N
parallel envs. Each task offers the same computation through several *paths* (NumPy,
hand-written Numba, plan-assembled Numba); the benchmark and the parity tests only speak
this API.

A task declares itself once, as a :class:`TaskSpec` (its ``task.py``); every path class
derives from :class:`TaskPath`, whose :meth:`TaskPath._setup` is the one constructor preamble
(profile, size, thread count, noise) of all paths of all tasks.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np

from termplan.arrays import check_count
from termplan.threads import check_num_threads

#: Every path name a task may offer, in the order reports list them.
PATHS: tuple[str, ...] = ("numpy", "handwritten", "assembled")

#: Per-term reward logs are produced on steps where ``step % LOG_EVERY == 0`` (upstream: 4).
LOG_EVERY = 4


def _available_paths(assembled_module: str) -> tuple[str, ...]:
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
#: The class name prefix of each path: ``Numpy<Stem>``, ``Handwritten<Stem>``, ...
_CLASS_PREFIX = {"numpy": "Numpy", "handwritten": "Handwritten", "assembled": "Assembled"}
#: The module of each path inside a task package.
_PATH_MODULE = {"numpy": "numpy_path", "handwritten": "handwritten", "assembled": "assembled"}


@dataclass(frozen=True)
class TaskSpec:
    """What a task package declares about itself; the registry and the builder read only this.

    A task package ``termplan.tasks.<name>`` has the same modules as every other: ``task``
    (this spec), ``config``, ``profiles``, ``batch``, ``terms`` (by kind) and one module per
    path (``numpy_path``, ``handwritten`` with its kernel in ``handwritten_kernel``,
    ``assembled``) whose class is named ``<Path><class_stem>``, e.g. ``NumpyG1Walk``. Helpers
    only one task needs sit beside them (``motion_tracking/geometry.py``). Adding a task is
    copying a package, declaring its spec and listing its name in ``tasks.TASKS``.

    Attributes
    ----------
    name:
        The task's registry name (and package name).
    class_stem:
        The common suffix of its path class names.
    profiles:
        Benchmark profile names, in report order.
    owner_variants:
        Further profile names (real owner configurations) :func:`build` accepts.
    resolve_profile:
        ``resolve_profile(profile, **profile_options)`` -> the task's Profile.
    profile_options:
        ``build`` options consumed by ``resolve_profile`` instead of the path class.
    noise:
        The task's noise configuration class (``noise=None`` means its defaults).
    make_batch, validate:
        The batch generator ``(num_envs, seed=0, profile=None)`` and its check
        ``(batch, num_envs)`` every path runs before touching memory.
    """

    name: str
    class_stem: str
    profiles: tuple[str, ...]
    owner_variants: tuple[str, ...]
    resolve_profile: Callable[..., Any]
    profile_options: tuple[str, ...]
    noise: type
    make_batch: Callable[..., Any]
    validate: Callable[[Any, int], Any]

    @property
    def package(self) -> str:
        """The task's package (``termplan.tasks.<name>``)."""
        return f"termplan.tasks.{self.name}"

    @property
    def paths(self) -> tuple[str, ...]:
        """Paths this task implements ("assembled" only once its module exists)."""
        return _available_paths(f"{self.package}.assembled")

    def profile_names(self) -> tuple[str, ...]:
        """Every name :meth:`build` accepts: benchmark profiles first, then owner variants."""
        return (*self.profiles, *self.owner_variants)

    def path_class(self, path: str) -> Any:
        """The class implementing ``path``, imported on demand (so a task whose assembled
        module is absent still builds its other paths); an unknown path is a ValueError
        naming the ones on offer."""
        if path not in self.paths:
            raise ValueError(f"path {path!r}: {self.name} offers {', '.join(self.paths)}")
        module = importlib.import_module(f"{self.package}.{_PATH_MODULE[path]}")
        return getattr(module, f"{_CLASS_PREFIX[path]}{self.class_stem}")

    def build(
        self,
        profile: Any,
        num_envs: int,
        path: str,
        num_threads: int | None = None,
        **options: Any,
    ) -> HotSlice:
        """Construct ``path`` of this task: the one builder of all tasks.

        Checks in order: the path (:meth:`path_class`), then the keyword ``options`` (the
        :attr:`profile_options`, or constructor parameters of the path class; anything else
        is a ValueError listing what that path accepts, so a typo never silently does
        nothing), then resolves the profile and constructs the class with it.
        """
        cls = self.path_class(path)
        chosen = {k: options.pop(k) for k in self.profile_options if k in options}
        accepted = [n for n in inspect.signature(cls).parameters if n not in _COMMON_PARAMS]
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise ValueError(f"options {unknown}: path {path!r} accepts {', '.join(accepted)}")
        resolved = self.resolve_profile(profile, **chosen)
        hot_slice: HotSlice = cls(resolved, num_envs, num_threads=num_threads, **options)
        return hot_slice


class TaskPath:
    """Base of every path class of every task: the constructor preamble they share.

    A subclass sets :attr:`spec` (its task) and :attr:`path`; its ``__init__`` takes
    ``(profile, num_envs, num_threads=None, noise=None, *, <its own options>)`` and starts
    with :meth:`_setup`.
    """

    spec: ClassVar[TaskSpec]
    #: The task's name (from :attr:`spec`) and the path's.
    task: str
    path: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "spec" in cls.__dict__:
            cls.task = cls.spec.name

    def _setup(
        self,
        profile: Any,
        num_envs: int,
        num_threads: int | None,
        noise: object,
        **profile_options: Any,
    ) -> None:
        """Resolve and check the arguments every path takes, in this order: the profile
        (``config``, and its name ``profile``), ``num_envs``, ``num_threads`` (``None`` or
        an int in ``1..max_threads()``) and ``noise`` (the task's noise class or ``None``).

        Raises
        ------
        ValueError
            Naming the first bad argument, its value and what was expected.
        """
        self.config = self.spec.resolve_profile(profile, **profile_options)
        self.profile: str = self.config.name
        self.num_envs: int = check_count("num_envs", num_envs)
        self.num_threads: int | None = check_num_threads(num_threads)
        self.noise: Any = check_config("noise", noise, self.spec.noise)


def log_key(term: str) -> str:
    """The logs key of a reward term."""
    return f"reward/{term}"


def allocate_outputs(num_envs: int, actor_dim: int, critic_dim: int) -> StepOutputs:
    """The zeroed output buffers a path owns and returns every call."""
    return StepOutputs(
        reward=np.zeros(num_envs, dtype=np.float32),
        terminated=np.zeros(num_envs, dtype=np.bool_),
        obs=np.zeros((num_envs, actor_dim), dtype=np.float32),
        critic=np.zeros((num_envs, critic_dim), dtype=np.float32),
    )
