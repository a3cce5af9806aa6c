"""asv 0.6.6 result files (result api_version 2) and their layout: the only reader.

asv layout::

    results/benchmarks.json                 the suite (`perfgate.formats.benchmarks_json`)
    results/<machine>/machine.json          machine info (api version 1)
    results/<machine>/<hash8>-<env>.json    one file per (machine, commit, environment)

Each result file has ``result_columns`` and one row per benchmark; parameter combinations are
the Cartesian product of the row's ``params`` (last parameter fastest). A ``null`` result means
the benchmark failed or timed out (asv does not tell the two apart on disk); ``NaN`` means
skipped.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from perfgate.atomic import is_partial_name
from perfgate.errors import ResultFileError, UserError
from perfgate.formats.benchmarks_json import BenchmarkInfo, param_text
from perfgate.formats.jsonfile import load_versioned, parse_json, versioned
from perfgate.model import CaseKey

ASV_RESULT_API_VERSION = 2
ASV_MACHINE_API_VERSION = 1
_REQUIRED_RESULT_KEYS = ("commit_hash", "env_name", "params", "result_columns", "results")
_REQUIRED_COLUMNS = ("result", "params")
_STATS_COLUMNS: tuple[str, ...] = ("stats_ci_99_a", "stats_ci_99_b", "stats_q_25")
_STATS_COLUMNS += ("stats_q_75", "stats_number", "stats_repeat")
_SKIP_FILES = frozenset({"machine.json", "benchmarks.json"})


class CaseState(Enum):
    """What asv recorded for one case."""

    OK = "ok"
    FAILED = "failed"  # null result: exception or timeout
    SKIPPED = "skipped"  # NaN result: skip_params / SkipNotImplemented


@dataclass(frozen=True)
class CaseResult:
    """The stored result of one case in one result file."""

    key: CaseKey
    state: CaseState
    value: float | None
    samples: tuple[float, ...] | None = None
    ci_99: tuple[float, float] | None = None
    q_25: float | None = None
    q_75: float | None = None
    number: float | None = None
    repeat: float | None = None
    version: str | None = None
    started_at: int | None = None
    duration: float | None = None
    unit: str = "seconds"
    kind: str = "time"


@dataclass(frozen=True)
class ResultSet:
    """All cases of one asv result file (one machine, commit and environment)."""

    path: str
    commit_hash: str
    machine: str
    env_name: str
    commit_date: int | None
    python: str
    machine_info: Mapping[str, Any]
    env_vars: Mapping[str, Any]
    cases: Mapping[CaseKey, CaseResult]
    durations: Mapping[str, float] = field(default_factory=dict)

    @property
    def run_started_at(self) -> int | None:
        """Earliest benchmark start (JavaScript ms timestamp), the run date."""
        starts = [c.started_at for c in self.cases.values() if c.started_at is not None]
        return min(starts) if starts else None

    @property
    def run_duration(self) -> float:
        """Sum of the per-benchmark durations in seconds (each benchmark counted once)."""
        seen: dict[str, float] = {}
        for case in self.cases.values():
            if case.duration is not None:
                seen[case.key.benchmark] = case.duration
        return float(sum(seen.values()))


def read_machine(results_dir: str | os.PathLike[str], machine: str) -> dict[str, Any]:
    """Read ``<machine>/machine.json``."""
    path = Path(results_dir) / machine / "machine.json"
    return load_versioned(path, "version", ASV_MACHINE_API_VERSION)


def _number(path: Path, where: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ResultFileError(path, f"{where}: expected a number or null, got {value!r}")
    return float(value)


def _finite(path: Path, where: str, value: object) -> float | None:
    """:func:`_number`, and finite (a timestamp or a duration cannot be NaN or inf)."""
    number = _number(path, where, value)
    if number is not None and not math.isfinite(number):
        raise ResultFileError(path, f"{where}: expected a finite number, got {value!r}")
    return number


def _durations(path: Path, value: object) -> dict[str, float]:
    """asv's per-phase wall times, ``{"<build>": 1.5, ...}`` (absent or null: none)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ResultFileError(path, f"durations: expected an object, got {value!r}")
    out = {str(k): _finite(path, f"durations[{k!r}]", v) for k, v in value.items()}
    return {k: v for k, v in out.items() if v is not None}


