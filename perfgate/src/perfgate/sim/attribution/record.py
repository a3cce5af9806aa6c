"""Run in the measured process: where every compiled Numba kernel's code lies, and its code.

After the cases were measured (instrumentation off), `kernel_map` walks the process's Numba
dispatchers. For each compiled overload it takes the kernel's object code (in memory after
a compile; from the kernel's on-disk cache file when it was loaded from there, since Numba
hands the cached bytes to LLVM and keeps no copy), reads the functions' offsets and sizes
from its symbol table (`perfgate.sim.attribution.elf`) and places them by the address of
the kernel's own function in this process. Where the object code cannot be had, or does
not fit the loaded code, only the start addresses of the functions the JIT can look up are
recorded (`CodeRange.size` 0).

`write_code` writes each kernel's assembly and LLVM IR (a cached kernel's from the optimised
module Numba keeps for linking, compiled again to assembly by the same target machine:
``inspect_asm`` refuses cached code). Nothing here imports numba: a process that never
loaded it records nothing.
"""

from __future__ import annotations

import gc
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from perfgate.sim.attribution import elf
from perfgate.sim.attribution.kernels import CodeRange, KernelMap, ranges_of


def _dispatchers() -> list[Any]:
    """Every live Numba dispatcher of this process (none where numba was never imported).
    Types are tested on ``type(o)``: ``isinstance`` asks the object its ``__class__``, which
    a dead weak proxy among the collector's objects answers with ReferenceError."""
    if "numba" not in sys.modules:
        return []
    from numba.core.dispatcher import Dispatcher

    found = [o for o in gc.get_objects() if issubclass(type(o), Dispatcher)]
    return sorted(found, key=lambda d: (d.py_func.__module__, d.py_func.__qualname__))


def _overloads() -> Iterator[tuple[str, str, Any, Any]]:
    """(kernel name, signature, dispatcher, compile result) of every compiled overload; a
    dispatcher with several overloads names each by its signature too."""
    dispatchers = _dispatchers()
    short = [d.py_func.__qualname__ for d in dispatchers]
    for dispatcher in dispatchers:
        items = list(dispatcher.overloads.items())
        base = dispatcher.py_func.__qualname__
        if short.count(base) > 1:
            base = f"{dispatcher.py_func.__module__}.{base}"
        for sig, cres in items:
            name = base if len(items) == 1 else f"{base}[{sig}]"
            yield name, str(sig), dispatcher, cres


def _cached_object(dispatcher: Any, sig: Any, library: Any) -> bytes | None:
    """The object code of ``sig``'s overload in the dispatcher's on-disk cache, if any."""
    cache = getattr(dispatcher, "_cache", None)
    store = getattr(cache, "_cache_file", None)
    if cache is None or store is None:
        return None
    try:
        key = cache._index_key(sig, library.codegen)
        name = store._load_index().get(key)
        if name is None:
            return None
        blob = Path(store._data_path(name)).read_bytes()
    except (OSError, AttributeError, ValueError):
        return None
    objects = elf.embedded_objects(blob)
    return objects[0] if objects else None


def _object_code(dispatcher: Any, sig: Any, library: Any) -> bytes | None:
    held = getattr(library, "_compiled_object", None)
    if isinstance(held, bytes) and held:
        return held
    return _cached_object(dispatcher, sig, library)


def _placed(blob: bytes, library: Any, main: str) -> list[tuple[str, int, int]] | None:
    """``(symbol, address, size)`` of the object's functions in the section holding
    ``main``, placed by ``main``'s address; None when the object does not fit the loaded
    code (another exported function of that section lies elsewhere)."""
    symbols = elf.function_symbols(blob)
    anchor = next((s for s in symbols if s.name == main), None)
    address = library.get_pointer_to_function(main)
    if anchor is None or not address:
        return None
    base = address - anchor.offset
    section = [s for s in symbols if s.section == anchor.section]
    for s in section:
        if s.exported and s.name.startswith(("_ZN7cpython", "cfunc.")):
            if library.get_pointer_to_function(s.name) != base + s.offset:
                return None
    return [(s.name, base + s.offset, s.size) for s in section]


def _starts(library: Any) -> list[tuple[str, int, int]]:
    """``(symbol, address, 0)`` of the library's functions the JIT can look up."""
    module = _linked_module(library)
    names = [] if module is None else [f.name for f in module.functions if not f.is_declaration]
    out = []
    for name in names:
        address = library.get_pointer_to_function(name)
        if address:
            out.append((name, int(address), 0))
    return out


def _linked_module(library: Any) -> Any:
    """The optimised LLVM module of a library: its final module after a compile, the
    module kept for linking after a cache load (the final one is then empty)."""
    final = getattr(library, "_final_module", None)
    if final is not None and any(not f.is_declaration for f in final.functions):
        return final
    return getattr(library, "_shared_module", None)


def kernel_map() -> KernelMap:
    """The code ranges of every compiled overload of every live dispatcher."""
    ranges: list[CodeRange] = []
    for name, signature, dispatcher, cres in _overloads():
        library, main = cres.library, cres.fndesc.llvm_func_name
        blob = _object_code(dispatcher, cres.signature.args, library)
        placed = None if blob is None else _placed(blob, library, main)
        symbols = placed if placed is not None else _starts(library)
        ranges.extend(ranges_of(symbols, main, name, signature))
    return KernelMap(ranges)


def write_map(path: Path) -> None:
    """Write this process's `kernel_map` to ``path`` as JSON (replacing a file the native
    pass left: the measured process's addresses are the ones that count)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(kernel_map().to_json(), indent=0))
    tmp.replace(path)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:150]


def code_texts(cres: Any) -> tuple[str, str] | None:
    """(assembly, LLVM IR) of one compiled overload, None where neither can be had."""
    library = cres.library
    module = _linked_module(library)
    if module is None:
        return None
    ir = str(module)
    try:
        asm = library._codegen._tm.emit_assembly(module)
    except (AttributeError, RuntimeError):
        return None
    return asm, ir


def write_code(folder: Path) -> list[str]:
    """Each overload's ``<kernel>.s`` and ``<kernel>.ll`` in ``folder``; the kernels written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, _, _, cres in _overloads():
        texts = code_texts(cres)
        if texts is None:
            continue
        stem = _safe(name)
        (folder / f"{stem}.s").write_text(texts[0])
        (folder / f"{stem}.ll").write_text(texts[1])
        written.append(name)
    (folder / "index.json").write_text(json.dumps({_safe(n): n for n in written}, indent=0))
    return written
