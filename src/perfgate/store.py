"""Result storage: read asv 0.6.6 result files and read/write perfgate's paired sample files.

This is one of the few perfgate modules that touches the disk. Everything it returns is a
plain, frozen record so that `stats`, `compare` and `policy` stay pure.

asv layout (asv 0.6.6, result api_version 2)::

    results/benchmarks.json                 name -> {params, param_names, unit, type, version}
    results/<machine>/machine.json          machine info (api version 1)
    results/<machine>/<hash8>-<env>.json    one file per (machine, commit, environment)

Each result file has ``result_columns`` and one row per benchmark; parameter combinations are
the Cartesian product of the row's ``params`` (last parameter fastest). A ``null`` result means
the benchmark failed or timed out (asv does not tell the two apart on disk); ``NaN`` means
skipped.

perfgate sample file (``SAMPLES_API_VERSION`` history: 1 = first version)::

    {"api_version": 1, "kind": "perfgate-samples", "created_at": "...",
     "fingerprint": {...machine fingerprint...}, "base": "<sha>", "head": "<sha>",
     "unit": "seconds",
     "rounds": [{"order": ["base", "head"],
                 "cases": [{"benchmark": "b", "params": {"n": "8"},
                            "base": [t, ...] | null, "head": [t, ...] | null}]}]}

A round holds, for each case, the base and head samples measured back to back, so round *i*
of base and round *i* of head form a pair. ``null`` samples mean that side failed in that round.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import json
import math
import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from perfgate.errors import ResultFileError, UserError

ASV_RESULT_API_VERSION = 2
ASV_MACHINE_API_VERSION = 1
ASV_BENCHMARKS_API_VERSION = 2
SAMPLES_API_VERSION = 1
SAMPLES_KIND = "perfgate-samples"
_REQUIRED_RESULT_KEYS = ("commit_hash", "env_name", "params", "result_columns", "results")
_REQUIRED_COLUMNS = ("result", "params")
_STATS_COLUMNS: tuple[str, ...] = ("stats_ci_99_a", "stats_ci_99_b", "stats_q_25")
_STATS_COLUMNS += ("stats_q_75", "stats_number", "stats_repeat")
_SKIP_FILES = frozenset({"machine.json", "benchmarks.json"})

ParamItems = tuple[tuple[str, str], ...]


@dataclass(frozen=True, order=True)
class CaseKey:
    """One benchmark at one parameter combination; params are (name, value-text) pairs."""

    benchmark: str
    params: ParamItems = ()

    def param(self, name: str) -> str | None:
        """Return the value text of parameter *name*, or None when the case has no such param."""
        for key, value in self.params:
            if key == name:
                return value
        return None

    def without(self, *names: str) -> CaseKey:
        """Return this key with the parameters *names* removed (used to pair cases)."""
        kept = tuple((k, v) for k, v in self.params if k not in names)
        return CaseKey(self.benchmark, kept)

    def canonical(self) -> CaseKey:
        """This key with params sorted by name: for matching keys from files whose param
        order may differ (JSON objects are unordered)."""
        return CaseKey(self.benchmark, tuple(sorted(self.params)))

    def params_text(self) -> str:
        """Human-readable ``name=value, ...`` text of the parameters."""
        return ", ".join(f"{k}={v}" for k, v in self.params)

    def label(self) -> str:
        """``benchmark(name=value, ...)``, or the bare name without parameters."""
        text = self.params_text()
        return f"{self.benchmark}({text})" if text else self.benchmark


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


@dataclass(frozen=True)
class BenchmarkInfo:
    """The part of ``benchmarks.json`` perfgate needs for one benchmark."""

    name: str
    param_names: tuple[str, ...]
    unit: str
    kind: str
    version: str | None


# --------------------------------------------------------------------------------------------
# JSON loading
# --------------------------------------------------------------------------------------------


def is_partial_name(name: str) -> bool:
    """True for names of half-written files (``*.tmp``, ``*.tmp-*``): never read as complete."""
    return name.endswith(".tmp") or ".tmp-" in name


def load_json(path: Path) -> Any:
    """Load JSON from *path*; half-written, missing or corrupt files raise `ResultFileError`."""
    if is_partial_name(path.name):
        raise ResultFileError(path, "half-written temporary file; refusing to read it")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultFileError(path, "file does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultFileError(path, f"cannot read file: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultFileError(path, f"corrupt or truncated JSON ({exc})") from None


def _load_versioned(path: Path, key: str, version: int) -> dict[str, Any]:
    data = load_json(path)
    if not isinstance(data, dict):
        raise ResultFileError(path, "expected a JSON object at top level")
    found = data.get(key)
    if found != version:
        raise ResultFileError(path, f"unsupported {key} {found!r}; expected {version}")
    return data


def read_benchmarks(results_dir: str | os.PathLike[str]) -> dict[str, BenchmarkInfo]:
    """Read ``benchmarks.json`` (parameter names, units) from the asv results directory."""
    path = Path(results_dir) / "benchmarks.json"
    data = _load_versioned(path, "version", ASV_BENCHMARKS_API_VERSION)
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
            unit=str(entry.get("unit", "seconds")),
            kind=str(entry.get("type", "time")),
            version=None if version is None else str(version),
        )
    return infos


def read_machine(results_dir: str | os.PathLike[str], machine: str) -> dict[str, Any]:
    """Read ``<machine>/machine.json``."""
    path = Path(results_dir) / machine / "machine.json"
    return _load_versioned(path, "version", ASV_MACHINE_API_VERSION)


# --------------------------------------------------------------------------------------------
# asv result files
# --------------------------------------------------------------------------------------------


def param_text(value: object) -> str:
    """Turn asv's stored parameter repr (``"'assembled'"``, ``"16384"``) into display text."""
    text = str(value)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        with contextlib.suppress(ValueError, SyntaxError):
            literal = ast.literal_eval(text)
            if isinstance(literal, str):
                return literal
    return text


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
    data = _load_versioned(p, "version", ASV_RESULT_API_VERSION)
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
        durations=_durations(p, data.get("durations")),
    )


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


