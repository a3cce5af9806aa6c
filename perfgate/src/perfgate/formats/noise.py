"""Noise-floor files (``perfgate-noise`` v1), written by ``perfgate calibrate``: the only
reader and writer, their place in the work folder (``noise/<machine>/<UTC time>.json``), and
their content digests (``perfgate-noise-digest`` v1, ``<UTC time>.digest.json`` beside each
file on the perf-results branch: ``{"kind": ..., "api_version": 1, "file": "<name>.json",
"sha256": "<hex of the file's bytes>"}``; `perfgate.calibration.stored`).

Format (``NOISE_API_VERSION`` 1; keys beyond ``cases`` are informational)::

    {"api_version": 1, "kind": "perfgate-noise", "machine": "...", "created_at": "...",
     "commit": "<sha>", "window": 6, "fingerprint": {...},
     "cases": [{"benchmark": "b", "params": {"n": "8"}, "noise_floor": 0.07,
                "round_floor": 0.2, "pairs": 20, "rounds": 25}],
     "sim": [{"benchmark": "s.S.track_cycles", "params": {"n": "8"},
              "version": "sim-...", "spread": 0.0, "counts": 3}]}

``sim`` (optional) is the determinism check of the sim instrument: each case of the sim
family counted ``counts`` times in separate processes of one commit, the largest relative
difference between them, and the benchmark version they were counted under (valgrind, the
simulated caches and the measuring code). A gate on the same machine with figures of the
same version needs no second count of its base for those cases.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.atomic import is_partial_name, write_json_atomic
from perfgate.errors import ResultFileError
from perfgate.formats.jsonfile import load_json
from perfgate.model import CaseKey

NOISE_API_VERSION = 1
NOISE_KIND = "perfgate-noise"
DIGEST_KIND = "perfgate-noise-digest"
DIGEST_SUFFIX = ".digest.json"
#: The name `perfgate calibrate` gives a noise file: its UTC time (``%Y%m%dT%H%M%S[%f]Z``),
#: so that the newest sorts last. On the perf-results branch no other name is a noise file.
NOISE_FILE_NAME = re.compile(r"^\d{8}T\d{6}(\d{6})?Z\.json$")


@dataclass(frozen=True)
class SimCheck:
    """The determinism of one sim case on a machine: counts of one commit in separate
    processes (one with its memory layout shifted), the largest relative difference of their
    estimated cycles and of their instructions (None: a check that predates it), under one
    benchmark version."""

    key: CaseKey
    version: str
    spread: float
    counts: int
    instructions_spread: float | None = None


def parse_sim_checks(data: Any, path: str = "<noise>") -> dict[CaseKey, SimCheck]:
    """The ``sim`` list of a noise document by canonical case key (absent: none); invalid
    entries raise."""
    entries = data.get("sim", []) if isinstance(data, dict) else []
    if not isinstance(entries, list):
        raise ResultFileError(path, "'sim' must be a list")
    out: dict[CaseKey, SimCheck] = {}
    for i, entry in enumerate(entries):
        ok = isinstance(entry, dict) and isinstance(entry.get("benchmark"), str)
        ok = ok and isinstance(entry.get("version"), str) and isinstance(entry.get("params"), dict)
        spread, counts = (entry.get("spread"), entry.get("counts")) if ok else (None, None)
        if not ok or not isinstance(spread, int | float) or isinstance(spread, bool):
            raise ResultFileError(path, f"sim check {i}: needs benchmark, params, version, spread")
        if not 0 <= spread < 1 or not isinstance(counts, int) or counts < 2:
            raise ResultFileError(path, f"sim check {i}: spread in [0, 1) of >= 2 counts")
        key = CaseKey(
            entry["benchmark"], tuple((str(k), str(v)) for k, v in entry["params"].items())
        )
        proof = entry.get("instructions_spread")
        if proof is not None and (
            not isinstance(proof, int | float) or isinstance(proof, bool) or not 0 <= proof < 1
        ):
            raise ResultFileError(path, f"sim check {i}: instructions_spread in [0, 1)")
        out[key.canonical()] = SimCheck(
            key, entry["version"], float(spread), counts, None if proof is None else float(proof)
        )
    return out


@dataclass(frozen=True)
class CaseFloor:
    """The calibrated noise of one case."""

    key: CaseKey
    noise_floor: float
    round_floor: float
    windows: int
    rounds: int


def parse_noise_floors(data: Any, path: str = "<noise>") -> dict[CaseKey, float]:
    """Validate a noise-floor document and return case -> relative noise floor."""
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


@dataclass(frozen=True)
class NoiseFile:
    """A noise file as loaded, read once: what it says it was calibrated for, and its data
    (the floors are validated only when asked for, by :meth:`floors`)."""

    path: Path
    data: Any

    @property
    def is_object(self) -> bool:
        """True when the file holds a JSON object (anything else names nothing)."""
        return isinstance(self.data, dict)

    def _get(self, key: str) -> Any:
        return self.data.get(key) if isinstance(self.data, dict) else None

    @property
    def machine(self) -> Any:
        """The machine id recorded in the file (None when absent)."""
        return self._get("machine")

    @property
    def window(self) -> Any:
        """The calibration window (``min_samples``) recorded in the file."""
        return self._get("window")

    @property
    def fingerprint(self) -> dict[str, Any]:
        """The recorded machine fingerprint ({} when absent or not an object)."""
        recorded = self._get("fingerprint")
        return recorded if isinstance(recorded, dict) else {}

    def floors(self) -> dict[CaseKey, float]:
        """Case -> noise floor; an invalid document raises `ResultFileError`."""
        return parse_noise_floors(self.data, str(self.path))

    def sim_checks(self) -> dict[CaseKey, SimCheck]:
        """Sim case -> its calibrated determinism check (`SimCheck`)."""
        return parse_sim_checks(self.data, str(self.path))


def read_noise_file(path: Path) -> NoiseFile:
    """Load a noise file (corrupt JSON raises `ResultFileError` naming it)."""
    return NoiseFile(path, load_json(path))


def read_noise_floors(path: str | os.PathLike[str]) -> dict[CaseKey, float]:
    """Read a noise-floor file; problems raise `ResultFileError` naming the file."""
    return read_noise_file(Path(path)).floors()


def noise_document(
    floors: Sequence[CaseFloor],
    machine_name: str,
    sha: str,
    window: int,
    fingerprint: Mapping[str, Any],
    created_at: str,
    sim_checks: Sequence[SimCheck] = (),
) -> dict[str, Any]:
    """The ``perfgate-noise`` v1 document of a calibration."""
    sim = [
        {
            "benchmark": c.key.benchmark,
            "params": dict(c.key.params),
            "version": c.version,
            "spread": c.spread,
            "counts": c.counts,
        }
        | ({} if c.instructions_spread is None else {"instructions_spread": c.instructions_spread})
        for c in sim_checks
    ]
    return ({"sim": sim} if sim else {}) | {
        "api_version": NOISE_API_VERSION,
        "kind": NOISE_KIND,
        "machine": machine_name,
        "created_at": created_at,
        "commit": sha,
        "window": window,
        "fingerprint": fingerprint,
        "cases": [
            {
                "benchmark": f.key.benchmark,
                "params": dict(f.key.params),
                "noise_floor": f.noise_floor,
                "round_floor": f.round_floor,
                "pairs": f.windows,
                "rounds": f.rounds,
            }
            for f in floors
        ],
    }


def write_noise_floors_atomic(path: str | os.PathLike[str], data: Mapping[str, Any]) -> Path:
    """Validate and write a noise-floor document atomically (never overwrites)."""
    parse_noise_floors(dict(data), str(path))
    parse_sim_checks(dict(data), str(path))
    return write_json_atomic(path, dict(data))


def noise_dir(work_dir: Path, machine_name: str) -> Path:
    """Folder of the noise-floor files of one machine id."""
    return work_dir / "noise" / machine_name


def newest_noise_file(work_dir: Path, machine_name: str) -> Path | None:
    """The newest complete noise-floor file of ``machine_name`` (names sort by time)."""
    folder = noise_dir(work_dir, machine_name)
    if not folder.is_dir():
        return None
    files = sorted(
        p for p in folder.iterdir() if p.suffix == ".json" and not is_partial_name(p.name)
    )
    return files[-1] if files else None


def content_digest(content: bytes) -> str:
    """The sha256 (hex) of a noise file's bytes, as its digest file records it."""
    return hashlib.sha256(content).hexdigest()