def parse_durations(source: str, data: object) -> dict[str, float]:
    """The seconds of each benchmark (and phase) of one result file's parsed JSON
    (``source`` names it in errors): each result row's ``duration`` column, then the
    top-level ``durations``. asv 0.6 keeps a benchmark's wall time (all its parameter
    combinations) in its row; the top-level object holds phases only (``<build>``,
    ``<setup_cache ...>``), so reading that alone left every benchmark without a cost."""
    if not isinstance(data, dict):
        raise ResultFileError(source, "expected a JSON object at top level")
    path = Path(source)
    return {**_row_durations(path, data), **_durations(path, data.get("durations"))}


def _row_durations(path: Path, data: Mapping[str, Any]) -> dict[str, float]:
    """``{benchmark: seconds}`` from the ``duration`` column of the result rows (rows
    without one, or a file without the column, give nothing)."""
    columns, rows = data.get("result_columns"), data.get("results")
    if not isinstance(columns, list) or "duration" not in columns or not isinstance(rows, dict):
        return {}
    at = columns.index("duration")
    out: dict[str, float] = {}
    for name, row in rows.items():
        if isinstance(row, list) and len(row) > at:
            seconds = _finite(path, f"results[{name!r}].duration", row[at])
            if seconds is not None and seconds >= 0:
                out[str(name)] = seconds
    return out