# --------------------------------------------------------------------------------------------
# perfgate paired sample files
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedCase:
    """Samples of one case across rounds; ``None`` for a round where that side failed."""

    key: CaseKey
    base_rounds: tuple[tuple[float, ...] | None, ...]
    head_rounds: tuple[tuple[float, ...] | None, ...]

    @property
    def failed_base(self) -> bool:
        """True when any base round failed."""
        return any(r is None for r in self.base_rounds)

    @property
    def failed_head(self) -> bool:
        """True when any head round failed."""
        return any(r is None for r in self.head_rounds)


@dataclass(frozen=True)
class SampleRun:
    """One perfgate sample file: interleaved rounds of base and head."""

    path: str
    base: str
    head: str
    fingerprint: Mapping[str, Any]
    unit: str
    created_at: str
    cases: Mapping[CaseKey, PairedCase]
    orders: tuple[tuple[str, ...], ...]


def _sample_list(path: str, where: str, value: Any) -> tuple[float, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise ResultFileError(path, f"{where}: expected a non-empty list of numbers or null")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ResultFileError(path, f"{where}: expected numbers, got {v!r}")
    return tuple(float(v) for v in value)


def _round_cases(path: str, index: int, rnd: Any) -> dict[CaseKey, tuple[Any, Any]]:
    if not isinstance(rnd, dict) or not isinstance(rnd.get("cases"), list):
        raise ResultFileError(path, f"round {index}: expected an object with a 'cases' list")
    out: dict[CaseKey, tuple[Any, Any]] = {}
    for case in rnd["cases"]:
        if not isinstance(case, dict) or not isinstance(case.get("benchmark"), str):
            raise ResultFileError(path, f"round {index}: each case needs a 'benchmark' name")
        params = case.get("params", {})
        if not isinstance(params, dict) or "base" not in case or "head" not in case:
            raise ResultFileError(path, f"round {index}: case needs params, base and head")
        key = CaseKey(case["benchmark"], tuple((str(k), str(v)) for k, v in params.items()))
        where = f"round {index} {key.label()}"
        out[key] = (
            _sample_list(path, f"{where} base", case["base"]),
            _sample_list(path, f"{where} head", case["head"]),
        )
    return out


def _order(path: str, index: int, value: Any) -> tuple[str, ...]:
    """The order the sides ran in a round (absent: base first)."""
    if value is None:
        return ("base", "head")
    if not isinstance(value, list) or sorted(value) != ["base", "head"]:
        raise ResultFileError(path, f"round {index}: order must be ['base', 'head'] or reversed")
    return tuple(value)


def parse_samples(data: Any, path: str = "<samples>") -> SampleRun:
    """Validate sample-file data (as loaded from JSON) and build a `SampleRun`."""
    if not isinstance(data, dict):
        raise ResultFileError(path, "expected a JSON object at top level")
    if data.get("api_version") != SAMPLES_API_VERSION or data.get("kind") != SAMPLES_KIND:
        found = (data.get("kind"), data.get("api_version"))
        raise ResultFileError(
            path, f"not a perfgate sample file v{SAMPLES_API_VERSION} (kind, version={found})"
        )
    for name in ("base", "head", "fingerprint", "rounds"):
        if name not in data:
            raise ResultFileError(path, f"missing key {name!r}")
    if not isinstance(data["fingerprint"], dict) or not isinstance(data["rounds"], list):
        raise ResultFileError(path, "'fingerprint' must be an object and 'rounds' a list")
    per_round = [_round_cases(path, i, r) for i, r in enumerate(data["rounds"])]
    keys = sorted({k for r in per_round for k in r})
    cases = {}
    for key in keys:
        pairs = [r[key] for r in per_round if key in r]
        cases[key] = PairedCase(key, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs))
    orders = tuple(_order(path, i, r.get("order")) for i, r in enumerate(data["rounds"]))
    for name in ("base", "head"):
        if not isinstance(data[name], str):
            raise ResultFileError(path, f"{name}: expected a commit hash, got {data[name]!r}")
    return SampleRun(
        path=path,
        base=data["base"],
        head=data["head"],
        fingerprint=dict(data["fingerprint"]),
        unit=str(data.get("unit", "seconds")),
        created_at=str(data.get("created_at", "")),
        cases=cases,
        orders=orders,
    )


