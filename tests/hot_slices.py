"""Hot slices built once per test session and shared by the tests that need the same one.

Building an assembled path generates, loads and (on first use in a process) compiles its
kernels; the parity tests ask for the same (task, profile, N, path, options) many times.
:data:`SESSION` keeps every slice it built; the ``hot_slices`` fixture of the root
``conftest.py`` hands it out, and helpers that are not fixtures may use it directly.

A slice reuses its output buffers from call to call (as in training), so a test copies an
output it keeps across another ``compute`` of the same slice, exactly as it must with a
slice of its own. Options that cannot be a dictionary key (arrays, profiles holding dicts)
build a fresh slice every time.
"""

from __future__ import annotations

import importlib
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the perfgate tests need not import termplan
    from termplan.tasks.base import HotSlice


class SliceCache:
    """``get(task, profile, num_envs, path, **options)`` -> the one slice built for them."""

    def __init__(self) -> None:
        self._built: dict[Hashable, HotSlice] = {}

    def get(self, task: str, profile: Any, num_envs: int, path: str, **options: Any) -> HotSlice:
        """The slice ``termplan.tasks.<task>.build(profile, num_envs, path, **options)``."""
        build = importlib.import_module(f"termplan.tasks.{task}").build
        key = (task, profile, num_envs, path, tuple(sorted(options.items())))
        try:
            hash(key)
        except TypeError:
            return build(profile, num_envs, path, **options)  # type: ignore[no-any-return]
        if key not in self._built:
            self._built[key] = build(profile, num_envs, path, **options)
        return self._built[key]

    def __len__(self) -> int:
        return len(self._built)


#: The slices of this test session (one per xdist worker process).
SESSION = SliceCache()
