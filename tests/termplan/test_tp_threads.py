"""Thread-count control rejects counts outside Numba's pool; the calibration picks T per N."""

import itertools

import numba
import numpy as np
import pytest
import tp_toy

from termplan.threads import (
    Calibration,
    apply_threads,
    calibrate,
    check_num_threads,
    choose_threads,
    max_threads,
    model_calibration,
)


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


def _synthetic(threads: int, launch_us: float, env_ns: float, sizes: list[int]) -> Calibration:
    """A machine whose regions cost ``launch`` per extra thread and scale perfectly."""
    table = {
        n: {t: (0.0 if t == 1 else launch_us * 1e-6 * t) + n * env_ns * 1e-9 / t
            for t in range(1, threads + 1)}
        for n in sizes
    }  # fmt: skip
    return Calibration.from_mapping(table, "synthetic")


def test_choose_threads_on_a_160_thread_table() -> None:
    """Small N runs serially, large N uses many threads; the choice grows with N."""
    cal = _synthetic(160, 2.0, 60.0, [64, 1024, 16384, 262144, 1 << 20])
    picks = [choose_threads(n, cal) for n in (1, 64, 1024, 16384, 262144, 1 << 20, 1 << 22)]
    # optimum of launch * T + n * c / T is T = sqrt(n * c / launch): 6, 22, 89 threads
    assert picks == [1, 1, 6, 22, 89, 160, 160]
    assert choose_threads(1 << 22, cal, limit=48) == 48


def test_choose_threads_follows_measurements_not_a_constant() -> None:
    """A table where 2 threads lose at every size never picks 2; ties pick fewer threads."""
    table = {1024: {1: 1e-4, 2: 2e-4, 4: 1e-4}, 65536: {1: 5e-3, 2: 6e-3, 4: 5e-3}}
    cal = Calibration.from_mapping(table, "synthetic")
    assert choose_threads(4096, cal) == 1
    table[65536][4] = 1e-3
    assert choose_threads(1 << 20, Calibration.from_mapping(table, "synthetic")) == 4


def test_choose_threads_validates() -> None:
    """Bad tables and sizes are ValueErrors."""
    cal = Calibration.from_mapping({64: {1: 1e-6}}, "synthetic")
    assert choose_threads(10, cal) == 1
    with pytest.raises(ValueError, match="n: expected"):
        choose_threads(0, cal)
    with pytest.raises(ValueError, match="no thread count"):
        choose_threads(10, Calibration.from_mapping({64: {4: 1e-6}}, "s"), limit=2)
    with pytest.raises(ValueError, match="bad entry"):
        Calibration.from_mapping({64: {1: float("nan")}}, "s")
    with pytest.raises(ValueError, match="at least one size"):
        Calibration((), "s")


def test_calibrate_and_model() -> None:
    """``calibrate`` tabulates a run function; the model prefers serial for tiny N."""
    cal = calibrate(lambda n, t: n / t * 1e-9 + (t - 1) * 1e-6, [100, 100000], [1, 2, 4])
    assert choose_threads(100, cal) == 1
    assert choose_threads(100000, cal) == 4
    model = model_calibration(2)
    assert choose_threads(8, model) == 1
    assert choose_threads(65536, model) == 2


@pytest.mark.numba("termplan")
def test_calibrate_plan_measures_the_kernel() -> None:
    """The calibration routine times the plan's kernel for every size x thread count."""
    plan = tp_toy.make_plan()

    def views(n: int) -> list[np.ndarray]:
        inputs = tp_toy.make_inputs(n)
        return [inputs[s.name] for s in plan.inputs]

    from termplan.runtime import calibrate_plan

    cal = calibrate_plan(plan, views, [8, 256], [1, 2], repeats=3)
    assert [n for n, _ in cal.table] == [8, 256]
    assert all([t for t, _ in row] == [1, 2] for _, row in cal.table)
    assert all(s > 0 for _, row in cal.table for _, s in row)
    assert choose_threads(8, cal) in (1, 2)


#: Measured-looking rows (not affine in n, so which neighbours are interpolated matters).
ROWS = (
    (64, ((1, 4e-6), (2, 10e-6))),
    (1024, ((1, 60e-6), (2, 62e-6))),
    (2048, ((1, 120e-6), (2, 130e-6))),
    (16384, ((1, 1e-3), (2, 0.5e-3))),
)
SIZES = (10, 100, 1100, 3000, 20000)


def test_calibration_order_does_not_change_the_choice() -> None:
    """Every order of sizes (and of T within a size) stores the same ascending table and
    picks the same T; n=1100 is serial (reversed, it picked T=2 before sizes were sorted)."""
    ascending = Calibration(ROWS, "measured")
    assert [choose_threads(n, ascending) for n in SIZES] == [1, 1, 1, 2, 2]
    for order in itertools.permutations(ROWS):
        flipped = tuple((n, row[::-1]) for n, row in order)
        for table in (order, flipped):
            cal = Calibration(table, "measured")
            assert cal == ascending
            assert [choose_threads(n, cal) for n in SIZES] == [1, 1, 1, 2, 2]


def test_calibration_refuses_repeated_sizes_and_thread_counts() -> None:
    """A size, or a T within one size, given twice is a ValueError naming it."""
    with pytest.raises(ValueError, match="size 1024 given more than once"):
        Calibration((*ROWS, (1024, ((1, 1e-6), (2, 1e-6)))), "measured")
    with pytest.raises(ValueError, match="T=2 given more than once at n=64"):
        Calibration(((64, ((2, 1e-6), (1, 1e-6), (2, 3e-6))),), "measured")
