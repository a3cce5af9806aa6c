"""The code ranges of compiled Numba kernels, and callgrind's unnamed functions named by them.

JIT code has no symbol table valgrind can read: callgrind names a function there by its
entry address (``0x0000000016c44000`` in object ``???``). The measured process records
where each compiled kernel's functions lie (`perfgate.sim.attribution.record`); this
module maps an address to the kernel function whose range holds it. A range of unknown size
(its object code could not be read) names its start address only, never what follows it.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

#: the object callgrind gives code no mapped file holds (JIT code)
UNNAMED_OBJECT = "???"
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]+$")
_GUFUNC = re.compile(r"__numba_parfor_gufunc_0x[0-9a-f]+")


@dataclass(frozen=True)
class CodeRange:
    """One function of a compiled kernel: ``size`` bytes from ``start`` (0: size unknown)."""

    start: int
    size: int
    #: what a report calls it (`label_for`)
    label: str
    #: the dispatcher's qualified name and the overload's signature
    kernel: str
    signature: str
    #: the symbol in Numba's object code (mangled)
    symbol: str

    def holds(self, address: int) -> bool:
        """True when ``address`` lies in this function (its start only, size unknown)."""
        if self.size <= 0:
            return address == self.start
        return self.start <= address < self.start + self.size


class KernelMap:
    """Code ranges of every recorded kernel function; `name_of` an address."""

    def __init__(self, ranges: Iterable[CodeRange]) -> None:
        unique = {r.start: r for r in sorted(ranges, key=lambda r: (r.start, -r.size))}
        self.ranges: tuple[CodeRange, ...] = tuple(unique[s] for s in sorted(unique))
        self._starts = [r.start for r in self.ranges]

    def __len__(self) -> int:
        return len(self.ranges)

    def find(self, address: int) -> CodeRange | None:
        """The range holding ``address`` (the nearest start at or below it), or None."""
        at = bisect.bisect_right(self._starts, address) - 1
        if at < 0 or not self.ranges[at].holds(address):
            return None
        return self.ranges[at]

    def name_of(self, obj: str, function: str) -> str | None:
        """The kernel label of callgrind's function ``function`` in object ``obj``, None
        for a named function or an address no recorded kernel holds."""
        if obj not in (UNNAMED_OBJECT, "") or not _ADDRESS.match(function):
            return None
        found = self.find(int(function, 16))
        return None if found is None else found.label

    @property
    def kernels(self) -> tuple[str, ...]:
        """The labels of the kernels' own functions (no wrappers, no runtime helpers)."""
        return tuple(sorted({r.kernel for r in self.ranges if r.label == r.kernel}))

    def to_json(self) -> dict[str, Any]:
        """Plain data (`from_json` reads it back)."""
        return {"ranges": [asdict(r) for r in self.ranges]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KernelMap:
        """From `to_json`'s data; a ValueError names what is missing."""
        try:
            return cls(CodeRange(**r) for r in data["ranges"])
        except (KeyError, TypeError) as exc:
            raise ValueError(
                f"kernel map: expected ranges of {CodeRange.__name__}: {exc}"
            ) from None


def read_map(text: str) -> KernelMap:
    """A kernel map file's text (`KernelMap.to_json` as JSON)."""
    return KernelMap.from_json(json.loads(text))


def demangle(symbol: str) -> str:
    """A readable name of Numba's Itanium-style mangled ``symbol`` (the dotted path, ABI
    tags dropped): ``_ZN1k2skB2v7B38c8...E5ArrayIdLi1E...`` -> ``k.sk``. Anything else is
    returned as it is."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts: list[str] = []
    at = 3
    while at < len(symbol) and symbol[at] != "E":
        tag = symbol[at] == "B"
        at += tag
        digits = re.match(r"\d+", symbol[at:])
        if digits is None:
            break
        length = int(digits.group())
        at += len(digits.group())
        if not tag:
            parts.append(symbol[at : at + length])
        at += length
    return ".".join(parts) if parts else symbol


def label_for(symbol: str, main: str, kernel: str) -> str:
    """What a report calls ``symbol`` of the object compiled for ``kernel`` (whose own
    function is ``main``): the kernel, its wrappers, its parfor gufuncs (their names carry
    an object's address, which differs between processes: dropped), the runtime's helpers,
    or the demangled name of an inlined helper's copy."""
    if symbol == main:
        return kernel
    if main.startswith("_ZN") and symbol == "_ZN7cpython" + main[3:]:
        return f"{kernel} (Python wrapper)"
    if symbol == f"cfunc.{main}":
        return f"{kernel} (C wrapper)"
    if _GUFUNC.search(symbol):
        role = "gufunc wrapper" if symbol.startswith("__gufunc__") else "parfor loop"
        return f"{kernel} ({role})"
    if symbol.startswith("NRT_"):
        return f"{symbol} (Numba runtime)"
    return demangle(symbol)


def ranges_of(
    symbols: Sequence[tuple[str, int, int]], main: str, kernel: str, signature: str
) -> list[CodeRange]:
    """The code ranges of one compiled object's functions, each ``(symbol, start, size)``."""
    return [
        CodeRange(start, size, label_for(name, main, kernel), kernel, signature, name)
        for name, start, size in symbols
    ]
