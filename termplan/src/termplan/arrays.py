"""Input validation (batch arrays, counts, parameters): every message names the input, what it
got and what it wanted."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, TypeGuard

import numpy as np
import numpy.typing as npt


def check_array(
    name: str, value: object, shape: Sequence[int], dtype: npt.DTypeLike
) -> np.ndarray:
    """Return ``value`` if it is an ndarray of exactly ``shape`` and ``dtype``.

    Raises
    ------
    ValueError
        Naming the input, its shape and dtype and the expected ones. Kernels index raw
        memory, so a wrong shape must never reach them.
    """
    want_dtype = np.dtype(dtype)
    want_shape = tuple(int(s) for s in shape)
    if not isinstance(value, np.ndarray):
        raise ValueError(
            f"input {name!r}: expected ndarray of shape {want_shape} and dtype {want_dtype}, "
            f"got {type(value).__name__}"
        )
    if value.shape != want_shape or value.dtype != want_dtype:
        raise ValueError(
            f"input {name!r}: expected shape {want_shape} dtype {want_dtype}, "
            f"got shape {value.shape} dtype {value.dtype}"
        )
    return value


def is_integer(value: object) -> TypeGuard[int | np.integer[Any]]:
    """A Python or NumPy integer, not a bool (``True`` is an ``int`` to Python)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_count(name: str, value: object, low: int = 1) -> int:
    """``value`` as an int >= ``low``: a Python or NumPy integer (bools, floats and strings
    are errors, not silently converted), for sizes such as ``num_envs`` and other counts.

    Raises
    ------
    ValueError
        Naming ``name``, what it got and what it wanted.
    """
    if not is_integer(value) or value < low:
        wanted = "a positive int" if low == 1 else f"an int >= {low}"
        raise ValueError(f"{name}: expected {wanted}, got {value!r}")
    return int(value)


def check_parameters(
    owner: str, values: Mapping[str, object], positive: Sequence[str] = ()
) -> None:
    """Every value a finite real number (``positive``: also > 0), else a ValueError naming it.

    For task configs: a NaN threshold or a zero width would otherwise behave differently
    per path (NaN comparisons, ``1 / std**2``) or fail deep inside one of them.
    """
    for name, value in values.items():
        number = float(value) if is_real(value) else math.nan
        if not (math.isfinite(number) and (name not in positive or number > 0)):
            wanted = "a finite number > 0" if name in positive else "a finite number"
            raise ValueError(f"{owner}.{name}: expected {wanted}, got {value!r}")


def is_real(value: object) -> TypeGuard[float | int | np.floating[Any] | np.integer[Any]]:
    """A Python or NumPy real number, not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def check_contiguous(name: str, value: np.ndarray) -> np.ndarray:
    """Require C-contiguous memory (kernels assume row-major strides for speed)."""
    if not value.flags.c_contiguous:
        raise ValueError(
            f"input {name!r}: expected a C-contiguous array, got strides {value.strides}"
        )
    return value


class Layout(NamedTuple):
    """What one batch field must be: its name, shape, dtype and C-contiguous strides."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    strides: tuple[int, ...]


def row_layouts(
    specs: Mapping[str, tuple[tuple[int, ...], npt.DTypeLike]], num_envs: int
) -> tuple[Layout, ...]:
    """The :class:`Layout` of every field ``name -> (row shape, dtype)`` for ``num_envs`` rows
    (tasks cache this per N, so that :func:`check_fields` only compares tuples)."""
    out = []
    for name, (row_shape, dtype) in specs.items():
        want = np.dtype(dtype)
        strides = tuple(int(x) for x in np.empty((1, *row_shape), dtype=want).strides)
        out.append(Layout(name, (num_envs, *row_shape), want, strides))
    return tuple(out)


def check_fields(obj: object, layouts: Sequence[Layout]) -> None:
    """Check every field of ``obj`` against its layout; a ValueError names the first bad one.

    Runs on every hot-slice call, so the common case is a few tuple comparisons per field;
    anything unusual falls back to :func:`check_array` / :func:`check_contiguous`, which
    decide and word the error.
    """
    for name, shape, dtype, strides in layouts:
        value = getattr(obj, name)
        if (
            type(value) is np.ndarray
            and value.shape == shape
            and value.dtype == dtype
            and value.strides == strides
        ):
            continue
        check_contiguous(name, check_array(name, value, shape, dtype))
