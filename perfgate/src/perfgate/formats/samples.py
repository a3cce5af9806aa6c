"""perfgate's paired sample file (``perfgate-samples`` v1): the only reader and writer.

``SAMPLES_API_VERSION`` history: 1 = first version::

    {"api_version": 1, "kind": "perfgate-samples", "created_at": "...",
     "fingerprint": {...machine fingerprint...}, "base": "<sha>", "head": "<sha>",
     "unit": "seconds", "complete": true,
     "rounds": [{"order": ["base", "head"], "phase": "main",
                 "cases": [{"benchmark": "b", "params": {"n": "8"},
                            "base": [t, ...] | null, "head": [t, ...] | null}]}]}

A round holds, for each case, the base and head samples measured back to back, so round *i*
of base and round *i* of head form a pair. ``null`` samples mean that side failed in that
round. The gate writes a checkpoint (``"complete": false``) after every round; only the
final file of a phase is complete, and only complete files are read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.atomic import write_json_atomic
from perfgate.errors import ResultFileError
from perfgate.formats.jsonfile import load_json
from perfgate.model import CaseKey, Round, natural_key

SAMPLES_API_VERSION = 1
SAMPLES_KIND = "perfgate-samples"


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
    #: the rounds as they ran (which cases each round held): variant vs baseline statistics
    #: pair the two cases round by round, which ``cases`` alone cannot say
    rounds: tuple[Round, ...] = ()


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
    rounds = tuple(
        Round(
            index=i,
            phase=str(raw.get("phase", "main")),
            order=("base", "head") if orders[i][0] == "base" else ("head", "base"),
            base={k: v[0] for k, v in per_round[i].items()},
            head={k: v[1] for k, v in per_round[i].items()},
        )
        for i, raw in enumerate(data["rounds"])
    )
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
        rounds=rounds,
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


def read_rounds(path: str | os.PathLike[str]) -> tuple[SampleRun, list[Round]]:
    """A complete sample file with its rounds as they ran (round index, phase, side order),
    for whoever must rebuild the rounds (``perfgate merge``); checked as `read_samples`."""
    run = read_samples(path)
    data = load_json(Path(path))
    out = []
    for index, rnd in enumerate(data["rounds"]):
        cases = _round_cases(str(path), index, rnd)
        phase = rnd.get("phase", "main")
        if not isinstance(phase, str):
            raise ResultFileError(path, f"round {index}: phase must be a string")
        order = _order(str(path), index, rnd.get("order"))
        out.append(
            Round(
                index,
                phase,
                (order[0], order[1]),
                {k: v[0] for k, v in cases.items()},
                {k: v[1] for k, v in cases.items()},
            )
        )
    return run, out


def samples_document(
    rounds: Sequence[Round],
    base: str,
    head: str,
    fingerprint: Mapping[str, Any],
    created_at: str,
    complete: bool,
) -> dict[str, Any]:
    """The document of ``rounds`` (cases that ran on both sides of a round only)."""
    out = []
    for rnd in rounds:
        cases = [
            {
                "benchmark": key.benchmark,
                "params": dict(key.params),
                "base": None if rnd.base[key] is None else list(rnd.base[key] or ()),
                "head": None if rnd.head[key] is None else list(rnd.head[key] or ()),
            }
            for key in sorted(set(rnd.base) & set(rnd.head), key=natural_key)
        ]
        out.append({"order": list(rnd.order), "phase": rnd.phase, "cases": cases})
    return {
        "api_version": SAMPLES_API_VERSION,
        "kind": SAMPLES_KIND,
        "created_at": created_at,
        "fingerprint": dict(fingerprint),
        "base": base,
        "head": head,
        "unit": "seconds",
        "rounds": out,
        "complete": complete,
    }


def write_samples_atomic(path: str | os.PathLike[str], data: Mapping[str, Any]) -> Path:
    """Validate a sample document and write it atomically, never overwriting a file."""
    parse_samples(dict(data), str(path))
    return write_json_atomic(path, dict(data))
