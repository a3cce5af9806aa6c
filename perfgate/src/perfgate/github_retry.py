"""Retrying GitHub calls: which failures are transient and how long to wait (rate limits,
5xx, transport errors), and the one retry loop the PR poster and the watch's issues share."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TypeVar

from perfgate.retry import RetryPolicy

LOG = logging.getLogger(__name__)
T = TypeVar("T")


class GitHubApiError(Exception):
    """A failed GitHub call, with what the retry logic needs. The message is redacted.

    ``status`` is None for transport errors (connection refused, timeout).
    """

    def __init__(
        self, message: str, status: int | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}


def _header_float(headers: Mapping[str, str], name: str) -> float | None:
    value = headers.get(name)
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def retry_delay(
    error: GitHubApiError, attempt: int, policy: RetryPolicy, now: float
) -> float | None:
    """Seconds to wait before retrying after ``error`` on ``attempt`` (0-based), or None.

    Retried: transport errors and 5xx (exponential backoff); secondary rate limits, i.e.
    403/429 with ``Retry-After`` or with ``X-RateLimit-Remaining: 0`` (wait until
    ``X-RateLimit-Reset``), and bare 429. Other 4xx are final. Waits are capped by
    ``policy.max_delay``.
    """
    backoff = policy.backoff(attempt)
    status = error.status
    if status is None or status >= 500:
        return backoff
    if status not in (403, 429):
        return None
    retry_after = _header_float(error.headers, "retry-after")
    if retry_after is not None:
        return min(max(retry_after, 0.0), policy.max_delay)
    remaining = _header_float(error.headers, "x-ratelimit-remaining")
    reset = _header_float(error.headers, "x-ratelimit-reset")
    if remaining == 0 and reset is not None:
        return min(max(reset - now, 0.0) + policy.base_delay, policy.max_delay)
    return backoff if status == 429 else None


def with_retries(
    what: str,
    call: Callable[[], T],
    policy: RetryPolicy,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
) -> T:
    """``call()``, retried on transient `GitHubApiError`s as `retry_delay` says; a final or
    last failure is raised."""
    for attempt in range(policy.attempts):
        try:
            return call()
        except GitHubApiError as exc:
            delay = retry_delay(exc, attempt, policy, clock())
            if delay is None or attempt + 1 >= policy.attempts:
                raise
            LOG.warning("%s failed (%s); retry %d in %.3gs", what, exc, attempt + 1, delay)
            sleep(delay)
    raise AssertionError("unreachable: attempts >= 1")  # pragma: no cover
