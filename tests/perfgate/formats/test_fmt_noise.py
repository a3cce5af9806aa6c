"""perfgate.formats.noise: noise-floor files round-trip; bad floors are refused."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from perfgate.errors import ResultFileError
from perfgate.formats.noise import parse_noise_floors, read_noise_floors, write_noise_floors_atomic
from perfgate.model import CaseKey


def test_noise_floor_file(tmp_path: Path) -> None:
    """Noise-floor files round-trip; negative floors and wrong kinds are refused."""
    doc = {
        "api_version": 1,
        "kind": "perfgate-noise",
        "cases": [{"benchmark": "b", "params": {"n": 8}, "noise_floor": 0.07}],
    }
    path = tmp_path / "noise.json"
    write_noise_floors_atomic(path, doc)
    assert read_noise_floors(path) == {CaseKey("b", (("n", "8"),)): 0.07}
    for bad in (-1, math.inf, math.nan, 10.0, True, "0.1"):
        # an infinite (or absurd) floor would raise every threshold beyond any slowdown
        with pytest.raises(ResultFileError, match="noise_floor must be"):
            parse_noise_floors({**doc, "cases": [{"benchmark": "b", "noise_floor": bad}]})
    with pytest.raises(ResultFileError, match="not a perfgate-noise file"):
        parse_noise_floors({"kind": "x"})
