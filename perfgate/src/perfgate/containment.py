"""Containment of the gate's children: nothing a child starts outlives it.

The gate's children run the pull request's code (asv building and benchmarking the head,
the parity command), which could start a detached process that later rewrites the report
or the run folder, after the gate finished and before a workflow step posts them. So:

* on Linux the gate becomes a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): an
  orphaned descendant is re-parented to the gate, where it can be found;
* each child starts in a session (and process group) of its own;
* while the child runs, :class:`EscapeWatch` kills, every `ESCAPE_CHECK_S` seconds, any
  child of the gate the gate did not start (an orphan a child detached, which may hold the
  child's output pipes open);
* after the child exits or times out, :func:`sweep` kills its process group, every new
  child of the gate (the re-parented orphans) and every process whose environment carries
  the command's `MARKER`, reaps them, and repeats until none is left, before anything is
  rendered or written.

Without the subreaper (not Linux, prctl refused) the process group and the marked
processes are still killed, and the gate says once that detached processes cannot be
contained. A killed straggler is suspicious: :func:`sweep` returns it and :func:`killed`
keeps every one, for the gate's log and report notes (docs/security.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import os
import secrets
import signal
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from perfgate.errors import RunnerError

LOG = logging.getLogger(__name__)

#: ``prctl`` option number (linux/prctl.h).
PR_SET_CHILD_SUBREAPER = 36
#: Kill-and-reap passes before a process tree that keeps producing processes is an error.
MAX_SWEEPS = 1000
#: Seconds between two looks for detached processes while a child runs.
ESCAPE_CHECK_S = 0.2
#: How much of a straggler's command line is kept (for the log and the report's notes).
COMMAND_CHARS = 160
#: The environment variable marking every process of one command (see the module).
MARKER = "PERFGATE_CONTAINED"
_PROC = Path("/proc")


@dataclass(frozen=True)
class Straggler:
    """A process that was still running after the command that started it had returned, or
    after its parent had: detached from the command. ``command`` is its command line (cut
    to `COMMAND_CHARS`; the caller redacts it), ``marker`` its command's `MARKER`, if any."""

    pid: int
    name: str
    command: str = ""
    marker: str | None = None

    def __str__(self) -> str:
        return f"pid {self.pid} ({self.command or self.name})"


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
        "contained, only each child's process group and the processes carrying its "
        "marker are killed",
        reason,
    )
    return False


def children() -> frozenset[int]:
    """The process ids whose parent is this process (living or not yet reaped)."""
    me = os.getpid()
    return frozenset(proc.pid for proc in _processes() if proc.ppid == me)


def _processes(pids: Iterable[int] | None = None) -> list[_Proc]:
    """Every process ``/proc`` shows, or those of ``pids`` (none where there is no /proc)."""
    found = []
    stats = _PROC.glob("[0-9]*/stat") if pids is None else (_PROC / f"{p}/stat" for p in pids)
    for entry in stats:
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


def new_marker() -> str:
    """A fresh value for `MARKER` (of one length, so that the environment of every
    measured process has one size whatever its value: the stack's layout follows it)."""
    return secrets.token_hex(8)


