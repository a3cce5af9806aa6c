"""Damaged files on ``perf-results``, moved aside by the next append (pure).

The branch is append-only, so a truncated or unreadable result file committed to it would
stay there for good: every later `history export` would warn about it and every `watch` of
that export would stumble over it. The next append therefore moves such a file (a
``<machine>/machine.json`` or a ``<machine>/<hash>-<env>.json`` that is not a JSON object at
all: truncated, not UTF-8, not JSON) to ``quarantine/<path>`` with its content
unchanged, next to a record ``quarantine/<path>.why.json`` saying what was wrong, and says
so in the commit message. Nothing is rewritten in place and nothing is lost; the commit
becomes a gap that `history pending` lists for measuring again. ``export`` leaves
``quarantine/`` out. A file that is JSON but of another shape or asv version stays: a newer
asv may read it (`history export` and `watch` warn about it and leave it out).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from perfgate.history.order import QUARANTINE_DIR, RECORD_DIRS


def candidates(tree: Mapping[str, str]) -> list[str]:
    """Paths of ``tree`` that are asv files of a machine folder (the ones checked): not
    perfgate's own records (``suites/``, ``watch/``, ..., ``quarantine/`` itself)."""
    return sorted(
        p
        for p in tree
        if p.count("/") == 1 and p.endswith(".json") and p.split("/")[0] not in RECORD_DIRS
    )


def find_damaged(
    tree: Mapping[str, str],
    read: Callable[[Sequence[str]], Sequence[bytes]],
    known: dict[str, str | None],
) -> dict[str, str]:
    """Path -> problem for every damaged asv file of ``tree``. ``read(blobs)`` gives their
    contents; ``known`` (blob id -> problem or None) caches the verdicts across attempts."""
    paths = candidates(tree)
    unknown = sorted({tree[p] for p in paths} - set(known))
    if unknown:
        for blob, content in zip(unknown, read(unknown), strict=True):
            known[blob] = damage(content)
    return {p: problem for p in paths if (problem := known[tree[p]]) is not None}


def damage(content: bytes) -> str | None:
    """What makes ``content`` unreadable as any JSON object (None: it reads)."""
    try:
        data = json.loads(content.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text ({exc})"
    except ValueError as exc:
        return f"not JSON, truncated? ({exc})"
    return None if isinstance(data, dict) else f"not a JSON object ({type(data).__name__})"


def quarantine_path(path: str) -> str:
    """Where a damaged file at ``path`` is moved to."""
    return f"{QUARANTINE_DIR}/{path}"


def record_path(path: str) -> str:
    """The record saying why ``path`` was moved."""
    return f"{quarantine_path(path)}.why.json"


def record(path: str, blob: str, problem: str) -> bytes:
    """The record's content (JSON): the path, the blob moved and the problem."""
    text = json.dumps({"path": path, "blob": blob, "problem": problem}, indent=1)
    return (text + "\n").encode()
