"""termplan.copy_propagation: Numba's copy propagation without its deep copies.

The equivalence test compiles a small parallel kernel (branches, a loop, a ``prange``, copies
that are killed on one path) with a recorder in Numba's place that runs both functions on
every call Numba makes and keeps both answers; the kernel's result is checked too.
"""

from __future__ import annotations

from typing import Any

import numba
import numba.parfors.parfor as parfor_module
import numpy as np
import pytest
from numba.core import ir_utils

from termplan import copy_propagation
from termplan.kernel_options import PARALLEL_OPTIONS

pytestmark = pytest.mark.numba("termplan")


def _kernel_source() -> Any:
    """A fresh parallel function (not cached: every call of this compiles it again)."""

    def kernel(x, out, flag):  # type: ignore[no-untyped-def]
        scale = 2.0
        alias = scale
        if flag:
            alias = 3.0
        for i in numba.prange(x.size):
            v = x[i]
            w = v
            if v > 0.5:
                w = v * alias
            else:
                t = w
                w = t - scale
            acc = 0.0
            for k in range(3):
                acc += w * k
            out[i] = acc
        return out

    return numba.njit(**{**PARALLEL_OPTIONS, "cache": False})(kernel)


def _record(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """Put a function in Numba's place that returns termplan's answer and records both."""
    answers: list[tuple[Any, Any]] = []

    def both(blocks: Any, typemap: Any) -> Any:
        own = copy_propagation.NUMBA_OWN(blocks, typemap)
        ours = copy_propagation.copy_propagate(blocks, typemap)
        answers.append((own, ours))
        return ours

    monkeypatch.setattr(ir_utils, "copy_propagate", both)
    monkeypatch.setattr(parfor_module, "copy_propagate", both)
    return answers


def test_same_copies_as_numba_on_a_parallel_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = _record(monkeypatch)
    x = np.linspace(0.0, 1.0, 37)
    for flag in (False, True):
        got = _kernel_source()(x, np.empty_like(x), flag)
        alias = 3.0 if flag else 2.0
        w = np.where(x > 0.5, x * alias, x - 2.0)
        np.testing.assert_allclose(got, w * 3.0, rtol=1e-12)
    assert len(answers) >= 2  # the function's blocks and the parfor body's
    assert any(sum(len(s) for s in own[1].values()) > 0 for own, _ in answers)  # copies seen
    for own, ours in answers:
        assert ours == own


def test_installed_in_both_callers_under_the_checked_numba() -> None:
    # importing kernel_options (above) installed it; the digest names the Numba it matches
    assert copy_propagation.source_digest(copy_propagation.NUMBA_OWN) == (
        copy_propagation.CHECKED_SOURCE
    ), f"Numba {numba.__version__} changed copy_propagate: check it, then update the digest"
    assert ir_utils.copy_propagate is copy_propagation.copy_propagate
    assert parfor_module.copy_propagate is copy_propagation.copy_propagate
    assert copy_propagation.install() is True  # a second install changes nothing


def test_another_numba_keeps_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ir_utils, "copy_propagate", copy_propagation.NUMBA_OWN)
    monkeypatch.setattr(parfor_module, "copy_propagate", copy_propagation.NUMBA_OWN)
    monkeypatch.setattr(copy_propagation, "CHECKED_SOURCE", "0" * 64)
    assert copy_propagation.install() is False
    assert ir_utils.copy_propagate is copy_propagation.NUMBA_OWN
    assert parfor_module.copy_propagate is copy_propagation.NUMBA_OWN


def test_a_replacement_already_in_place_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def theirs(blocks: Any, typemap: Any) -> Any:
        return copy_propagation.NUMBA_OWN(blocks, typemap)

    monkeypatch.setattr(ir_utils, "copy_propagate", copy_propagation.NUMBA_OWN)
    monkeypatch.setattr(parfor_module, "copy_propagate", theirs)
    assert copy_propagation.install() is False
    assert parfor_module.copy_propagate is theirs
    assert ir_utils.copy_propagate is copy_propagation.NUMBA_OWN
