"""A parity-result file (``perfgate compare --parity-result``): the only reader.

``{"status": "passed|failed|not run|error", "command": "...", "summary": "..."}``, written by
CI (or by hand) for a parity command run outside perfgate.
"""

from __future__ import annotations

from pathlib import Path

from perfgate.errors import UserError
from perfgate.formats.jsonfile import load_json
from perfgate.model import ParityResult, ParityStatus


def read_parity(path: str | None) -> ParityResult | None:
    """Read a parity-result JSON written by CI or the gate (None when not given)."""
    if path is None:
        return None
    data = load_json(Path(path))
    statuses = {s.value: s for s in ParityStatus}
    if not isinstance(data, dict) or data.get("status") not in statuses:
        raise UserError(f"{path}: expected {{'status': one of {sorted(statuses)}}}")
    return ParityResult(
        statuses[data["status"]], str(data.get("command", "")), str(data.get("summary", ""))
    )
