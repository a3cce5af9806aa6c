"""Exceptions perfgate raises for expected, user-facing failures.

The CLI prints a `UserError` without a traceback and exits with code 3 (ERROR): anything that
stops the gate from deciding is an error, never a pass.
"""

from __future__ import annotations


class UserError(Exception):
    """An expected failure caused by input, configuration or environment (exit code 3)."""


class ResultFileError(UserError):
    """A result or sample file is unreadable: corrupt, truncated, half-written or wrong version.

    The message always names the file and the problem.
    """

    def __init__(self, path: object, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class ConfigError(UserError):
    """The `[tool.perfgate]` configuration is invalid; the message names the key."""


class RunnerError(RuntimeError):
    """git, asv or the parity command could not be run as asked."""
