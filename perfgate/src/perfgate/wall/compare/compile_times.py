"""Compile-time benchmarks: reported base vs head, never gated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from perfgate.config import GateConfig
from perfgate.model import CaseKey, Measurement, natural_key


@dataclass(frozen=True)
class CompileRow:
    """A compile-time benchmark: reported base vs head, never gated."""

    key: CaseKey
    base: float | None
    head: float | None
    unit: str

    @property
    def ratio(self) -> float | None:
        """head / base."""
        if self.base is None or self.head is None or self.base <= 0:
            return None
        return self.head / self.base


def compile_times(
    base: Mapping[CaseKey, Measurement],
    head: Mapping[CaseKey, Measurement],
    config: GateConfig,
) -> list[CompileRow]:
    """Rows for the benchmarks matching ``config.compile_time``."""
    keys = sorted(
        (k for k in set(base) | set(head) if config.is_compile_time(k.benchmark)), key=natural_key
    )
    rows = []
    for k in keys:
        mb, mh = base.get(k), head.get(k)
        unit = (mh or mb).unit if (mh or mb) else "seconds"  # type: ignore[union-attr]
        rows.append(CompileRow(k, mb.median if mb else None, mh.median if mh else None, unit))
    return rows
