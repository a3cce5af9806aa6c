"""A shard's manifest (``shard.json``, ``perfgate-shard`` v1): the only reader and writer.

``perfgate gate --shard K/N`` writes it beside the shard's sample files, for ``perfgate
merge``::

    {"api_version": 1, "kind": "perfgate-shard", "created_at": "...",
     "shard": K, "of": N, "plan_digest": "<sha256>", "base": "<sha>", "head": "<sha>",
     "runner": "name", "machine": "perfgate-...", "config_source": "<sha>:pyproject.toml",
     "fingerprint_start": {...}, "fingerprint_end": {...},
     "planned": [{"benchmark": "b", "params": {"n": "8"}}, ...],
     "cases": [...the planned cases this shard measured...],
     "units": {"b": "seconds"}, "floors": [{"benchmark": ..., "params": ..., "floor": 0.02}],
     "parity": {"status": "passed", "command": "...", "summary": "...", "sha": "...",
                "failed_tests": []},
     "samples": ["main-samples.json", "confirm-samples.json"],
     "one_sided": [{"phase": "main", "round": 0, "side": "head", "benchmark": ...,
                    "params": ..., "samples": [t, ...] | null}],
     "extra_rounds": 0, "budget_exhausted": false, "notes": ["..."],
     "asv_environments": {"base": ["existing-py_..."], "head": ["existing-py_..."]}}

The sample files (`perfgate.formats.samples`) hold the cases that ran on both sides of a
round; ``one_sided`` holds the rest (a case new or removed at head), so the merge rebuilds
every round as the shard ran it. ``asv_environments`` names the asv environments each side's
runs measured in (absent in manifests written before it was kept: unknown).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfgate.atomic import write_json_atomic
from perfgate.errors import ResultFileError
from perfgate.formats.jsonfile import load_json
from perfgate.model import CaseKey, ParityResult, ParityStatus, Round, Samples

SHARD_API_VERSION = 1
SHARD_KIND = "perfgate-shard"
MANIFEST = "shard.json"


@dataclass(frozen=True)
class OneSided:
    """A case that ran on one side only in one round of one phase."""

    phase: str
    round: int
    side: str
    key: CaseKey
    samples: Samples


@dataclass(frozen=True)
class ShardManifest:
    """What one shard measured, where, and with what (see the module docstring)."""

    shard: int
    of: int
    plan_digest: str
    base: str
    head: str
    runner: str
    machine: str
    config_source: str
    fingerprint_start: Mapping[str, Any]
    fingerprint_end: Mapping[str, Any]
    planned: tuple[CaseKey, ...]
    cases: tuple[CaseKey, ...]
    parity: ParityResult
    units: Mapping[str, str] = field(default_factory=dict)
    floors: Mapping[CaseKey, float] = field(default_factory=dict)
    samples: tuple[str, ...] = ()
    one_sided: tuple[OneSided, ...] = ()
    extra_rounds: int = 0
    budget_exhausted: bool = False
    notes: tuple[str, ...] = ()
    created_at: str = ""
    #: side ("base", "head") -> the asv environments its runs measured in
    environments: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def _key_doc(key: CaseKey) -> dict[str, Any]:
    return {"benchmark": key.benchmark, "params": dict(key.params)}


def to_document(m: ShardManifest) -> dict[str, Any]:
    """The JSON document of ``m``."""
    return {
        "api_version": SHARD_API_VERSION,
        "kind": SHARD_KIND,
        "created_at": m.created_at,
        "shard": m.shard,
        "of": m.of,
        "plan_digest": m.plan_digest,
        "base": m.base,
        "head": m.head,
        "runner": m.runner,
        "machine": m.machine,
        "config_source": m.config_source,
        "fingerprint_start": dict(m.fingerprint_start),
        "fingerprint_end": dict(m.fingerprint_end),
        "planned": [_key_doc(k) for k in m.planned],
        "cases": [_key_doc(k) for k in m.cases],
        "units": dict(m.units),
        "floors": [{**_key_doc(k), "floor": v} for k, v in m.floors.items()],
        "parity": {
            "status": m.parity.status.value,
            "command": m.parity.command,
            "summary": m.parity.summary,
            "sha": m.parity.sha,
            "failed_tests": list(m.parity.failed_tests),
        },
        "samples": list(m.samples),
        "one_sided": [
            {
                "phase": o.phase,
                "round": o.round,
                "side": o.side,
                **_key_doc(o.key),
                "samples": None if o.samples is None else list(o.samples),
            }
            for o in m.one_sided
        ],
        "extra_rounds": m.extra_rounds,
        "budget_exhausted": m.budget_exhausted,
        "notes": list(m.notes),
        "asv_environments": {side: list(names) for side, names in m.environments.items()},
    }


class _Reader:
    """Typed access to one manifest's fields; every problem names the file and the field."""

    def __init__(self, path: str, data: Mapping[str, Any]) -> None:
        self.path, self.data = path, data

    def get(self, name: str, kind: type | tuple[type, ...], where: Any = None) -> Any:
        source = self.data if where is None else where
        value = source.get(name) if isinstance(source, Mapping) else None
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ResultFileError(self.path, f"{name}: expected {kind}, got {value!r}")
        return value

    def key(self, item: Any) -> CaseKey:
        if not isinstance(item, Mapping):
            raise ResultFileError(self.path, f"expected a case object, got {item!r}")
        params = self.get("params", dict, item)
        return CaseKey(
            self.get("benchmark", str, item), tuple((str(k), str(v)) for k, v in params.items())
        )

    def keys(self, name: str) -> tuple[CaseKey, ...]:
        return tuple(self.key(item) for item in self.get(name, list))

    def samples(self, value: Any) -> Samples:
        if value is None:
            return None
        ok = (
            isinstance(value, list)
            and value
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        )
        if not ok:
            raise ResultFileError(self.path, f"samples: expected numbers or null, got {value!r}")
        return tuple(float(v) for v in value)

    def one_sided(self, item: Any) -> OneSided:
        side = self.get("side", str, item)
        if side not in ("base", "head"):
            raise ResultFileError(self.path, f"one_sided: side must be base or head, got {side!r}")
        return OneSided(
            self.get("phase", str, item),
            self.get("round", int, item),
            side,
            self.key(item),
            self.samples(item.get("samples")),
        )

    def environments(self) -> dict[str, tuple[str, ...]]:
        found = self.data.get("asv_environments", {})
        ok = isinstance(found, Mapping) and all(
            side in ("base", "head")
            and isinstance(names, list)
            and all(isinstance(n, str) for n in names)
            for side, names in found.items()
        )
        if not ok:
            raise ResultFileError(
                self.path, f"asv_environments: expected {{side: [names]}}, got {found!r}"
            )
        return {side: tuple(names) for side, names in found.items()}

    def parity(self) -> ParityResult:
        doc = self.get("parity", dict)
        try:
            status = ParityStatus(self.get("status", str, doc))
        except ValueError:
            raise ResultFileError(self.path, f"parity: unknown status {doc['status']!r}") from None
        failed = doc.get("failed_tests", [])
        if not isinstance(failed, list) or not all(isinstance(t, str) for t in failed):
            raise ResultFileError(
                self.path, f"parity: failed_tests must be test ids, got {failed!r}"
            )
        sha = doc.get("sha")
        return ParityResult(
            status,
            str(doc.get("command", "")),
            str(doc.get("summary", "")),
            sha=sha if isinstance(sha, str) else None,
            failed_tests=tuple(failed),
        )


