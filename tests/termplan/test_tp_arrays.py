"""Input validation names the input and what was expected."""

import numpy as np
import pytest

from termplan.arrays import check_array, check_contiguous, check_count


def test_accepts_exact_shape_and_dtype() -> None:
    """A matching array is returned unchanged (same object)."""
    a = np.zeros((4, 3), np.float32)
    assert check_array("linvel", a, (4, 3), np.float32) is a


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (np.zeros((4, 2), np.float32), "shape (4, 2)"),
        (np.zeros((4, 3), np.float64), "dtype float64"),
        ([[0.0] * 3] * 4, "got list"),
    ],
)
def test_rejects_with_named_message(value: object, fragment: str) -> None:
    """Wrong shape, dtype or type: the message names input, got and expected."""
    with pytest.raises(ValueError, match="linvel") as info:
        check_array("linvel", value, (4, 3), np.float32)
    assert fragment in str(info.value)
    assert "(4, 3)" in str(info.value)


def test_contiguity() -> None:
    """A strided view is refused; a contiguous array passes."""
    a = np.zeros((4, 6), np.float32)
    assert check_contiguous("x", a) is a
    with pytest.raises(ValueError, match="C-contiguous"):
        check_contiguous("x", a[:, ::2])


@pytest.mark.parametrize("value", [1, 7, np.int64(65536), np.uint16(3)])
def test_count_accepts_python_and_numpy_integers(value: object) -> None:
    """Sizes come from CLIs, configs and NumPy arithmetic alike; all are plain ints after."""
    count = check_count("num_envs", value)
    assert count == int(value)  # type: ignore[call-overload]
    assert type(count) is int


@pytest.mark.parametrize("value", [0, -3, True, False, 2.0, 2.5, "8", None, np.float32(4)])
def test_count_rejects_with_named_message(value: object) -> None:
    """Zero, negatives, bools, floats, strings: an error naming the input and the value."""
    with pytest.raises(ValueError, match=r"num_envs: expected a positive int, got ") as info:
        check_count("num_envs", value)
    assert repr(value) in str(info.value)


@pytest.mark.parametrize(("value", "low"), [(0, 0), (2, 2), (np.int32(5), 2)])
def test_count_accepts_values_at_or_above_its_lower_bound(value: object, low: int) -> None:
    assert check_count("warmup", value, low) == int(value)  # type: ignore[call-overload]


@pytest.mark.parametrize(("value", "low"), [(-1, 0), (1, 2), (True, 0), (2.0, 2)])
def test_count_names_its_lower_bound(value: object, low: int) -> None:
    """A bound other than 1 is spelled out (``an int >= 2``); bools are refused at any bound."""
    with pytest.raises(ValueError, match=rf"warmup: expected an int >= {low}, got "):
        check_count("warmup", value, low)
