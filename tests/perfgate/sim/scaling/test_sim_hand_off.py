"""perfgate.sim.scaling.hand_off: the pool's locks and waits left out of a thread's counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.sim.attribution import profile
from perfgate.sim.cost import Events
from perfgate.sim.scaling import hand_off, threaded

#: a calling thread's dump as callgrind writes it (names from a real per-thread run of the
#: workqueue layer); the summary leaves out its trailing zero counts
DUMP = """\
# callgrind format
version: 1
thread: 1
desc: Trigger: Client Request: case0000.1
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 1000 400 200 10 5 2
ob=(1) /usr/lib/x86_64-linux-gnu/libc.so.6
fn=(1) pthread_cond_signal@@GLIBC_2.3.2
0 120 30 10 1 1
fn=(2) __lll_lock_wake
0 20 4 2
fn=(3) __futex_abstimed_wait_common
0 7 1
fn=(4) pthread_getspecific@@GLIBC_2.34
0 40 10
ob=(2) /venv/numba/np/ufunc/workqueue.cpython-311-x86_64-linux-gnu.so
fn=(5) parallel_for
0 300 90 50
fn=(6) thread_worker
0 13 2 1
"""


@pytest.mark.parametrize(
    "name",
    [
        "pthread_cond_signal@@GLIBC_2.3.2",
        "pthread_cond_wait@@GLIBC_2.3.2",
        "pthread_mutex_lock@@GLIBC_2.2.5",
        "__pthread_mutex_unlock_usercnt",
        "__pthread_mutex_cond_lock",
        "__lll_lock_wait",
        "__lll_lock_wake",
        "__futex_abstimed_wait_common",
        "__futex_abstimed_wait_cancelable64",
        "__condvar_confirm_wakeup",
        "__condvar_dec_grefs",
        "__pthread_enable_asynccancel",
        "__pthread_disable_asynccancel",
        "_pthread_cleanup_push@@GLIBC_2.34",
        "sem_post@@GLIBC_2.34",
        "sem_trywait@@GLIBC_2.34",
        "sched_yield",
        "__nanosleep",
    ],
)
def test_the_hand_off_functions_are_recognised(name: str) -> None:
    assert hand_off.is_sync(name)


@pytest.mark.parametrize(
    "name",
    [
        "pthread_getspecific@@GLIBC_2.34",
        "pthread_setspecific@@GLIBC_2.34",
        "pthread_self",
        "parallel_for",
        "thread_worker",
        "create_schedule(RangeActual const&, unsigned long)",
        "malloc",
        "_int_free",
        "motion_kernel (parfor loop)",
        "0x0000000004a1b2c0",
    ],
)
def test_work_is_not_taken_for_hand_off(name: str) -> None:
    """Thread-local storage, the pool's scheduling, allocation and the kernels are work."""
    assert not hand_off.is_sync(name)


def test_the_hand_off_is_taken_out_of_every_event() -> None:
    """Summary less the own cost of the three hand-off functions, event by event (the
    missing trailing events of the summary are 0)."""
    counts = hand_off.without_hand_off(profile.parse(DUMP))
    assert counts == Events(1000 - 147, 400 - 35, 200 - 12, 10 - 1, 5 - 1, 2, 0, 0, 0)


def test_a_hand_off_beyond_the_summary_leaves_zero_not_a_negative_count() -> None:
    """The per-function costs follow ``totals:``, which can exceed the summary."""
    text = DUMP.replace("summary: 1000 400 200 10 5 2", "summary: 1000 30 200")
    counts = hand_off.without_hand_off(profile.parse(text))
    assert counts.dr == 0 and counts.ir == 853


def test_per_thread_dumps_are_read_without_their_hand_off(tmp_path: Path) -> None:
    """`threaded.read_thread_dumps` gives each thread's counts less the hand-off."""
    (tmp_path / "callgrind.out.5-01").write_text(DUMP)
    dumps = threaded.read_thread_dumps(tmp_path, ["case0000.1"])
    assert dumps == {"case0000.1": {1: hand_off.without_hand_off(profile.parse(DUMP))}}
    assert dumps["case0000.1"][1].ir == 853
