"""Fixtures for the machine/pinning tests: fake sysfs/procfs trees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_sysfs import FakeRoot, build_root


@pytest.fixture
def fake_root(tmp_path: Path) -> FakeRoot:
    """Factory: ``fake_root(nodes, cores_per_node, **options)`` -> root path of a fake host."""
    counter = iter(range(1000))

    def make(nodes: int, cores_per_node: int, **options: Any) -> Path:
        return build_root(tmp_path / f"host{next(counter)}", nodes, cores_per_node, **options)

    return make
