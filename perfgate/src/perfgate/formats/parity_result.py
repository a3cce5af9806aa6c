"""A parity-result file: the only reader and writer.

``{"status": "passed|failed|not run|error", "command": "...", "summary": "...",
"sha": "<head commit>", "failed_tests": ["tests/a_test.py::test_b", ...]}``

Written by ``perfgate parity-result`` in CI (the parity command run once per head commit, on
a hosted runner) or by hand; read by ``perfgate gate --parity-result``, which takes it instead
of running parity itself, and by ``perfgate compare --parity-result``. ``sha`` and
``failed_tests`` came later and are optional when reading, except that whoever knows the head
commit refuses a result recorded for another one, and the gate (``require_sha``) refuses a
result that records none: it could be of any commit.
"""

from __future__ import annotations

import re
from pathlib import Path

from perfgate.atomic import write_json_atomic
from perfgate.errors import UserError
from perfgate.formats.jsonfile import load_json
from perfgate.model import ParityResult, ParityStatus

#: A full commit id (SHA-1, or SHA-256 for repositories that use it).
FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_STATUSES = {s.value: s for s in ParityStatus}


def _sha(path: str, data: dict[str, object]) -> str | None:
    sha = data.get("sha")
    if sha is None:
        return None
    if not isinstance(sha, str) or not FULL_SHA.fullmatch(sha):
        raise UserError(f"{path}: 'sha' must be a full commit id (40 hex digits), got {sha!r}")
    return sha


def _failed_tests(path: str, data: dict[str, object]) -> tuple[str, ...]:
    tests = data.get("failed_tests", [])
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        raise UserError(f"{path}: 'failed_tests' must be a list of test ids, got {tests!r}")
    return tuple(tests)


def check_head(path: str, result: ParityResult, head: str, require_sha: bool) -> None:
    """Refuse ``result`` unless it was recorded at ``head`` (a full commit id).

    Without a recorded ``sha`` it is refused only when ``require_sha`` says so.
    """
    if result.sha is None:
        if require_sha:
            raise UserError(
                f"parity result {path} records no 'sha'; it could be of any commit, and the "
                f"gate takes parity only for its head {head}"
            )
        return
    if result.sha != head.lower():
        raise UserError(
            f"parity result {path} is for commit {result.sha}, but the head measured is "
            f"{head}: refusing the parity result of another commit"
        )


def read_parity(
    path: str | None, head: str | None = None, require_sha: bool = False
) -> ParityResult | None:
    """Read a parity-result JSON (None when not given), checked against ``head`` if known."""
    if path is None:
        return None
    data = load_json(Path(path))
    if not isinstance(data, dict) or data.get("status") not in _STATUSES:
        raise UserError(f"{path}: expected {{'status': one of {sorted(_STATUSES)}}}")
    result = ParityResult(
        _STATUSES[data["status"]],
        str(data.get("command", "")),
        str(data.get("summary", "")),
        sha=_sha(path, data),
        failed_tests=_failed_tests(path, data),
    )
    if head is not None:
        check_head(path, result, head, require_sha)
    return result


def write_parity(path: Path, result: ParityResult) -> Path:
    """Write ``result`` as a new parity-result file, atomically (never over an existing one)."""
    if result.sha is None or not FULL_SHA.fullmatch(result.sha):
        raise UserError(f"a parity result needs the full commit id it ran at, got {result.sha!r}")
    data = {
        "status": result.status.value,
        "sha": result.sha,
        "command": result.command,
        "summary": result.summary,
        "failed_tests": list(result.failed_tests),
    }
    return write_json_atomic(path, data)
