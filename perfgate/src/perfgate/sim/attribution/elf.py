"""The function symbols of a 64-bit little-endian ELF object (Numba's compiled object code).

Numba keeps a kernel's machine code as an ELF relocatable object (in memory after a compile,
inside its on-disk cache file otherwise). Its symbol table says where each function starts
within its section and how long it is: with one function's address in the process, every
function of that section gets its address range. Only what that needs is read.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_MAGIC = b"\x7fELF\x02\x01"  # ELF, 64-bit, little-endian
_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")
_SYMBOL = struct.Struct("<IBBHQQ")
_SHT_SYMTAB = 2
_STT_FUNC = 2
_SHF_EXECINSTR = 0x4
_SHN_LORESERVE = 0xFF00


@dataclass(frozen=True)
class FunctionSymbol:
    """A defined function: its name, the section holding it, offset and size there."""

    name: str
    section: int
    offset: int
    size: int
    #: True for a global or weak symbol (one the JIT can look up by name)
    exported: bool


@dataclass(frozen=True)
class _Section:
    kind: int
    flags: int
    offset: int
    size: int
    link: int
    entsize: int


def _sections(blob: bytes) -> list[_Section]:
    fields = _HEADER.unpack_from(blob, 0)
    shoff, shentsize, shnum = fields[6], fields[11], fields[12]
    if shentsize != _SECTION.size or shoff + shnum * shentsize > len(blob):
        raise ValueError("ELF object: section headers out of bounds")
    out = []
    for i in range(shnum):
        _, kind, flags, _, offset, size, link, _, _, entsize = _SECTION.unpack_from(
            blob, shoff + i * shentsize
        )
        out.append(_Section(kind, flags, offset, size, link, entsize))
    return out


def _name(strings: bytes, at: int) -> str:
    end = strings.find(b"\0", at)
    return strings[at : end if end >= 0 else len(strings)].decode("utf-8", "replace")


def function_symbols(blob: bytes) -> list[FunctionSymbol]:
    """Every defined function symbol in an executable section of ``blob``, in table order;
    a ValueError when ``blob`` is not a 64-bit little-endian ELF object."""
    if not blob.startswith(_MAGIC) or len(blob) < _HEADER.size:
        raise ValueError("not a 64-bit little-endian ELF object")
    sections = _sections(blob)
    out: list[FunctionSymbol] = []
    for table in (s for s in sections if s.kind == _SHT_SYMTAB):
        strtab = sections[table.link]
        strings = blob[strtab.offset : strtab.offset + strtab.size]
        for at in range(table.offset, table.offset + table.size, table.entsize or _SYMBOL.size):
            name_at, info, _, shndx, value, size = _SYMBOL.unpack_from(blob, at)
            if info & 0xF != _STT_FUNC or shndx == 0 or shndx >= _SHN_LORESERVE:
                continue
            if shndx >= len(sections) or not sections[shndx].flags & _SHF_EXECINSTR:
                continue
            out.append(FunctionSymbol(_name(strings, name_at), shndx, value, size, info >> 4 > 0))
    return out


def object_size(blob: bytes, start: int = 0) -> int:
    """The length of the ELF object beginning at ``start`` of ``blob`` (its section
    headers come last); a ValueError when none begins there."""
    if blob[start : start + len(_MAGIC)] != _MAGIC or len(blob) - start < _HEADER.size:
        raise ValueError(f"no ELF object at offset {start}")
    fields = _HEADER.unpack_from(blob, start)
    shoff, shentsize, shnum = fields[6], fields[11], fields[12]
    return int(shoff + shentsize * shnum)


def embedded_objects(blob: bytes) -> list[bytes]:
    """The ELF objects found verbatim inside ``blob`` (a pickled Numba cache file holds
    its object code as raw bytes), in order."""
    out: list[bytes] = []
    at = blob.find(_MAGIC)
    while at >= 0:
        try:
            size = object_size(blob, at)
        except (ValueError, struct.error):
            size = 0
        if 0 < size <= len(blob) - at:
            candidate = blob[at : at + size]
            try:
                function_symbols(candidate)
            except (ValueError, struct.error, IndexError):
                pass
            else:
                out.append(candidate)
                at = blob.find(_MAGIC, at + size)
                continue
        at = blob.find(_MAGIC, at + 1)
    return out
