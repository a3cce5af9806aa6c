"""Enforce the tier markers: a test may compile Numba kernels, start processes or reach
another host only when it carries the marker that says so.

``make test-fast`` deselects the ``numba``, ``subprocess`` and ``network`` tests; a marker
that nobody checks drifts, and then the fast tier slowly fills with compiles again. So the
root ``conftest.py`` installs three hooks for the whole run (every tier):

* Numba: asking a dispatcher for a signature it does not hold yet (compiling it, or loading
  it from the on-disk cache) fails a test without ``@pytest.mark.numba``;
* processes: :class:`subprocess.Popen` (``run``, ``check_output``, ...) fails a test without
  ``@pytest.mark.subprocess``;
* network: connecting a socket to a non-loopback address fails a test without
  ``@pytest.mark.network`` (the fake GitHub API on 127.0.0.1 needs no marker).

A kernel another test already compiled in the same process is not a new compile, so in the
full suite a missing ``numba`` marker may go unnoticed; the fast tier runs no ``numba`` test
at all, so there every unmarked compile is caught. Violations raise :class:`pytest.fail`'s
exception (a ``BaseException``: ``except Exception`` in the code under test cannot swallow
it) and are also recorded, so one raised in another thread still fails its test.
"""

from __future__ import annotations

import ipaddress
import socket
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

#: The test running now (setup, call and teardown), else ``None`` (collection, session end).
_current: list[pytest.Item] = []
#: Violations seen during the current test.
_violations: list[str] = []


def begin(item: pytest.Item) -> None:
    """Attribute what happens from now on to ``item``."""
    _current[:] = [item]
    _violations.clear()


def pending() -> list[str]:
    """The violations of the current test so far."""
    return list(_violations)


def end() -> None:
    """Stop attributing (the test's setup, call and teardown are over)."""
    _current.clear()
    _violations.clear()


def check(marker: str, what: str) -> None:
    """Fail the current test if it lacks ``marker`` (``what`` says what it did)."""
    if not _current or _current[0].get_closest_marker(marker) is not None:
        return
    message = (
        f"{_current[0].nodeid} {what} without @pytest.mark.{marker}; "
        f"mark the test (or its module) so that the tiers stay true"
    )
    _violations.append(message)
    pytest.fail(message, pytrace=False)


def install_process_guard() -> None:
    """Wrap :meth:`subprocess.Popen._execute_child`, which every ``subprocess`` call uses."""
    original: Callable[..., Any] = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def guarded(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> Any:
        shown = args if isinstance(args, (str, bytes)) else " ".join(map(str, args))
        check("subprocess", f"started a process ({str(shown)[:120]})")
        return original(self, args, *rest, **kwargs)

    subprocess.Popen._execute_child = guarded  # type: ignore[attr-defined]


def _is_remote(address: Any) -> bool:
    """True for an (host, port, ...) address that is not a loopback IP or ``localhost``."""
    if not isinstance(address, tuple) or not address:
        return False  # AF_UNIX paths and the like
    host = str(address[0])
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return True  # a host name: resolving it may already reach the network


def install_network_guard() -> None:
    """Wrap :meth:`socket.socket.connect` and ``connect_ex``."""
    for name in ("connect", "connect_ex"):
        original = getattr(socket.socket, name)

        def guarded(self: socket.socket, address: Any, _original: Any = original) -> Any:
            if _is_remote(address):
                check("network", f"connected to {address!r}")
            return _original(self, address)

        setattr(socket.socket, name, guarded)


def numba_compile_check(dispatcher: Any, sig: Any) -> None:
    """Called before a dispatcher compiles or loads ``sig``: only ``numba`` tests may."""
    name = getattr(getattr(dispatcher, "py_func", None), "__qualname__", repr(dispatcher))
    check("numba", f"compiled (or loaded from the Numba cache) the kernel {name}{sig}")
