"""A copy of an asv results tree in which chosen benchmarks are stored as reciprocals.

asv 0.6.6 has no notion of a benchmark whose value is better when larger: its step detector
calls "a regression ... an upward step" (``asv/step_detect.py``), and its regressions page,
feed and the graphs' colouring all follow (nothing in ``benchmarks.json`` or a result file
changes that; ``unit`` is a label only). So a throughput (``track_env_steps_per_s``) that drops
30% is not on the page, and one that rises is listed as a regression.

The dashboard is therefore published from a copy of the results (the stored ones are never
changed) in which every ``higher_is_better`` benchmark of ``[tool.perfgate]`` holds 1/value:
seconds per env-step instead of env-steps per second, with the unit written ``1/(unit)``.
Larger then reads as worse for every benchmark, as in the gate's reports and `perfgate watch`,
and relative changes keep their size (a 10% drop in throughput is an 11% rise of its
reciprocal). Samples and per-combination statistics are inverted too (the confidence bounds
and the quartiles swap places).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from perfgate.atomic import write_new
from perfgate.formats.jsonfile import load_json

_SWAPPED = (("stats_ci_99_a", "stats_ci_99_b"), ("stats_q_25", "stats_q_75"))
#: Branch folders that are not part of asv's results layout.
_NOT_RESULTS = re.compile(r"(suites|watch)/|\.")


def _inverse(value: Any) -> Any:
    """1/value for a positive finite number; anything else (null, NaN, 0) as it is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return 1.0 / value if math.isfinite(value) and value > 0 else value


def _per_combo(values: Any, each: Callable[[Any], Any]) -> Any:
    return [each(v) for v in values] if isinstance(values, list) else values


def reciprocal_suite(data: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """``benchmarks.json`` data with the unit of each of ``names`` written ``1/(unit)``."""
    out = dict(data)
    for name in names:
        entry = dict(out[name])
        entry["unit"] = f"1/({entry.get('unit') or 'seconds'})"
        out[name] = entry
    return out


def reciprocal_result(data: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """An asv result file's data with every value of the benchmarks ``names`` inverted."""
    columns = data.get("result_columns")
    results = data.get("results")
    if not isinstance(columns, list) or not isinstance(results, dict):
        return data
    out = dict(data)
    out["results"] = dict(results)
    for name in set(names) & set(results):
        row = list(results[name])
        row += [None] * (len(columns) - len(row))
        at = {column: k for k, column in enumerate(columns)}
        if "result" in at:
            row[at["result"]] = _per_combo(row[at["result"]], _inverse)
        if "samples" in at:
            row[at["samples"]] = _per_combo(row[at["samples"]], lambda s: _per_combo(s, _inverse))
        for low, high in _SWAPPED:
            if low in at and high in at:
                a = _per_combo(row[at[low]], _inverse)
                row[at[low]], row[at[high]] = _per_combo(row[at[high]], _inverse), a
        out["results"][name] = row
    return out


def write_dashboard_results(
    source: Path, dest: Path, higher_is_better: Callable[[str], bool]
) -> list[str]:
    """Copy the results tree ``source`` into the new folder ``dest`` with every benchmark for
    which ``higher_is_better(name)`` holds stored as reciprocals; those benchmarks' names."""
    suite = load_json(source / "benchmarks.json")
    names = sorted(n for n in suite if n != "version" and higher_is_better(n))
    for path in sorted(source.rglob("*.json")):
        rel = path.relative_to(source).as_posix()
        if _NOT_RESULTS.match(rel) or any(part.startswith(".") for part in rel.split("/")):
            continue
        data = load_json(path)
        if rel == "benchmarks.json":
            data = reciprocal_suite(data, names)
        elif isinstance(data, dict) and "result_columns" in data:
            data = reciprocal_result(data, names)
        write_new(dest / rel, (json.dumps(data) + "\n").encode())
    return names
