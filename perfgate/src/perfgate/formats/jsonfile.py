"""Loading a JSON file with errors that name it (shared by every JSON format reader), and
the UTC time stamp the documents perfgate writes carry as ``created_at``."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

from perfgate.atomic import is_partial_name
from perfgate.errors import ResultFileError


def utc_stamp() -> str:
    """Now in UTC, ISO 8601 to the second (the ``created_at`` of a written document)."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


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
    return parse_json(path, text)


def parse_json(path: str | Path, text: str) -> Any:
    """``text`` (the content of ``path``) as JSON; corrupt text raises `ResultFileError`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultFileError(path, f"corrupt or truncated JSON ({exc})") from None


def versioned(path: str | Path, data: Any, key: str, version: int) -> dict[str, Any]:
    """``data`` (loaded from ``path``) if it is a JSON object whose ``key`` equals
    ``version`` (asv's file versions), else `ResultFileError`."""
    if not isinstance(data, dict):
        raise ResultFileError(path, "expected a JSON object at top level")
    found = data.get(key)
    if found != version:
        raise ResultFileError(path, f"unsupported {key} {found!r}; expected {version}")
    return data


def load_versioned(path: Path, key: str, version: int) -> dict[str, Any]:
    """A JSON object whose ``key`` equals ``version`` (asv's file versions)."""
    return versioned(path, load_json(path), key, version)
