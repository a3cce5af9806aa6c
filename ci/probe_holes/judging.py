"""Judging what ran: pieces of a secret found in outputs, a clean error (exit code, no
traceback), a line short enough for the table, and a secret masked in the probe's own output.
Pure functions of text, so that every item judges the same way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .harness import Ran

TRACEBACK = "Traceback (most recent call last)"


def pieces(secret: str, size: int = 8) -> set[str]:
    """Every ``size``-character piece of ``secret``: a leak of part of it shows."""
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


def leaks(secrets: Sequence[str], texts: Mapping[str, str]) -> dict[str, int]:
    """Per text, how many pieces of any of ``secrets`` it holds (only those holding some)."""
    found = {
        name: sum(p in text for s in secrets for p in pieces(s)) for name, text in texts.items()
    }
    return {name: n for name, n in found.items() if n}


def clean_error(ran: Ran) -> bool:
    """A documented failure: an exit code, no traceback, something said on stderr."""
    return ran.code is not None and TRACEBACK not in ran.text and bool(ran.err.strip())


def last_line(text: str, limit: int = 150) -> str:
    """The last non-empty line of ``text``, shortened for the table."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[-1] if lines else "(nothing)"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def mask(text: str, secret: str) -> str:
    """``text`` with ``secret`` (and its pieces) shown as <T>, for this script's own output."""
    for piece in sorted(pieces(secret), key=len, reverse=True):
        text = text.replace(piece, "<T>")
    return text
