"""Shared by the history tests: git runs with a fixed identity and no system config."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("GIT_AUTHOR", "GIT_COMMITTER"):
        monkeypatch.setenv(f"{key}_NAME", "tester")
        monkeypatch.setenv(f"{key}_EMAIL", "tester@example.invalid")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
