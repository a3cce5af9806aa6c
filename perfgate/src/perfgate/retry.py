"""The one retry policy: bounded attempts with exponential backoff (GitHub calls, git pushes)."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts and waits in seconds; ``max_delay`` caps any wait, including server-requested
    ones. The defaults suit the GitHub API; the history branch has its own instance."""

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0

    def __post_init__(self) -> None:
        if self.attempts < 1 or not 0 <= self.base_delay <= self.max_delay:
            raise ValueError(
                f"retry policy {self}: expected attempts >= 1 and delays >= 0 "
                "with base_delay <= max_delay"
            )

    def backoff(self, attempt: int) -> float:
        """Exponential wait after failed attempt ``attempt`` (0-based), capped."""
        return min(self.base_delay * 2**attempt, self.max_delay)

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based): full jitter."""
        return rng.uniform(0.0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))
