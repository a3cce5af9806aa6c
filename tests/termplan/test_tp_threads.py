"""Thread-count control rejects counts outside Numba's pool."""

import numba
import numpy as np
import pytest

from termplan.threads import apply_threads, check_num_threads, max_threads


def test_apply_and_restore() -> None:
    """Masking the pool to 1 thread and back is visible through numba."""
    before = numba.get_num_threads()
    try:
        apply_threads(1)
        assert numba.get_num_threads() == 1
        apply_threads(None)
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("bad", [0, -1, 10_000])
def test_out_of_range(bad: int) -> None:
    """0, negatives and more than NUMBA_NUM_THREADS are errors naming the option."""
    with pytest.raises(ValueError, match="num_threads"):
        apply_threads(bad)
    assert max_threads() >= 1


def test_check_num_threads_accepts_none_and_pool_sizes() -> None:
    """``None`` leaves the choice to the path; 1..NUMBA_NUM_THREADS come back as ints."""
    assert check_num_threads(None) is None
    assert check_num_threads(1) == 1
    assert check_num_threads(np.int64(max_threads())) == max_threads()


@pytest.mark.parametrize("bad", [0, -2, 10_000, True, 1.0, "2"])
def test_check_num_threads_rejects_with_range(bad: object) -> None:
    """Out of range or not an int: the message names the option, the value and the range."""
    with pytest.raises(
        ValueError, match=rf"num_threads: expected None or an int in 1\.\.{max_threads()}"
    ) as info:
        check_num_threads(bad)
    assert repr(bad) in str(info.value)


def test_masked_restores_the_callers_mask() -> None:
    """A path's thread count applies to its own call only; None touches nothing."""
    import numba

    from termplan.threads import masked

    numba.set_num_threads(max_threads())
    with masked(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == max_threads()
    with masked(None):
        assert numba.get_num_threads() == max_threads()
    with pytest.raises(RuntimeError), masked(1):
        raise RuntimeError("kernel failed")
    assert numba.get_num_threads() == max_threads()


@pytest.mark.numba("termplan")
def test_an_assembled_path_leaves_the_mask_as_it_found_it() -> None:
    """Building and running a runtime that picked 1 thread does not make a later
    num_threads=None path run on 1 thread."""
    import numba
    import tp_toy

    from termplan.runtime import FusedRuntime

    numba.set_num_threads(max_threads())
    rt = FusedRuntime(tp_toy.make_plan(), 4, num_threads=1)
    rt.run([tp_toy.make_inputs(4)[n] for n in rt.input_names], True)
    assert numba.get_num_threads() == max_threads()
