"""asv's suite description, ``results/benchmarks.json`` (version 2): the only reader.

``name -> {params, param_names, unit, type, version}``. perfgate needs the parameter names
(to key cases), the units, the versions, and the parameter reprs that asv's ``--bench``
regexes match (to re-run exactly one parameter combination).
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.errors import ResultFileError
from perfgate.formats.jsonfile import load_versioned
from perfgate.model import CaseKey

ASV_BENCHMARKS_API_VERSION = 2


@dataclass(frozen=True)
class BenchmarkInfo:
    """The part of ``benchmarks.json`` perfgate needs for one benchmark."""

    name: str
    param_names: tuple[str, ...]
    unit: str
    kind: str
    version: str | None
    params: tuple[tuple[Any, ...], ...] = ()


Suite = Mapping[str, BenchmarkInfo]


def param_text(value: object) -> str:
    """Turn asv's stored parameter repr (``"'assembled'"``, ``"16384"``) into display text."""
    text = str(value)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        with contextlib.suppress(ValueError, SyntaxError):
            literal = ast.literal_eval(text)
            if isinstance(literal, str):
                return literal
    return text


def read_benchmarks(results_dir: str | os.PathLike[str]) -> dict[str, BenchmarkInfo]:
    """Read ``benchmarks.json`` (parameter names, units) from the asv results directory."""
    path = Path(results_dir) / "benchmarks.json"
    return parse_benchmarks(load_versioned(path, "version", ASV_BENCHMARKS_API_VERSION), path)


def parse_benchmarks(
    data: Mapping[str, Any], path: object = "<benchmarks>"
) -> dict[str, BenchmarkInfo]:
    """Validate loaded ``benchmarks.json`` data (its ``version`` already checked)."""
    infos: dict[str, BenchmarkInfo] = {}
    for name, entry in data.items():
        if name == "version":
            continue
        if not isinstance(entry, dict):
            raise ResultFileError(path, f"benchmark {name!r}: expected an object")
        names = entry.get("param_names") or []
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ResultFileError(path, f"benchmark {name!r}: param_names must be strings")
        version = entry.get("version")
        infos[name] = BenchmarkInfo(
            name=name,
            param_names=tuple(names),
            unit=str(entry.get("unit") or "seconds"),
            kind=str(entry.get("type", "time")),
            version=None if version is None else str(version),
            params=tuple(tuple(p) for p in entry.get("params") or []),
        )
    return infos


def benchmark_units(suite: Suite) -> dict[str, str]:
    """Benchmark -> unit (asv's ``unit``; default seconds)."""
    return {name: info.unit for name, info in suite.items()}


def case_names(suite: Suite) -> dict[CaseKey, str]:
    """CaseKey -> asv's selection name ``bench(repr1, repr2)``.

    asv matches ``--bench`` regexes against these names (parameter reprs joined by ", "),
    so an anchored, escaped name selects exactly one parameter combination.
    """
    out: dict[CaseKey, str] = {}
    for name, info in suite.items():
        if not info.params:
            out[CaseKey(name)] = name
            continue
        for combo in itertools.product(*info.params):
            items = tuple((n, param_text(v)) for n, v in zip(info.param_names, combo, strict=True))
            out[CaseKey(name, items)] = f"{name}({', '.join(combo)})"
    return out
