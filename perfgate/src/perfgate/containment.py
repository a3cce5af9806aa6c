"""Containment of the gate's children: nothing a child starts outlives it.

The gate's children run code of the pull request (asv building and benchmarking the head,
the parity command). Such code could start a detached process (double fork, ``setsid``)
that sleeps and later rewrites the report or the run directory, after the gate finished
and before a later workflow step uploads or posts them. So:

* on Linux the gate becomes a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): an
  orphaned descendant is re-parented to the gate instead of to init, where it can be found;
* each child starts in a session (and process group) of its own;
* after the child exits, or times out, :func:`sweep` kills its process group, then every
  child of the gate that was not one before the command started (the re-parented orphans),
  reaps them, and repeats until none is left. The gate renders and writes nothing before.

Where the subreaper is unavailable (not Linux, prctl refused) the process group is still
killed, and the gate says once that detached processes cannot be contained. A killed
straggler is suspicious: :func:`sweep` returns it, and :func:`killed` keeps every one this
process killed, for the gate's log and report notes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from perfgate.errors import RunnerError

LOG = logging.getLogger(__name__)

#: ``prctl`` option number (linux/prctl.h).
PR_SET_CHILD_SUBREAPER = 36
#: Kill-and-reap passes before a process tree that keeps producing processes is an error.
MAX_SWEEPS = 1000
_PROC = Path("/proc")


@dataclass(frozen=True)
class Straggler:
    """A process that was still running after the command that started it had returned."""

    pid: int
    name: str

    def __str__(self) -> str:
        return f"pid {self.pid} ({self.name})"


#: Every straggler this process killed (see :func:`killed`).
_killed: list[Straggler] = []


@dataclass(frozen=True)
class _Proc:
    """A process as ``/proc/PID/stat`` shows it."""

    pid: int
    name: str
    zombie: bool
    ppid: int
    pgrp: int


@functools.cache
def enable_subreaper() -> bool:
    """Make this process a child subreaper (once); False, logged, where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return _unavailable(f"no child subreaper on {sys.platform}")
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return _unavailable(f"prctl failed: {os.strerror(ctypes.get_errno())}")
    except (OSError, AttributeError) as exc:
        return _unavailable(f"cannot call prctl: {exc}")
    return True


def _unavailable(reason: str) -> bool:
    LOG.warning(
        "perfgate: %s; processes that children detach (setsid, double fork) are not "
        "contained, only each child's process group is killed",
        reason,
    )
    return False


def children() -> frozenset[int]:
    """The process ids whose parent is this process (living or not yet reaped)."""
    me = os.getpid()
    return frozenset(proc.pid for proc in _processes() if proc.ppid == me)


def _processes() -> list[_Proc]:
    """Every process ``/proc`` shows (none where there is no /proc)."""
    found = []
    for entry in _PROC.glob("[0-9]*/stat"):
        try:
            stat = entry.read_text(errors="replace")
        except OSError:  # the process ended while we looked
            continue
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
        head, _, tail = stat.rpartition(")")
        fields = tail.split()
        if len(fields) >= 3 and fields[1].isdigit() and fields[2].isdigit():
            name = head.partition("(")[2]
            zombie = fields[0] in ("Z", "X")
            found.append(
                _Proc(int(entry.parent.name), name, zombie, int(fields[1]), int(fields[2]))
            )
    return found


def kill_group(pgid: int) -> None:
    """SIGKILL every process of process group ``pgid`` (none left is fine)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def sweep(pgid: int, before: frozenset[int]) -> tuple[Straggler, ...]:
    """Kill what is left of a child's process tree; return the processes that were running.

    Each pass kills the living members of process group ``pgid`` and every child of this
    process not in ``before`` (orphans re-parented to the subreaper), and reaps the latter;
    it ends when neither is left. A member that is still dying keeps the loop going: its
    own children are re-parented to this process only once it is dead.
    """
    stragglers: dict[int, Straggler] = {}
    me = os.getpid()
    for _ in range(MAX_SWEEPS):
        procs = _processes()
        orphans = [p for p in procs if p.ppid == me and p.pid not in before]
        members = [p for p in procs if p.pgrp == pgid and not p.zombie and p not in orphans]
        if not orphans and not members:
            _killed.extend(stragglers.values())
            return tuple(stragglers.values())
        for proc in (*members, *orphans):
            if not proc.zombie:
                stragglers.setdefault(proc.pid, Straggler(proc.pid, proc.name))
                _kill(proc.pid)
        for proc in orphans:
            _reap(proc.pid)
        if not orphans:
            time.sleep(0.01)  # members of the group are dying; their children come next
    _killed.extend(stragglers.values())
    raise RunnerError(
        f"processes left by a child keep appearing after {MAX_SWEEPS} kill passes "
        f"({len(stragglers)} killed): refusing to go on"
    )


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:  # reaped already
        pass


def wait_exited(pid: int, timeout_s: float) -> bool:
    """Wait until child ``pid`` has exited, *without* reaping it (its process id, and so
    its process group id, stay taken until it is reaped); False when ``timeout_s`` passed."""
    deadline = time.monotonic() + timeout_s
    delay = 0.0005
    while True:
        done = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if done is not None:
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        delay = min(delay * 2, remaining, 0.05)
        time.sleep(delay)


def killed() -> tuple[Straggler, ...]:
    """Every straggler this process killed so far (the subreaper is process-wide)."""
    return tuple(_killed)


def killed_note(since: int) -> tuple[str, ...]:
    """A report note naming the processes killed after ``since`` of them had been (the head's
    code left them running after the command that started them returned: suspicious)."""
    late = killed()[since:]
    if not late:
        return ()
    shown = ", ".join(str(s) for s in late[:10]) + (", ..." if len(late) > 10 else "")
    return (
        f"contained: {len(late)} process(es) still running after the command that started "
        f"them had returned were killed before this report was written (suspicious): {shown}",
    )
