"""What changed in a kernel's compiled code: a short summary of its assembly and LLVM IR
per side, and the unified diffs of both.

The measured process writes each kernel's assembly and optimised IR
(`perfgate.sim.attribution.record.write_code`). Two sides' texts are compared after
`normalise` drops what differs between processes for the same code: Numba's per-process
compile counter in mangled names (``B2v7``), the object address in a parfor gufunc's name,
and the linkage a cached kernel's module carries (``.weak`` for ``.globl``). Only the
kernel's own functions are summarised (its wrappers and the runtime's helpers are not).

The summary: machine instructions, branches (jumps), calls, packed SIMD instructions and
the widest vector register they use, the loops LLVM marked vectorised (loop metadata
``llvm.loop.isvectorized``), the most used vector type of the IR (``4 x double``) and the
calls into Numba's allocator (``NRT_MemInfo_alloc*``, ``NRT_Allocate*``).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from perfgate.sim.attribution import keep

_COUNTER = re.compile(r"B(\d+)v\d+")
_GUFUNC = re.compile(r"\d*__numba_parfor_gufunc_0x[0-9a-f]+")
#: a parfor gufunc wrapper's name carries the address of its object in the process
_GUFUNC_WRAPPER = re.compile(r"\.kernel\.\d+___gufunc__")
_WEAK = re.compile(r"^(\s*)\.weak(\s)", re.MULTILINE)
_FUNCTION = re.compile(r"^\s*\.type\s+([^,\s]+),@function", re.MULTILINE)
_PACKED = re.compile(r"^v?(?!mov[su]?[sd]$)\w*p[sd]$|^vp\w+|^p(add|sub|mul|and|or|xor|cmp)\w*")
_VECTOR_TYPE = re.compile(r"<(\d+) x (double|float|i\d+)>")
_ALLOCATOR = re.compile(r"call[^\n]*@(NRT_MemInfo_alloc\w*|NRT_Allocate\w*)")
_VECTORISED = re.compile(r'^(!\d+) = !\{!"llvm\.loop\.isvectorized", i32 1\}', re.MULTILINE)
_WRAPPERS = ("_ZN7cpython", "cfunc.", "NRT_")


def normalise(text: str) -> str:
    """``text`` without what differs between two processes compiling the same code."""
    text = _COUNTER.sub("Bv", text)
    text = _GUFUNC.sub("__numba_parfor_gufunc", text)
    text = _GUFUNC_WRAPPER.sub(".kernel.___gufunc__", text)
    return _WEAK.sub(r"\1.globl\2", text)


def kernel_instructions(asm: str) -> list[str]:
    """The instruction lines of the kernel's own functions in ``asm`` (mnemonic first)."""
    wanted = {n for n in _FUNCTION.findall(asm) if not n.startswith(_WRAPPERS)}
    out: list[str] = []
    current: str | None = None
    for line in asm.splitlines():
        if not line.startswith(("\t", " ")) and line.endswith(":"):
            current = (
                line[:-1] if line[:-1] in wanted else (current if line.startswith(".") else None)
            )
            continue
        stripped = line.strip()
        if current and stripped and not stripped.startswith((".", "#")):
            out.append(stripped)
    return out


@dataclass(frozen=True)
class CodeSummary:
    """A kernel's code in a few figures (see the module)."""

    instructions: int
    branches: int
    calls: int
    packed: int
    #: the widest vector register the packed instructions use (xmm, ymm, zmm; "" none)
    register: str
    vectorised_loops: int
    #: the IR's most used vector type ("4 x double"; "" none)
    vector_type: str
    allocations: int

    def line(self) -> str:
        """The summary as one line."""
        vector = f", {self.vector_type}" if self.vector_type else ""
        register = f" ({self.register})" if self.register else ""
        return (
            f"{self.instructions:,} instructions, {self.branches:,} branches, "
            f"{self.calls:,} calls, {self.packed:,} packed SIMD{register}, "
            f"{self.vectorised_loops} loops vectorised{vector}, "
            f"{self.allocations} NRT allocations"
        )


def _widest(instructions: list[str]) -> str:
    for register in ("zmm", "ymm", "xmm"):
        if any(f"%{register}" in i for i in instructions):
            return register
    return ""


