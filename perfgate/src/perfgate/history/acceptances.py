"""Accepted regressions in the ``perf-results`` history: ``acceptances/<pr>-<head>.json``,
the ``perfgate-acceptance`` record ``perfgate post --acceptance-record`` wrote when a user
with write access applied the override label (`perfgate.acceptance`). Appended by
``perfgate history append-acceptance``; a record is never overwritten.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from perfgate.acceptance import ACCEPTANCE_KIND
from perfgate.errors import ResultFileError
from perfgate.history.append import AppendReport, append
from perfgate.history.order import ACCEPTANCES_DIR
from perfgate.retry import RetryPolicy

_LOGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$")


def record_path(record: object, where: Path) -> str:
    """Where a valid acceptance record goes on the branch (errors name ``where``)."""
    if not isinstance(record, dict) or record.get("kind") != ACCEPTANCE_KIND:
        raise ResultFileError(where, f"not a {ACCEPTANCE_KIND} record")
    pr, head, user = record.get("pull_request"), record.get("head"), record.get("accepted_by")
    if isinstance(pr, bool) or not isinstance(pr, int) or pr < 1:
        raise ResultFileError(where, f"pull_request {pr!r} is not a pull request number")
    if not isinstance(head, str) or not re.fullmatch(r"[0-9a-f]{40}", head):
        raise ResultFileError(where, f"head {head!r} is not a full commit SHA")
    if not isinstance(user, str) or not _LOGIN.match(user):
        raise ResultFileError(where, f"accepted_by {user!r} is not a GitHub login")
    return f"{ACCEPTANCES_DIR}/{pr}-{head}.json"


def append_acceptance(
    repo: Path, record_file: Path, remote: str, branch: str, policy: RetryPolicy | None = None
) -> AppendReport:
    """Append the acceptance record ``record_file`` to ``branch``."""
    content = record_file.read_bytes()
    try:
        record = json.loads(content)
    except ValueError as exc:
        raise ResultFileError(record_file, f"corrupt or truncated JSON ({exc})") from None
    target = record_path(record, record_file)
    with tempfile.TemporaryDirectory(prefix="perfgate-acceptance-") as tmp:
        path = Path(tmp) / target
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
        return append(repo, Path(tmp), remote, branch, policy)
