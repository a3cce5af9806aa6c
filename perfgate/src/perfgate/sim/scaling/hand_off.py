"""The pool's hand-off taken out of a thread's counts: locks, condition variables and the
futex waits behind them (pure, over one parsed callgrind dump).

Why: valgrind runs one thread at a time, in an order the host's scheduler picks, so how
often a thread finds a lock taken, loops once more around a condition variable or wakes a
waiter differs from one process to the next. Measured (motion_tracking hand-written,
N=2048, 32 threads, two processes of one commit): the calling thread's counts of one call
differed by 666 instructions of 254,433, all in ``pthread_cond_signal``/``_wait``,
``__lll_lock_wake``, ``__pthread_mutex_unlock_usercnt``, the futex wait and the cancel
points around it; the workers' by multiples of 17-23 in ``__lll_lock_wait`` and
``__pthread_mutex_cond_lock``. Projected E(32) then moved by 0.10%. Without these functions'
own cost the same two processes agree within 0.002% (the calling thread's serial work
229,740 and 229,756 instructions, the largest worker's share equal).

What is left out is not the work the projection is about (host-side work that does not
parallelise, and each worker's share), and on a real machine its cost is mostly not
user-space instructions at all: a futex wait or wake is a system call, and a contended lock
costs cache-coherence traffic, neither of which callgrind counts. Synchronisation therefore
stays with the wall clock on pinned runners, as memory bandwidth and NUMA placement do
(docs/sim.md). The pool's own scheduling (``parallel_for``, ``create_schedule``, the
queue's bookkeeping in ``thread_worker``) and thread-local storage are counted.
"""

from __future__ import annotations

import re

from perfgate.sim.attribution.profile import Profile
from perfgate.sim.cost import Events

#: glibc's locking, condition-variable, semaphore and waiting functions (name with or
#: without a symbol version): the hand-off between the calling thread and the workers
SYNC_FUNCTION = re.compile(
    r"^(?:_*pthread_(?:mutex|cond|spin|rwlock|barrier)_?\w*"
    r"|__pthread_(?:enable|disable)_asynccancel|_pthread_cleanup_(?:push|pop)"
    r"|__lll_\w+|_*futex\w*|__condvar_\w+|sem_\w+|__new_sem_\w+"
    r"|_*sched_yield|_*nanosleep|_*clock_nanosleep\w*|usleep)(?:@.*)?$"
)


def is_sync(function: str) -> bool:
    """Whether ``function`` (callgrind's name) is part of the hand-off."""
    return SYNC_FUNCTION.match(function) is not None


def sync_cost(profile: Profile) -> list[int]:
    """The own cost, per event of the dump, of its hand-off functions."""
    out = [0] * len(profile.events)
    for (_, name), cost in profile.own.items():
        if is_sync(name):
            for i, value in enumerate(cost):
                out[i] += value
    return out


def without_hand_off(profile: Profile) -> Events:
    """The dump's counts (its summary line) less its hand-off functions' own cost, each
    event at least 0 (the per-function costs follow callgrind's ``totals:``, which can
    exceed the summary slightly; the summary leaves out trailing zero counts)."""
    total, sync = profile.total(), sync_cost(profile)
    total += [0] * (len(profile.events) - len(total))
    left = {name: max(0, t - s) for name, t, s in zip(profile.events, total, sync, strict=True)}
    return Events.from_counts(left)
