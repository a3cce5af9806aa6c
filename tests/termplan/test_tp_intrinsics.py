"""Inline device helpers: ``fast_exp`` accuracy and special values, bit casts, codegen use."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

from termplan import intrinsics
from termplan.codegen import generate_source
from termplan.intrinsics import f64_from_bits, fast_exp, lane_exp, lane_index
from termplan.kernel_options import SERIAL_OPTIONS
from termplan.tasks.g1_walk.config import check_default_angles
from termplan.tasks.g1_walk.profiles import resolve_profile
from termplan.tasks.g1_walk.terms import build_plan

pytestmark = pytest.mark.numba("termplan")

_OPTIONS = {**SERIAL_OPTIONS, "cache": False}


@numba.njit(**_OPTIONS)
def _exp_all(x, out):  # type: ignore[no-untyped-def]
    for k in range(x.size):
        out[k] = fast_exp(x[k])


@numba.njit(**_OPTIONS)
def _from_bits(bits):  # type: ignore[no-untyped-def]
    return f64_from_bits(bits)


def _fast_exp(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    _exp_all(x, out)
    return out


def test_fast_exp_matches_numpy_over_the_range() -> None:
    """Relative error <= 1e-13 from deep underflow to near overflow (fixed seed)."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-707.0, 708.0, 20000), rng.uniform(-30.0, 0.0, 20000)])
    got, want = _fast_exp(x), np.exp(x)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0.0)


def test_fast_exp_small_arguments_are_accurate_to_a_few_ulp() -> None:
    """Where the kernels use it (-30 <= x <= 1) it is within 16 float64 ulp (fast-math
    may merge the two-part ln2 reduction, so the error grows slowly with |x|)."""
    x = np.linspace(-30.0, 1.0, 5001)
    got, want = _fast_exp(x), np.exp(x)
    assert np.max(np.abs(got - want) / np.spacing(want)) <= 16.0


def test_fast_exp_special_values_equal_libm() -> None:
    """NaN, infinities, signed zero and the out-of-range tails behave exactly as exp."""
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -708.0, 709.0, -745.2, -800.0, 710.0])
    got = _fast_exp(x)
    with np.errstate(over="ignore"):
        want = np.exp(x)
    np.testing.assert_array_equal(got, want)


def test_f64_from_bits_reinterprets_the_pattern() -> None:
    assert _from_bits(np.int64(0x3FF0000000000000)) == 1.0
    assert _from_bits(np.int64(-0x4000000000000000)) == -2.0


def test_f64_from_bits_rejects_a_non_int64() -> None:
    @numba.njit(**_OPTIONS)
    def bad(x):  # type: ignore[no-untyped-def]
        return f64_from_bits(x)

    with pytest.raises(TypingError, match="64-bit integer"):
        bad(1.5)


def test_generated_source_uses_lane_exp_and_names_the_helper_digest() -> None:
    """A split plan with exp terms imports the branch-free helper and carries its digest."""
    plan = build_plan(resolve_profile("sac_default", None), False, check_default_angles(None))
    text = generate_source(plan).text
    assert "math.exp(" not in text
    assert "lane_exp(" in text
    assert "from termplan.intrinsics import lane_exp, lane_index" in text
    assert f"source digest: {intrinsics.source_digest()}" in text


@numba.njit(**_OPTIONS)
def _lane_exp_all(x, out):  # type: ignore[no-untyped-def]
    for k in range(x.size):
        out[k] = lane_exp(x[k])


def _lane_exp(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    _lane_exp_all(x, out)
    return out


def test_lane_exp_equals_fast_exp_in_range() -> None:
    """Inside [EXP_LOW, EXP_HIGH] it is the same polynomial as ``fast_exp`` (fixed seed)."""
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-707.9, 708.9, 20000), rng.uniform(-30.0, 0.0, 20000)])
    np.testing.assert_allclose(_lane_exp(x), np.exp(x), rtol=1e-13, atol=0.0)
    np.testing.assert_array_equal(_lane_exp(x), _fast_exp(x))


def test_lane_exp_special_values() -> None:
    """NaN stays NaN, +-inf and the bounds as documented (subnormal results flush to 0)."""
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -708.0, 709.0, -745.2, -800.0, 710.0])
    got = _lane_exp(x)
    assert np.isnan(got[0])
    assert got[1] == np.inf and got[2] == 0.0 and got[3] == 1.0 and got[4] == 1.0
    np.testing.assert_allclose(got[5:7], np.exp([-708.0, 709.0]), rtol=1e-13)
    np.testing.assert_array_equal(got[7:], [0.0, 0.0, np.inf])


@numba.njit(**_OPTIONS)
def _flat_read(a, i, column):  # type: ignore[no-untyped-def]
    return a.reshape(a.size)[lane_index(i, 3, column)]


def test_lane_index_reads_the_row_major_element() -> None:
    a = np.arange(30, dtype=np.float32).reshape(10, 3)
    for i in (0, 4, 9):
        for c in range(3):
            assert _flat_read(a, i, c) == a[i, c]
