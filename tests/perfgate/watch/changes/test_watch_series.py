"""The series model: validated, frozen plain data with clear errors."""

from __future__ import annotations

import dataclasses
import math

import pytest
from watch_fakes import series_of, sha

from perfgate.errors import UserError
from perfgate.watch.changes.series import HistoryPoint, Series, SeriesError


def test_a_point_from_samples_holds_their_median() -> None:
    point = HistoryPoint.from_samples(sha(1), 4, [3.0, 1.0, 2.0, 10.0])
    assert point.value == 2.5
    assert point.samples == (3.0, 1.0, 2.0, 10.0)


def test_a_point_may_have_a_value_without_samples() -> None:
    assert HistoryPoint(sha(1), 0, 7).value == 7.0
    assert HistoryPoint(sha(1), 0, 7.0).samples == ()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"commit": "xyz1234"}, "commit must be a lowercase hex sha of 7-64 digits"),
        ({"commit": "ABCDEF1"}, "commit must be a lowercase hex sha"),
        ({"commit": "abc12"}, "commit must be a lowercase hex sha"),
        ({"position": -1}, "position must be >= 0"),
        ({"position": True}, "position must be an int"),
        ({"position": 1.0}, "position must be an int"),
        ({"value": 0.0}, "value must be a finite number > 0"),
        ({"value": -1.0}, "value must be a finite number > 0"),
        ({"value": math.inf}, "value must be a finite number > 0"),
        ({"value": math.nan}, "value must be a finite number > 0"),
        ({"value": "1.0"}, "value must be a number"),
        ({"value": True}, "value must be a number"),
        ({"samples": (1.0, 0.0, 2.0), "value": 1.0}, "sample 1 must be a finite number > 0"),
        ({"samples": "123", "value": 2.0}, "samples must be a sequence"),
        ({"samples": (1.0, 2.0, 4.0), "value": 2.5}, "value 2.5 is not the median of its samples"),
    ],
)
def test_bad_points_are_rejected_with_what_was_expected(
    kwargs: dict[str, object], message: str
) -> None:
    fields: dict[str, object] = {"commit": sha(3), "position": 2, "value": 1.0, "samples": ()}
    fields.update(kwargs)
    with pytest.raises(SeriesError) as err:
        HistoryPoint(**fields)  # type: ignore[arg-type]
    assert message in str(err.value)
    assert isinstance(err.value, UserError)


def test_from_samples_needs_samples() -> None:
    with pytest.raises(SeriesError, match="samples must be a non-empty sequence"):
        HistoryPoint.from_samples(sha(1), 0, [])


def test_series_converts_lists_to_tuples_and_is_frozen() -> None:
    points = [HistoryPoint(sha(0), 0, 1.0), HistoryPoint(sha(1), 5, 1.1)]
    series = Series("suite.Bench.time_x", ["'numpy'", "64"], "m1", False, points)  # type: ignore[arg-type]
    assert series.points == tuple(points)
    assert series.params == ("'numpy'", "64")
    assert series.values == (1.0, 1.1)
    assert series.label == "suite.Bench.time_x('numpy', 64) on m1"
    with pytest.raises(dataclasses.FrozenInstanceError):
        series.machine = "m2"  # type: ignore[misc]


def test_points_must_be_in_strictly_increasing_first_parent_order() -> None:
    a, b = HistoryPoint(sha(0), 3, 1.0), HistoryPoint(sha(1), 3, 1.0)
    with pytest.raises(SeriesError, match=r"point 1 \(0+1\) is at 3, after 3"):
        Series("b", (), "m", False, (a, b))


def test_a_commit_may_appear_only_once() -> None:
    a, b = HistoryPoint(sha(0), 1, 1.0), HistoryPoint(sha(0), 2, 1.0)
    with pytest.raises(SeriesError, match="commit 0+ appears twice"):
        Series("b", (), "m", False, (a, b))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"benchmark": ""}, "benchmark must be a non-empty string"),
        ({"params": ("1", 2)}, "params must be strings"),
        ({"params": "12"}, "params must be a sequence"),
        ({"machine": ""}, "machine must be a non-empty string"),
        ({"higher_is_better": 1}, "higher_is_better must be a bool"),
        ({"points": (1.0,)}, "point 0 must be a HistoryPoint"),
        ({"points": None}, "points must be a sequence"),
    ],
)
def test_bad_series_are_rejected(fields: dict[str, object], message: str) -> None:
    base = series_of([1.0, 1.0])
    values = dataclasses.asdict(base) | {"points": base.points} | fields
    with pytest.raises(SeriesError) as err:
        Series(**values)  # type: ignore[arg-type]
    assert message in str(err.value)
