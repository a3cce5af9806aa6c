"""perfgate.config_costs: ``[tool.perfgate.costs]`` is checked as strictly as every key."""

from __future__ import annotations

import pytest

from perfgate.config import parse_config
from perfgate.errors import ConfigError


def test_costs_parse() -> None:
    config = parse_config(
        {"costs": {"machine": "box", "asv_overhead_s": 2, "benchmarks": {"b.time_x": 0.5}}}
    )
    assert config.costs is not None
    assert config.costs.by_benchmark() == {"b.time_x": 0.5}
    assert (config.costs.asv_overhead_s, config.costs.machine) == (2.0, "box")
    assert parse_config({}).costs is None


@pytest.mark.parametrize(
    ("costs", "named"),
    [
        ({"benchmarks": {"b.x": -1}}, r"costs\.benchmarks\.'b\.x'"),
        ({"benchmarks": {"b.x": "fast"}}, r"costs\.benchmarks\.'b\.x'"),
        ({"benchmarks": {"b.x": float("nan")}}, r"costs\.benchmarks\.'b\.x'"),
        ({"asv_overhead_s": True}, r"costs\.asv_overhead_s"),
        ({"benchmarks": [1]}, r"costs\.benchmarks: expected a table"),
        ({"seconds": {}}, r"tool\.perfgate\.costs"),
        ([1], r"tool\.perfgate\.costs: expected a table"),
    ],
)
def test_bad_costs_name_the_key(costs: object, named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        parse_config({"costs": costs})
