"""Input validation for batch arrays: every message names the input, what it got and wanted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

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


def check_contiguous(name: str, value: np.ndarray) -> np.ndarray:
    """Require C-contiguous memory (kernels assume row-major strides for speed)."""
    if not value.flags.c_contiguous:
        raise ValueError(
            f"input {name!r}: expected a C-contiguous array, got strides {value.strides}"
        )
    return value
