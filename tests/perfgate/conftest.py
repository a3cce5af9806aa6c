"""Fixtures shared by the perfgate tests.

Holding a conftest here also puts this folder on ``sys.path``, so the tests in its
sub-folders import the shared helpers (``pg_results_factory``, ``git_project``) by name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from git_project import make_project


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A throwaway git project (see `git_project.make_project`)."""
    return make_project(tmp_path)