def summarize(asm: str, ir: str) -> CodeSummary:
    """The summary of one kernel's assembly and IR."""
    lines = kernel_instructions(asm)
    mnemonics = [i.split()[0] for i in lines]
    packed = [i for i, m in zip(lines, mnemonics, strict=True) if _PACKED.match(m)]
    ids = set(_VECTORISED.findall(ir))
    loops = sum(
        1
        for node in re.findall(r"^!\d+ = distinct !\{([^}]*)\}", ir, re.MULTILINE)
        if any(i in re.findall(r"!\d+", node) for i in ids)
    )
    types = Counter(f"{n} x {t}" for n, t in _VECTOR_TYPE.findall(ir))
    return CodeSummary(
        instructions=len(lines),
        branches=sum(m.startswith("j") for m in mnemonics),
        calls=sum(m.startswith("call") for m in mnemonics),
        packed=len(packed),
        register=_widest(packed),
        vectorised_loops=loops,
        vector_type=types.most_common(1)[0][0] if types else "",
        allocations=len(_ALLOCATOR.findall(ir)),
    )


@dataclass(frozen=True)
class CodeChange:
    """One kernel's code on both sides: whether it differs, and each side's summary."""

    kernel: str
    changed: bool
    base: CodeSummary | None
    head: CodeSummary | None

    def line(self) -> str:
        """``motion_kernel``: what changed (or that nothing did)."""
        return f"`{self.kernel}`: {self.what()}"

    def what(self) -> str:
        """What changed in the kernel's code (or that nothing did), without its name."""
        if self.base is None or self.head is None:
            side = "base" if self.base is not None else "head"
            return f"compiled at {side} only"
        if not self.changed:
            return "machine code unchanged"
        return _changes(self.base, self.head)


def _changes(base: CodeSummary, head: CodeSummary) -> str:
    parts = []
    for name in ("instructions", "branches", "calls", "packed", "vectorised_loops", "allocations"):
        b, h = getattr(base, name), getattr(head, name)
        if b != h:
            parts.append(f"{name.replace('_', ' ')} {b:,} -> {h:,}")
    for name in ("register", "vector_type"):
        b, h = getattr(base, name), getattr(head, name)
        if b != h:
            parts.append(f"{name.replace('_', ' ')} {b or 'none'} -> {h or 'none'}")
    return ", ".join(parts) or "same figures, other instructions (see the diff)"


def compare(kernel: str, base: tuple[str, str] | None, head: tuple[str, str] | None) -> CodeChange:
    """One kernel's (asm, IR) on each side (None: not compiled there)."""
    changed = base is None or head is None or normalise(base[0]) != normalise(head[0])
    return CodeChange(
        kernel,
        changed,
        None if base is None else summarize(*base),
        None if head is None else summarize(*head),
    )


def unified(base: str, head: str, name: str) -> str:
    """The unified diff of two normalised texts (empty when equal)."""
    lines = difflib.unified_diff(
        normalise(base).splitlines(keepends=True),
        normalise(head).splitlines(keepends=True),
        f"base/{name}",
        f"head/{name}",
    )
    return "".join(lines)


#: (assembly, LLVM IR) of one kernel
Texts = tuple[str, str]


def compare_all(
    before: Mapping[str, Texts], after: Mapping[str, Texts], names: Iterable[str]
) -> tuple[tuple[CodeChange, ...], tuple[tuple[str, str], ...]]:
    """Each kernel of ``names`` compiled on either side, compared; and (file name, unified
    diff) of the assembly (``.s.diff``) and IR (``.ll.diff``) of each whose code differs."""
    changes, diffs = [], []
    for kernel in sorted(set(names) & (set(before) | set(after))):
        change = compare(kernel, before.get(kernel), after.get(kernel))
        changes.append(change)
        if change.changed and kernel in before and kernel in after:
            stem = keep.case_slug((kernel,))
            for i, suffix in enumerate((".s", ".ll")):
                text = unified(before[kernel][i], after[kernel][i], stem + suffix)
                if text:
                    diffs.append((f"{stem}{suffix}.diff", text))
    return tuple(changes), tuple(diffs)