def parse_manifest(data: Any, path: str = "<shard>") -> ShardManifest:
    """Validate a manifest document (as loaded from JSON) and build a `ShardManifest`."""
    if not isinstance(data, dict):
        raise ResultFileError(path, "expected a JSON object at top level")
    if data.get("kind") != SHARD_KIND or data.get("api_version") != SHARD_API_VERSION:
        found = (data.get("kind"), data.get("api_version"))
        raise ResultFileError(path, f"not a perfgate shard manifest v{SHARD_API_VERSION} {found}")
    r = _Reader(path, data)
    units = r.get("units", dict)
    floors = {r.key(f): float(r.get("floor", (int, float), f)) for f in r.get("floors", list)}
    return ShardManifest(
        shard=r.get("shard", int),
        of=r.get("of", int),
        plan_digest=r.get("plan_digest", str),
        base=r.get("base", str),
        head=r.get("head", str),
        runner=r.get("runner", str),
        machine=r.get("machine", str),
        config_source=r.get("config_source", str),
        fingerprint_start=r.get("fingerprint_start", dict),
        fingerprint_end=r.get("fingerprint_end", dict),
        planned=r.keys("planned"),
        cases=r.keys("cases"),
        parity=r.parity(),
        units={str(k): str(v) for k, v in units.items()},
        floors=floors,
        samples=tuple(str(s) for s in r.get("samples", list)),
        one_sided=tuple(r.one_sided(o) for o in r.get("one_sided", list)),
        extra_rounds=r.get("extra_rounds", int),
        budget_exhausted=r.get("budget_exhausted", bool),
        notes=tuple(str(n) for n in r.get("notes", list)),
        created_at=str(data.get("created_at", "")),
        environments=r.environments(),
    )


def read_manifest(folder: str | os.PathLike[str]) -> ShardManifest:
    """Read and validate ``folder/shard.json``; problems raise `ResultFileError`."""
    path = Path(folder) / MANIFEST
    return parse_manifest(load_json(path), str(path))


def write_manifest(folder: str | os.PathLike[str], manifest: ShardManifest) -> Path:
    """Write ``folder/shard.json`` atomically, never overwriting a file."""
    doc = to_document(manifest)
    path = Path(folder) / MANIFEST
    parse_manifest(doc, str(path))
    return write_json_atomic(path, doc)


def one_sided_cases(phase: str, rounds: Sequence[Round]) -> list[OneSided]:
    """The one-sided entries of ``rounds`` of ``phase`` (cases that ran on one side only)."""
    out = []
    for rnd in rounds:
        for side, other in (("base", rnd.head), ("head", rnd.base)):
            for key, samples in sorted(rnd.side(side).items()):
                if key not in other:
                    out.append(OneSided(phase, rnd.index, side, key, samples))
    return out
