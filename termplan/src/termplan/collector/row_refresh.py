"""Recompute the observation rows of reset envs with the same hot-slice path.

A fused kernel computes reward, termination and observations in one pass *before* the
reset, so the observation rows of the envs it resets are stale (they describe the terminal
state). Following the Isaac Lab order (observations after the reset), the env gathers the
reset rows into a small batch, runs the same path on it and scatters the fresh rows back.

The hot slices are sized at construction, so sub-batches come in power-of-two buckets (the
rows padded by repeating the last one): at most ``log2(N) + 1`` extra hot slices per env,
built when the env is constructed (:meth:`RowRefresher.prepare`), not inside a measured
step. Hot-slice outputs are per-row functions of the batch row, so padding rows never change
the real ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from termplan.tasks.base import HotSlice, StepOutputs

#: A non-logging step index: reset rows must not produce per-term logs.
_REFRESH_STEP = 1


def bucket_size(rows: int) -> int:
    """The smallest power of two >= ``rows`` (``rows`` >= 1)."""
    if rows < 1:
        raise ValueError(f"rows: expected >= 1, got {rows}")
    return 1 << (rows - 1).bit_length()


class RowRefresher:
    """Runs ``build(size)`` hot slices on gathered rows of a batch dataclass."""

    def __init__(self, build: Callable[[int], HotSlice]) -> None:
        self._build = build
        self._slices: dict[int, tuple[HotSlice, Any, np.ndarray]] = {}

    def _bucket(self, batch: Any, size: int) -> tuple[HotSlice, Any, np.ndarray]:
        if size not in self._slices:
            arrays = {
                f.name: np.empty(
                    (size, *getattr(batch, f.name).shape[1:]), getattr(batch, f.name).dtype
                )
                for f in dataclasses.fields(batch)
            }
            self._slices[size] = (
                self._build(size),
                type(batch)(**arrays),
                np.empty(size, np.intp),
            )
        return self._slices[size]

    def prepare(self, batch: Any, max_rows: int) -> None:
        """Build every bucket up to ``bucket_size(max_rows)`` now, so that no hot slice is
        constructed (or its kernel loaded) inside a measured collector step."""
        size = 1
        while size <= bucket_size(max_rows):
            self._bucket(batch, size)
            size *= 2

    def refresh(self, batch: Any, rows: np.ndarray, out: StepOutputs) -> None:
        """Overwrite ``out.obs[rows]`` and ``out.critic[rows]`` from ``batch``'s rows."""
        k = int(rows.size)
        if k == 0:
            return
        hot, sub, index = self._bucket(batch, bucket_size(k))
        index[:k] = rows
        index[k:] = rows[-1]
        for f in dataclasses.fields(batch):
            np.take(getattr(batch, f.name), index, axis=0, out=getattr(sub, f.name))
        fresh = hot.compute(sub, _REFRESH_STEP)
        out.obs[rows] = fresh.obs[:k]
        out.critic[rows] = fresh.critic[:k]
