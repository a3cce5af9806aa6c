"""valgrind client requests from Python, with no compiler and no build step.

A client request is valgrind's documented ABI (``valgrind.h``): a "magic" instruction
sequence that does nothing on a real CPU (four rotates of a register by 3 + 13 + 61 + 51 =
128 bits, then ``xchg rbx, rbx``) and that valgrind's JIT recognises, reading the request
from an array of six words whose address is in ``rax``; the answer comes back in ``rdx``,
which holds the default (0) natively. The sequence is written here as x86-64 machine code
into one executable page and called through ctypes, so:

- it is a no-op outside valgrind (``running_on_valgrind()`` is False; every request returns
  its default), which the tests check natively and under valgrind;
- the gate's package stays pure Python (no C extension, no valgrind headers at install) and
  needs no Numba: any project's benchmark process can issue the requests;
- the bytes are those of valgrind.h's ``VALGRIND_DO_CLIENT_REQUEST`` for amd64, checked
  against gcc's compilation of the header in the tests.

Only x86-64 Linux is supported (`SimUnsupported` elsewhere).
"""

from __future__ import annotations

import ctypes
import mmap
import platform
import sys
from collections.abc import Callable

from perfgate.errors import UserError


class SimUnsupported(UserError):
    """The simulated instrument cannot run on this machine (not x86-64 Linux)."""


#: uint64 request(uint64 *args /* rdi */, uint64 default /* rsi */)
CODE_X86_64 = bytes.fromhex(
    "4889f8"  # mov rax, rdi        ; rax = the request block
    "4889f2"  # mov rdx, rsi        ; rdx = the default answer
    "48c1c703"  # rol rdi, 3        ; the magic preamble (128 bits of rotation: no-op)
    "48c1c70d"  # rol rdi, 13
    "48c1c73d"  # rol rdi, 61
    "48c1c733"  # rol rdi, 51
    "4887db"  # xchg rbx, rbx       ; "client request": valgrind answers in rdx
    "4889d0"  # mov rax, rdx
    "c3"  # ret
)

RUNNING_ON_VALGRIND = 0x1001
_CALLGRIND_BASE = (ord("C") << 24) | (ord("T") << 16)
DUMP_STATS_AT = _CALLGRIND_BASE + 3
ZERO_STATS = _CALLGRIND_BASE + 1
START_INSTRUMENTATION = _CALLGRIND_BASE + 4
STOP_INSTRUMENTATION = _CALLGRIND_BASE + 5

_Request = Callable[[int, int], int]
_Args = ctypes.c_uint64 * 6
_request: _Request | None = None
#: the executable page stays mapped as long as the process lives
_page: mmap.mmap | None = None


def supported() -> bool:
    """True on x86-64 Linux, the one platform whose request sequence is here."""
    return sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")


def _load() -> _Request:
    """Map the request code once and return it as a C function."""
    global _request, _page
    if _request is None:
        if not supported():
            raise SimUnsupported(
                f"the sim instrument needs x86-64 Linux; this is {sys.platform} "
                f'{platform.machine()} (use instruments = ["wall"])'
            )
        prot = mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC
        page = mmap.mmap(-1, mmap.PAGESIZE, prot=prot)
        page.write(CODE_X86_64)
        address = ctypes.addressof(ctypes.c_char.from_buffer(page))
        signature = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64)
        _page, _request = page, signature(address)
    return _request


def request(code: int, *args: int, default: int = 0) -> int:
    """Issue client request ``code`` with up to five word arguments; natively ``default``."""
    if len(args) > 5:
        raise ValueError(f"a client request takes at most 5 arguments, got {len(args)}")
    block = _Args(code, *args)
    return int(_load()(ctypes.addressof(block), default))


def running_on_valgrind() -> bool:
    """True inside a process that valgrind runs."""
    return request(RUNNING_ON_VALGRIND) != 0


def start_instrumentation() -> None:
    """Callgrind: instrument (and so count and cache-simulate) from here on."""
    request(START_INSTRUMENTATION)


def stop_instrumentation() -> None:
    """Callgrind: stop instrumenting (nothing is counted or simulated until started)."""
    request(STOP_INSTRUMENTATION)


def zero_stats() -> None:
    """Callgrind: forget what was counted so far (the warm-up call)."""
    request(ZERO_STATS)


def dump_stats_at(name: str) -> None:
    """Callgrind: write the counts since the last zero or dump, tagged ``name``, and zero."""
    prepared_dump(name)()


def prepared_dump(name: str) -> Callable[[], int]:
    """`dump_stats_at` of ``name`` made ready in advance: calling it only issues the
    request, so the few instructions between a measured call and its dump (which are
    counted with the call) are as few as Python allows."""
    text = ctypes.create_string_buffer(name.encode("ascii"))
    block = _Args(DUMP_STATS_AT, ctypes.addressof(text))
    issue, address = _load(), ctypes.addressof(block)

    def dump() -> int:
        return int(issue(address, 0))

    dump.keep = (text, block)  # type: ignore[attr-defined]  # the buffers live with it
    return dump
