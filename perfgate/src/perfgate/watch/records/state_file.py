"""Watch state records (``perfgate-watch-change`` v1): the only reader and writer.

One JSON file per snapshot of a change (`perfgate.watch.records.state.WatchedChange`), kept on the
``perf-results`` branch under ``watch/``; files are only ever added::

    watch/<change_id>/<sequence, 4 digits>-<sha256 of the content, 12 digits>.json

    {"api_version": 1, "kind": "perfgate-watch-change", "recorded_at": "<UTC ISO time>",
     "change_id": "...", "sequence": 2, "benchmark": "...", "params": ["..."],
     "machine": "...", "last_good_commit": "<sha>", "commit": "<sha>", "ratio": 1.08,
     "direction": "regression", "status": "suspected", "evidence": "commits",
     "p_value": 0.004, "before": 1.0, "after": 1.08, "culprit": null, "issue": 12,
     "issue_closed": false, "recovered_by": null, "culprit_pr": null,
     "narrowed_good": "<sha>", "narrowed_bad": "<sha>", "checked_through": "<sha>",
     "probes": [{"base": "<sha>", "head": "<sha>", "verdict": "worse", "ratio": 1.08,
                 "ci_low": 1.06, "ci_high": 1.10, "seconds": 190.0, "note": ""}]}

The last five keys (a confirmation's, a bisection's and a recovery check's progress) came
later: a record without them reads as none yet.

The name depends on the content, so two writers that record the same snapshot add one file,
and two that record different ones at the same sequence both keep theirs (the readers pick
one the same way, `perfgate.watch.records.state.latest`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from perfgate.errors import ResultFileError
from perfgate.secrets import Redactor
from perfgate.watch.changes.detect import ChangeStatus, Direction, Evidence
from perfgate.watch.probes.prober import Probe, ProbeVerdict, probe_record
from perfgate.watch.records.state import WatchedChange

WATCH_API_VERSION = 1
WATCH_KIND = "perfgate-watch-change"
WATCH_DIR = "watch"
_ID = re.compile(r"[0-9a-f]{16}")
_NAME = re.compile(r"watch/([0-9a-f]{16})/[0-9]{4,}-[0-9a-f]{12}\.json")
_TEXT_FIELDS = ("change_id", "benchmark", "machine", "last_good_commit", "commit")
_NUMBER_FIELDS = ("ratio", "p_value", "before", "after")
#: Every field name of a record and of its probes (never redacted: the reader needs them).
_FIELD_NAMES = frozenset(
    {
        *("api_version", "kind", "recorded_at", "change_id", "sequence", "benchmark", "params"),
        *("machine", "last_good_commit", "commit", "ratio", "direction", "status", "evidence"),
        *("p_value", "before", "after", "culprit", "issue", "issue_closed", "recovered_by"),
        *("culprit_pr", "narrowed_good", "narrowed_bad", "checked_through", "probes"),
        *("base", "head", "verdict", "ci_low", "ci_high", "seconds", "note"),
    }
)


def is_record_path(path: str) -> bool:
    """Whether a branch path names a watch record."""
    return _NAME.fullmatch(path) is not None


def record_bytes(
    change: WatchedChange, recorded_at: str, redactor: Redactor | None = None
) -> bytes:
    """The file content of one snapshot (keys in a fixed order, one per line); every text
    redacted by ``redactor``, the field names excepted."""
    data: dict[str, Any] = {
        "api_version": WATCH_API_VERSION,
        "kind": WATCH_KIND,
        "recorded_at": recorded_at,
        "change_id": change.change_id,
        "sequence": change.sequence,
        "benchmark": change.benchmark,
        "params": list(change.params),
        "machine": change.machine,
        "last_good_commit": change.last_good_commit,
        "commit": change.commit,
        "ratio": change.ratio,
        "direction": change.direction.value,
        "status": change.status.value,
        "evidence": change.evidence.value,
        "p_value": change.p_value,
        "before": change.before,
        "after": change.after,
        "culprit": change.culprit,
        "issue": change.issue,
        "issue_closed": change.issue_closed,
        "recovered_by": change.recovered_by,
        "culprit_pr": change.culprit_pr,
        "narrowed_good": change.narrowed_good,
        "narrowed_bad": change.narrowed_bad,
        "checked_through": change.checked_through,
        "probes": [probe_record(p) for p in change.probes],
    }
    if redactor is not None:
        data = redactor.value(data, keep=_FIELD_NAMES)
    return (json.dumps(data, indent=1) + "\n").encode()


def record_path(change: WatchedChange, content: bytes) -> str:
    """The branch path of a snapshot with file content ``content``."""
    digest = hashlib.sha256(content).hexdigest()[:12]
    return f"{WATCH_DIR}/{change.change_id}/{change.sequence:04d}-{digest}.json"


def parse_record(content: bytes, path: str) -> WatchedChange:
    """One snapshot from its file content; `ResultFileError` naming ``path`` if malformed."""
    try:
        data = json.loads(content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ResultFileError(path, f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("kind") != WATCH_KIND:
        raise ResultFileError(path, f"not a {WATCH_KIND} record")
    if data.get("api_version") != WATCH_API_VERSION:
        raise ResultFileError(path, f"unsupported api_version {data.get('api_version')!r}")
    try:
        return _change(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultFileError(path, f"malformed record: {exc!r}") from None


def _change(data: Mapping[str, Any]) -> WatchedChange:
    for key in _TEXT_FIELDS:
        if not isinstance(data[key], str) or not data[key]:
            raise ValueError(f"{key} must be a non-empty string")
    if not _ID.fullmatch(data["change_id"]):
        raise ValueError("change_id must be 16 hex digits")
    for key in _NUMBER_FIELDS:
        if isinstance(data[key], bool) or not isinstance(data[key], (int, float)):
            raise ValueError(f"{key} must be a number")
    params = data["params"]
    if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
        raise ValueError("params must be a list of strings")
    sequence, issue = data["sequence"], data["issue"]
    if isinstance(sequence, bool) or not isinstance(sequence, int) or sequence < 1:
        raise ValueError("sequence must be an int >= 1")
    if issue is not None and (isinstance(issue, bool) or not isinstance(issue, int)):
        raise ValueError("issue must be an int or null")
    return WatchedChange(
        change_id=data["change_id"],
        sequence=sequence,
        benchmark=data["benchmark"],
        params=tuple(params),
        machine=data["machine"],
        last_good_commit=data["last_good_commit"],
        commit=data["commit"],
        ratio=float(data["ratio"]),
        direction=Direction(data["direction"]),
        status=ChangeStatus(data["status"]),
        evidence=Evidence(data["evidence"]),
        p_value=float(data["p_value"]),
        before=float(data["before"]),
        after=float(data["after"]),
        culprit=_optional_text(data, "culprit"),
        issue=issue,
        issue_closed=bool(data["issue_closed"]),
        recovered_by=_optional_text(data, "recovered_by"),
        culprit_pr=_optional_int(data, "culprit_pr"),
        narrowed_good=_optional_text(data, "narrowed_good", later=True),
        narrowed_bad=_optional_text(data, "narrowed_bad", later=True),
        checked_through=_optional_text(data, "checked_through", later=True),
        probes=_probes(data.get("probes", [])),
    )


def _optional_text(data: Mapping[str, Any], key: str, *, later: bool = False) -> str | None:
    """A string or null at ``key``; a key added ``later`` than v1 may be absent."""
    value = data.get(key) if later else data[key]
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string or null")
    return value


def _optional_int(data: Mapping[str, Any], key: str) -> int | None:
    """An int or null at ``key``, a key added later than v1 (absent: null)."""
    value = data.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"{key} must be an int or null")
    return value


def _probes(items: Any) -> tuple[Probe, ...]:
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise ValueError("probes must be a list of objects")
    return tuple(_probe(item) for item in items)


def _probe(item: Mapping[str, Any]) -> Probe:
    for key in ("base", "head"):
        if not isinstance(item[key], str) or not item[key]:
            raise ValueError(f"probes[].{key} must be a non-empty string")
    figures = [_optional_number(item, key) for key in ("ratio", "ci_low", "ci_high")]
    seconds = _optional_number(item, "seconds")
    if not isinstance(item["note"], str):
        raise ValueError("probes[].note must be a string")
    return Probe(
        base=item["base"],
        head=item["head"],
        verdict=ProbeVerdict(item["verdict"]),
        ratio=figures[0],
        ci_low=figures[1],
        ci_high=figures[2],
        seconds=seconds if seconds is not None else 0.0,
        note=item["note"],
    )


def _optional_number(data: Mapping[str, Any], key: str) -> float | None:
    value = data[key]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{key} must be a number or null")
    return float(value)
