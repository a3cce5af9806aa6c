"""``bench compile``: options, the pass swapped in only while compiling, names left out of the
code digest, and a child's record (the motion_tracking kernel, from a fresh process)."""

from __future__ import annotations

import argparse
import re

import numba.parfors.parfor as parfor_module
import numpy as np
import pytest
from numba import prange, types
from numba.core import ir_utils

from termplan import copy_propagation
from termplan.bench import compile_time

pytestmark = pytest.mark.numba("termplan")


@pytest.mark.parametrize(
    ("task", "repeats", "fragment"),
    [
        ("nope", 1, "--task: expected one of g1_walk, motion_tracking, got 'nope'"),
        ("g1_walk", 0, "--repeats: expected at least 1, got 0"),
    ],
)
def test_bad_options_are_named(task: str, repeats: int, fragment: str) -> None:
    args = argparse.Namespace(task=task, repeats=repeats)
    with pytest.raises(ValueError, match=re.escape(fragment)):
        compile_time.run_from_args(args)


def _doubled(x, out):  # type: ignore[no-untyped-def]
    for i in prange(x.size):
        out[i] = 2.0 * x[i]


def test_pass_swapped_in_only_while_compiling() -> None:
    seen = []

    def recording(blocks, typemap):  # type: ignore[no-untyped-def]
        seen.append(len(blocks))
        return copy_propagation.NUMBA_OWN(blocks, typemap)

    before = ir_utils.copy_propagate, parfor_module.copy_propagate
    signature = (types.float64[::1], types.float64[::1])
    took, digest = compile_time._compile_with(recording, _doubled, signature)
    assert seen and took > 0 and len(digest) == 64
    assert (ir_utils.copy_propagate, parfor_module.copy_propagate) == before


def test_names_and_their_lengths_are_left_out_of_the_digest() -> None:
    one = '\tcall _ZN3foo4bar1B2v1E\n\t.size\t".const.missing Environment: _ZN1x", 1266\n\tret\n'
    two = '\tcall _ZN3foo4bar9B2v17E\n\t.size\t".const.missing Environment: _ZN22y", 1262\n\tret\n'
    assert compile_time._NAMES.sub("", one) == compile_time._NAMES.sub("", two)
    assert compile_time._NAMES.sub("", one) != compile_time._NAMES.sub("", one + "\tnop\n")


@pytest.mark.subprocess
def test_a_child_compiles_the_motion_kernel_with_each_pass() -> None:
    record = compile_time.compare_compiles("motion_tracking", repeats=1)
    assert record["kernel"] == "motion_kernel"
    assert record["numba_s"] > 0 and record["termplan_s"] > 0
    assert record["speedup"] == pytest.approx(record["numba_s"] / record["termplan_s"])
    assert record["same_code"] is True
    assert np.isfinite(record["speedup"])