def read_samples(path: str | os.PathLike[str]) -> SampleRun:
    """Read and validate a perfgate sample file; problems raise `ResultFileError`.

    A checkpoint (``"complete": false``, written after every round) is refused: it holds the
    rounds of a run that did not finish, which is not what anyone should decide on.
    """
    data = load_json(Path(path))
    if isinstance(data, dict) and "complete" in data and data["complete"] is not True:
        raise ResultFileError(
            path, "a checkpoint of an unfinished run (complete: false); use its samples file"
        )
    return parse_samples(data, str(path))


# --------------------------------------------------------------------------------------------
# Atomic, no-clobber writing
# --------------------------------------------------------------------------------------------


def _publish_no_clobber(tmp: Path, target: Path) -> None:
    """Move a fully written temporary file to *target*, never replacing an existing file."""
    try:
        os.link(tmp, target)  # atomic and fails if target exists
    except FileExistsError:
        raise UserError(f"{target} already exists; result files are never overwritten") from None
    except OSError:
        # No hard links on this filesystem: reserve the name atomically (O_EXCL), then move
        # the finished file over the empty placeholder. A reader in that instant sees an
        # empty file, which every reader refuses as truncated; a racing writer is refused.
        try:
            os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            raise UserError(f"{target} already exists; refusing to overwrite") from None
        os.replace(tmp, target)
        return
    tmp.unlink()


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write *text* to a new file: temp file in the same folder, fsync, then publish.

    Refuses (`UserError`) to overwrite an existing file. Readers never see a partial file:
    the temporary name ends in ``.tmp`` and `is_partial_name` rejects it.
    """
    target = Path(path)
    if target.exists():
        raise UserError(f"{target} already exists; result files are never overwritten")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        _publish_no_clobber(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    _fsync_dir(target.parent)
    return target


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_json_atomic(path: str | os.PathLike[str], data: Any) -> Path:
    """Serialize *data* as indented JSON and write it with `write_text_atomic`."""
    return write_text_atomic(path, json.dumps(data, indent=1) + "\n")


def write_samples_atomic(path: str | os.PathLike[str], data: Mapping[str, Any]) -> Path:
    """Validate a sample-file dict (see module docstring) and write it atomically, no clobber."""
    parse_samples(dict(data), str(path))
    return write_json_atomic(path, dict(data))


# --------------------------------------------------------------------------------------------
# Noise-floor files (written by calibration from A/A runs)
# --------------------------------------------------------------------------------------------

NOISE_API_VERSION = 1
NOISE_KIND = "perfgate-noise"


def parse_noise_floors(data: Any, path: str = "<noise>") -> dict[CaseKey, float]:
    """Validate a noise-floor document and return case -> relative noise floor.

    Format (``NOISE_API_VERSION`` 1)::

        {"api_version": 1, "kind": "perfgate-noise", "machine": "...",
         "cases": [{"benchmark": "b", "params": {"n": "8"}, "noise_floor": 0.07,
                    "pairs": 20}]}
    """
    if not isinstance(data, dict) or data.get("kind") != NOISE_KIND:
        raise ResultFileError(path, f"not a {NOISE_KIND} file")
    if data.get("api_version") != NOISE_API_VERSION:
        raise ResultFileError(path, f"unsupported api_version {data.get('api_version')!r}")
    cases = data.get("cases")
    if not isinstance(cases, list):
        raise ResultFileError(path, "'cases' must be a list")
    out: dict[CaseKey, float] = {}
    for i, case in enumerate(cases):
        if not isinstance(case, dict) or not isinstance(case.get("benchmark"), str):
            raise ResultFileError(path, f"case {i}: needs a 'benchmark' name")
        floor = case.get("noise_floor")
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0 <= floor < 10:
            # the range of a configured threshold: an infinite floor would switch the gate off
            raise ResultFileError(
                path, f"case {i}: noise_floor must be a relative change in [0, 10), got {floor!r}"
            )
        params = case.get("params", {})
        if not isinstance(params, dict):
            raise ResultFileError(path, f"case {i}: params must be an object")
        key = CaseKey(case["benchmark"], tuple((str(k), str(v)) for k, v in params.items()))
        out[key] = float(floor)
    return out


def read_noise_floors(path: str | os.PathLike[str]) -> dict[CaseKey, float]:
    """Read a noise-floor file; problems raise `ResultFileError` naming the file."""
    return parse_noise_floors(load_json(Path(path)), str(path))


def write_noise_floors_atomic(path: str | os.PathLike[str], data: Mapping[str, Any]) -> Path:
    """Validate and write a noise-floor document atomically (never overwrites)."""
    parse_noise_floors(dict(data), str(path))
    return write_json_atomic(path, dict(data))
