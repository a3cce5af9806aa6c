"""One compile per kernel across pytest-xdist workers, and a race-free Numba disk cache.

Numba saves a cached kernel as an index (signature -> data file) plus one data file per
signature, and picks the data file's number from the index it read: two processes saving
different signatures of one function at the same moment can leave an index entry naming
the other signature's file. Workers of one test run share ``NUMBA_CACHE_DIR``, so the
root ``conftest.py`` wraps :meth:`numba.core.dispatcher.Dispatcher.compile` for cached
dispatchers: it holds an exclusive :func:`fcntl.flock` on ``<index file>.lock`` (per
function) while it loads or compiles and saves. A second worker that needs the same kernel
waits and then loads it from the cache instead of compiling it again.

Lock order: Numba's in-process compiler lock first, then the function's file lock; nested
compiles (a kernel typing its helpers) take the helpers' locks inside the caller's, which
follows the call graph and cannot cycle; a lock this process already holds is re-entered.
Dispatchers without a disk cache (``cache=False``) are not locked.

A kernel compiled for the first time (no index file in the cache yet) is announced to the
file named by ``PERFGATE_PROGRESS_FILE`` when it is set (the gate sets it for its parity
command and prints "compiling <kernel>" in its progress lines): one JSON line when the
compile starts and one when it is done (`perfgate.gate.parity_progress`).
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

#: Lock files this process holds now -> nesting depth.
_held: dict[str, int] = {}


def _lock_path(dispatcher: Any) -> str | None:
    """``<index>.lock`` of a dispatcher with a disk cache, else ``None``."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    index = getattr(cache_file, "_index_path", None)
    return None if index is None else f"{index}.lock"


@contextmanager
def _flocked(path: str) -> Iterator[None]:
    """Exclusive lock on ``path`` (created if missing), re-entrant within this process."""
    if _held.get(path):
        _held[path] += 1
        try:
            yield
        finally:
            _held[path] -= 1
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _held[path] = 1
        try:
            yield
        finally:
            del _held[path]
    finally:
        os.close(fd)  # closing releases the lock


def _announce(event: str, what: str, seconds: float | None = None) -> None:
    """Append one progress event for the gate (nothing when no progress file is named)."""
    path = os.environ.get("PERFGATE_PROGRESS_FILE")
    if not path:
        return
    record = {"worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "event": event}
    record.update({"what": what} if seconds is None else {"what": what, "seconds": seconds})
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(record) + "\n").encode())  # one write: lines never interleave
    finally:
        os.close(fd)


@contextmanager
def _announced(dispatcher: Any, path: str | None) -> Iterator[None]:
    """Announce a first compile (no cache index yet) of a kernel that is not nested in
    another kernel's compile."""
    first = path is not None and not _held and not os.path.exists(path.removesuffix(".lock"))
    func = getattr(dispatcher, "py_func", None)
    what = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', '?')}"
    if first:
        _announce("compiling", what)
    started = time.monotonic()
    try:
        yield
    finally:
        if first:
            _announce("compiled", what, round(time.monotonic() - started, 1))


def install(before_new_signature: Callable[[Any, Any], None]) -> None:
    """Wrap ``Dispatcher.compile``; ``before_new_signature(dispatcher, sig)`` runs first for
    a signature the dispatcher does not hold yet (the tier guard)."""
    from numba.core import sigutils
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.dispatcher import Dispatcher

    original = Dispatcher.compile

    def compile_once(self: Any, sig: Any) -> Any:
        args, _ = sigutils.normalize_signature(sig)
        if self.overloads.get(tuple(args)) is not None:
            return original(self, sig)
        before_new_signature(self, sig)
        path = _lock_path(self)
        with _announced(self, path), global_compiler_lock:
            with nullcontext() if path is None else _flocked(path):
                return original(self, sig)

    Dispatcher.compile = compile_once  # type: ignore[method-assign]
