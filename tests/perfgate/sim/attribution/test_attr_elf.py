"""perfgate.sim.attribution.elf: the function symbols of Numba's object code."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.sim.attribution import elf

#: the object code Numba 0.68 cached for ``def sk(a): t = 0.0; for i in range(a.shape[0]):
#: t += a[i]; return t`` (njit, cache=True, x86-64)
OBJECT = Path(__file__).parents[2] / "data" / "attribution" / "numba_sk.o"
MAIN = "_ZN1k2skB2v7B38c8tJTIeFIjxB2IKSgI4CrvQClQZ6FczSBAA_3dE5ArrayIdLi1E1C7mutable7alignedE"


def test_the_functions_of_a_numba_object_with_their_offsets_and_sizes() -> None:
    """The kernel, its Python and C wrappers and the runtime helper it carries, each with
    its offset and size in the one code section (what places them in the process)."""
    symbols = {s.name: s for s in elf.function_symbols(OBJECT.read_bytes())}
    assert set(symbols) == {MAIN, "_ZN7cpython" + MAIN[3:], "cfunc." + MAIN, "NRT_decref"}
    assert (symbols[MAIN].offset, symbols[MAIN].size) == (0, 164)
    assert (symbols["NRT_decref"].offset, symbols["NRT_decref"].size) == (512, 24)
    assert len({s.section for s in symbols.values()}) == 1
    assert all(s.exported for s in symbols.values())


def test_an_object_is_found_inside_a_cache_file_and_junk_is_not_an_object() -> None:
    """A pickled cache file holds the object code verbatim between other bytes; a stray
    magic number that heads no object is passed over."""
    blob = OBJECT.read_bytes()
    wrapped = b"\x80\x04junk\x7fELF\x02\x01broken" + blob + b"tail"
    assert elf.embedded_objects(wrapped) == [blob]
    assert elf.embedded_objects(b"no object here") == []
    with pytest.raises(ValueError, match="not a 64-bit little-endian ELF"):
        elf.function_symbols(b"MZ\x90\x00")
