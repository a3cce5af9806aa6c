"""Thread-count control rejects counts outside Numba's pool."""

import numba
import pytest

from termplan.threads import apply_threads, max_threads


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