def digest_document(file_name: str, content: bytes) -> dict[str, Any]:
    """The ``perfgate-noise-digest`` v1 document of the noise file ``file_name``."""
    return {
        "api_version": NOISE_API_VERSION,
        "kind": DIGEST_KIND,
        "file": file_name,
        "sha256": content_digest(content),
    }


def digest_name(file_name: str) -> str:
    """The digest file beside the noise file ``file_name`` (``x.json``: ``x.digest.json``)."""
    return file_name.removesuffix(".json") + DIGEST_SUFFIX


def verified_noise_file(label: str, content: bytes, digest: bytes | None) -> NoiseFile:
    """A noise file read from the perf-results branch, refused (`ResultFileError`, exit 3)
    unless its digest file names it and records the sha256 of exactly these bytes."""
    if digest is None:
        raise ResultFileError(label, "no content digest beside it; refusing the noise floors")
    try:
        recorded = json.loads(digest)
    except ValueError as exc:
        raise ResultFileError(label, f"corrupt digest file ({exc}); refusing it") from None
    name = label.rsplit("/", 1)[-1]
    if not isinstance(recorded, dict) or recorded.get("kind") != DIGEST_KIND:
        raise ResultFileError(label, f"its digest file is not a {DIGEST_KIND} file")
    if recorded.get("file") != name:
        raise ResultFileError(label, f"its digest file names {recorded.get('file')!r}")
    actual = content_digest(content)
    if recorded.get("sha256") != actual:
        raise ResultFileError(
            label,
            f"content digest mismatch (sha256 {actual}, recorded {recorded.get('sha256')!r}):"
            " the file was changed apart from its digest; refusing the noise floors",
        )
    try:
        data = json.loads(content)
    except ValueError as exc:
        raise ResultFileError(label, f"corrupt or truncated JSON ({exc})") from None
    return NoiseFile(Path(label), data)