def _straggler(proc: _Proc) -> Straggler:
    """``proc`` as a straggler: its command line and its command's marker, read before it
    is killed (a process gone meanwhile keeps its name)."""
    try:
        argv = (_PROC / str(proc.pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        argv = []
    command = " ".join(a.decode(errors="replace") for a in argv if a)
    if len(command) > COMMAND_CHARS:
        command = command[: COMMAND_CHARS - 3] + "..."
    return Straggler(proc.pid, proc.name, command, _marker_of(proc.pid))


def _marker_of(pid: int) -> str | None:
    """The `MARKER` in the environment process ``pid`` started with (None: none, or not
    readable: another user's process)."""
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    prefix = MARKER.encode() + b"="
    for entry in environ.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode(errors="replace")
    return None


def _own_children() -> frozenset[int]:
    """`children`, from ``/proc/self/task/*/children`` (a few small files, cheap enough to
    read every `ESCAPE_CHECK_S` while a child runs); the whole of ``/proc`` without them."""
    try:
        found: set[int] = set()
        for task in (_PROC / "self" / "task").iterdir():
            found.update(int(p) for p in (task / "children").read_text().split())
        return frozenset(found)
    except (OSError, ValueError):
        return children()


def _stat(pid: int) -> _Proc | None:
    """Process ``pid`` as ``/proc/PID/stat`` shows it; None when it is gone."""
    return next((p for p in _processes((pid,))), None)


class EscapeWatch:
    """Kills, while commands run, the processes they detach (see the module): every child
    of this process that is neither ``known`` nor one of the commands (`started`).

    The gate starts no other process while it waits for its commands, so a child of the
    gate it did not start is an orphan re-parented to it (the subreaper). An orphan that
    has already exited is only reaped.
    """

    def __init__(self, known: Iterable[int]) -> None:
        self.known = set(known)
        self.killed: list[Straggler] = []
        self._next = 0.0

    def started(self, pid: int) -> None:
        """``pid`` is one of the commands (never an orphan)."""
        self.known.add(pid)

    def check(self) -> None:
        """Kill and reap the orphans there are now (at most every `ESCAPE_CHECK_S`)."""
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + ESCAPE_CHECK_S
        for pid in sorted(_own_children() - self.known):
            proc = _stat(pid)
            if proc is not None and not proc.zombie:
                straggler = _straggler(proc)
                _kill(pid)
                self.killed.append(straggler)
                _killed.append(straggler)
            _reap(pid)


def kill_group(pgid: int) -> None:
    """SIGKILL every process of process group ``pgid`` (none left is fine)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def sweep(pgid: int, before: frozenset[int], marker: str | None = None) -> tuple[Straggler, ...]:
    """Kill what is left of a child's process tree; return the processes that were running.

    Each pass kills the living members of process group ``pgid``, every child of this
    process not in ``before`` (orphans re-parented to the subreaper) and every process
    whose environment carries ``marker`` (`MARKER`), and reaps the orphans; it ends when
    none is left. A member that is still dying keeps the loop going: its own children are
    re-parented to this process only once it is dead.
    """
    stragglers: dict[int, Straggler] = {}
    me = os.getpid()
    for _ in range(MAX_SWEEPS):
        procs = _processes()
        orphans = [p for p in procs if p.ppid == me and p.pid not in before]
        members = [
            p
            for p in procs
            if not p.zombie
            and p.pid != me
            and p not in orphans
            and (p.pgrp == pgid or (marker is not None and _marker_of(p.pid) == marker))
        ]
        if not orphans and not members:
            _killed.extend(stragglers.values())
            return tuple(stragglers.values())
        for proc in (*members, *orphans):
            if not proc.zombie:
                stragglers.setdefault(proc.pid, _straggler(proc))
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


def wait_exited(pid: int, timeout_s: float, watch: EscapeWatch | None = None) -> bool:
    """Wait until child ``pid`` has exited, *without* reaping it (its process id, and so
    its process group id, stay taken until it is reaped); False when ``timeout_s`` passed.
    ``watch`` kills the processes the child detaches meanwhile."""
    deadline = time.monotonic() + timeout_s
    delay = 0.0005
    while True:
        done = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if done is not None:
            return True
        if watch is not None:
            watch.check()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        delay = min(delay * 2, remaining, 0.05)
        time.sleep(delay)


def killed() -> tuple[Straggler, ...]:
    """Every straggler this process killed so far (the subreaper is process-wide)."""
    return tuple(_killed)


def killed_note(since: int) -> tuple[str, ...]:
    """A report note naming the processes killed after ``since`` of them had been, with
    their command lines (the head's code left them running after the command, or the
    process, that started them had returned: suspicious). The report is redacted as a
    whole before it is written (`perfgate.gate.publish`)."""
    late = killed()[since:]
    if not late:
        return ()
    shown = ", ".join(str(s) for s in late[:10]) + (", ..." if len(late) > 10 else "")
    return (
        f"contained: {len(late)} process(es) detached from the commands that started them "
        "(still running after the command, or the process that started them, had returned) "
        f"were killed before this report was written (suspicious): {shown}",
    )