def _object(path: Path, where: str, value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ResultFileError(path, f"{where}: expected an object, got {value!r}")
    return dict(value)


def _column(row: Sequence[Any], columns: Sequence[str], name: str) -> Any:
    if name not in columns:
        return None
    index = columns.index(name)
    return row[index] if index < len(row) else None


def _per_combo(path: Path, where: str, value: Any, count: int) -> list[Any]:
    if value is None:
        return [None] * count
    if not isinstance(value, list) or len(value) != count:
        raise ResultFileError(path, f"{where}: expected a list of {count} entries")
    return value


def _samples(path: Path, where: str, value: Any) -> tuple[float, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise ResultFileError(path, f"{where}: samples must be a list or null")
    out = [_number(path, where, v) for v in value]
    if any(v is None for v in out):
        raise ResultFileError(path, f"{where}: samples contain null")
    return tuple(float(v) for v in out if v is not None)


def _combo_keys(path: Path, name: str, params: Any, info: BenchmarkInfo | None) -> list[CaseKey]:
    if not isinstance(params, list) or not all(isinstance(p, list) for p in params):
        raise ResultFileError(path, f"{name}: 'params' column must be a list of lists")
    names: Sequence[str] = info.param_names if info else ()
    if len(names) != len(params):
        names = [f"param{i + 1}" for i in range(len(params))]
    keys = []
    for combo in itertools.product(*params):
        items = tuple((n, param_text(v)) for n, v in zip(names, combo, strict=True))
        keys.append(CaseKey(name, items))
    return keys


def _case_state(value: float | None) -> CaseState:
    if value is None:
        return CaseState.FAILED
    if math.isnan(value):
        return CaseState.SKIPPED
    return CaseState.OK


def _read_row(
    path: Path, name: str, row: Any, columns: Sequence[str], info: BenchmarkInfo | None
) -> list[CaseResult]:
    if not isinstance(row, list):
        raise ResultFileError(path, f"{name}: result row must be a list")
    keys = _combo_keys(path, name, _column(row, columns, "params") or [], info)
    count = len(keys)
    values = _per_combo(path, f"{name} result", _column(row, columns, "result"), count)
    samples = _per_combo(path, f"{name} samples", _column(row, columns, "samples"), count)
    stats = {
        col: _per_combo(path, f"{name} {col}", _column(row, columns, col), count)
        for col in _STATS_COLUMNS
    }
    version = _column(row, columns, "version")
    started = _finite(path, f"{name} started_at", _column(row, columns, "started_at"))
    duration = _number(path, f"{name} duration", _column(row, columns, "duration"))
    out = []
    for j, key in enumerate(keys):
        value = _number(path, f"{name}[{j}] result", values[j])
        lo = _number(path, f"{name}[{j}] ci", stats["stats_ci_99_a"][j])
        hi = _number(path, f"{name}[{j}] ci", stats["stats_ci_99_b"][j])
        out.append(
            CaseResult(
                key=key,
                state=_case_state(value),
                value=value,
                samples=_samples(path, f"{name}[{j}]", samples[j]),
                ci_99=None if lo is None or hi is None else (lo, hi),
                q_25=_number(path, f"{name}[{j}] q_25", stats["stats_q_25"][j]),
                q_75=_number(path, f"{name}[{j}] q_75", stats["stats_q_75"][j]),
                number=_number(path, f"{name}[{j}] number", stats["stats_number"][j]),
                repeat=_number(path, f"{name}[{j}] repeat", stats["stats_repeat"][j]),
                version=None if version is None else str(version),
                started_at=None if started is None else int(started),
                duration=duration,
                unit=info.unit if info else "seconds",
                kind=info.kind if info else "time",
            )
        )
    return out


def read_result_file(
    path: str | os.PathLike[str], benchmarks: Mapping[str, BenchmarkInfo] | None = None
) -> ResultSet:
    """Read one asv result file into a `ResultSet`.

    Raises `ResultFileError` naming the file for corrupt/truncated JSON, a wrong ``version``,
    missing keys or columns, or rows whose shapes do not match their parameters.
    """
    p = Path(path)
    return _parse_result(p, load_versioned(p, "version", ASV_RESULT_API_VERSION), benchmarks)


def _parse_result(
    p: Path, data: dict[str, Any], benchmarks: Mapping[str, BenchmarkInfo] | None
) -> ResultSet:
    """The `ResultSet` of a result file's parsed JSON (see `read_result_file`)."""
    missing = [k for k in _REQUIRED_RESULT_KEYS if k not in data]
    if missing:
        raise ResultFileError(p, f"missing keys {missing}")
    columns = data["result_columns"]
    if not isinstance(columns, list) or not all(c in columns for c in _REQUIRED_COLUMNS):
        raise ResultFileError(p, f"result_columns must include {list(_REQUIRED_COLUMNS)}")
    if not isinstance(data["results"], dict) or not isinstance(data["params"], dict):
        raise ResultFileError(p, "'results' and 'params' must be objects")
    infos = benchmarks or {}
    cases: dict[CaseKey, CaseResult] = {}
    for name, row in data["results"].items():
        for case in _read_row(p, name, row, columns, infos.get(name)):
            cases[case.key] = case
    if not isinstance(data["commit_hash"], str) or not data["commit_hash"]:
        raise ResultFileError(
            p, f"commit_hash: expected a commit hash, got {data['commit_hash']!r}"
        )
    return ResultSet(
        path=str(p),
        commit_hash=data["commit_hash"],
        machine=str(data["params"].get("machine", p.parent.name)),
        env_name=str(data["env_name"]),
        commit_date=data.get("date"),
        python=str(data.get("python", "")),
        machine_info=dict(data["params"]),
        env_vars=_object(p, "env_vars", data.get("env_vars")),
        cases=cases,
        durations=parse_durations(str(p), data),
    )


def stored_problem(path: str, content: bytes) -> str | None:
    """What makes ``content``, stored at ``path`` of an asv results layout (a
    ``<machine>/machine.json`` or a ``<machine>/<hash8>-<env>.json``), unreadable by asv and
    perfgate (corrupt JSON, another version, a result file of the wrong shape); None when
    it reads, or when ``path`` is neither kind of file."""
    parts = Path(path).parts
    if len(parts) != 2 or not path.endswith(".json") or is_partial_name(parts[1]):
        return None
    try:
        data = parse_json(path, content.decode("utf-8"))
        if parts[1] == "machine.json":
            versioned(path, data, "version", ASV_MACHINE_API_VERSION)
        elif parts[1] not in _SKIP_FILES:
            _parse_result(
                Path(path), versioned(path, data, "version", ASV_RESULT_API_VERSION), None
            )
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text ({exc})"
    except ResultFileError as exc:
        return exc.problem
    return None


@dataclass(frozen=True)
class ResultFileName:
    """A result file found on disk: ``<hash8>-<env>.json``."""

    path: Path
    hash_prefix: str
    env_name: str


def list_machines(results_dir: str | os.PathLike[str]) -> list[str]:
    """Machine directories (those holding a ``machine.json``) under the results directory."""
    root = Path(results_dir)
    if not root.is_dir():
        raise UserError(f"results directory {root} does not exist")
    return sorted(d.name for d in root.iterdir() if (d / "machine.json").is_file())


def iter_result_files(
    results_dir: str | os.PathLike[str], machine: str
) -> Iterator[ResultFileName]:
    """Complete result files of one machine; half-written temporaries are never listed."""
    folder = Path(results_dir) / machine
    if not folder.is_dir():
        raise UserError(f"no results for machine {machine!r} in {results_dir}")
    for path in sorted(folder.iterdir()):
        name = path.name
        if name in _SKIP_FILES or not name.endswith(".json") or is_partial_name(name):
            continue
        prefix, _, env = name[: -len(".json")].partition("-")
        yield ResultFileName(path, prefix, env)


def find_commit_files(
    results_dir: str | os.PathLike[str], machine: str, sha: str
) -> list[ResultFileName]:
    """Result files whose 8-character hash prefix matches *sha* (a full or abbreviated hash)."""
    if not re.fullmatch(r"[0-9a-fA-F]{4,40}", sha):
        raise UserError(f"revision {sha!r} is not a commit hash (4-40 hex digits)")
    want = sha.lower()
    found = []
    for item in iter_result_files(results_dir, machine):
        n = min(len(want), len(item.hash_prefix))
        if item.hash_prefix[:n].lower() == want[:n]:
            found.append(item)
    if len({f.hash_prefix for f in found}) > 1:
        names = sorted({f.hash_prefix for f in found})
        raise UserError(f"revision {sha!r} is ambiguous: matches {names}")
    return found


#: Shortest commit abbreviation accepted as naming a commit (git's own minimum).
MIN_ABBREV = 4


def same_commit(a: str, b: str) -> bool:
    """Whether two commit hashes, full or abbreviated, name the same commit.

    Both must have at least :data:`MIN_ABBREV` characters and agree over the shorter one
    (case-insensitive); an empty or missing hash matches nothing, so a file that does not say
    which commit it measured is never taken for the one asked for.
    """
    n = min(len(a), len(b))
    return n >= MIN_ABBREV and a[:n].lower() == b[:n].lower()


def load_commit(
    results_dir: str | os.PathLike[str],
    machine: str,
    sha: str,
    env: str | None = None,
    benchmarks: Mapping[str, BenchmarkInfo] | None = None,
) -> ResultSet:
    """Load the result file of *sha* on *machine*; unknown revision -> `UserError`."""
    files = find_commit_files(results_dir, machine, sha)
    if env is not None:
        files = [f for f in files if f.env_name == env]
    if not files:
        where = f"machine {machine!r}" + (f", env {env!r}" if env else "")
        raise UserError(f"unknown revision {sha!r}: no results for it in {results_dir} ({where})")
    if len(files) > 1:
        envs = sorted(f.env_name for f in files)
        raise UserError(f"revision {sha!r} has results for several environments {envs}; pick one")
    result = read_result_file(files[0].path, benchmarks)
    if not same_commit(result.commit_hash, sha):
        raise ResultFileError(files[0].path, f"commit_hash {result.commit_hash} is not {sha}")
    return result


def merged_result(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """One result document holding the benchmarks of two runs of one commit, environment
    and column layout (a gate's wall-clock round and its sim count: asv writes one file per
    commit and environment, so two runs' files share a name). ``first`` wins where both
    have a benchmark or a duration; anything else differing is a `UserError`."""
    for key in ("commit_hash", "env_name", "result_columns"):
        if first.get(key) != second.get(key):
            raise UserError(
                f"cannot merge asv results of different {key}: "
                f"{first.get(key)!r} and {second.get(key)!r}"
            )
    out = dict(first)
    out["results"] = {**second.get("results", {}), **first.get("results", {})}
    out["durations"] = {**second.get("durations", {}), **first.get("durations", {})}
    return out
