"""perfgate.sim.attribution.code: a kernel's compiled code summarised and compared."""

from __future__ import annotations

import textwrap

from perfgate.sim.attribution.code import compare, normalise, summarize, unified

KERNEL = "_ZN1k13motion_kernelB2v7B38c8tJTIeFIjxE5ArrayIdLi1E1C7mutable7alignedE"


def _asm(body: str, linkage: str = ".globl", counter: str = "B2v7") -> str:
    name = KERNEL.replace("B2v7", counter)
    wrapper = "_ZN7cpython" + name[3:]
    return (
        textwrap.dedent(
            f"""\
        \t.text
        \t{linkage}\t{name}
        \t.type\t{name},@function
        {name}:
        """
        )
        + textwrap.dedent(body)
        + textwrap.dedent(
            f"""\
        \t.type\t{wrapper},@function
        {wrapper}:
        \tpushq\t%rbp
        \tcallq\t*%rax
        \tretq
        """
        )
    )


VECTOR = """\
\txorl\t%eax, %eax
.LBB0_1:
\tvmovupd\t(%rdi,%rax,8), %ymm0
\tvaddpd\t%ymm0, %ymm1, %ymm1
\taddq\t$4, %rax
\tcmpq\t%rsi, %rax
\tjne\t.LBB0_1
\tretq
"""
SCALAR = """\
\txorl\t%eax, %eax
\tmovabsq\t$NRT_MemInfo_alloc_aligned, %rcx
\tcallq\t*%rcx
.LBB0_1:
\tvaddsd\t(%rdi,%rax,8), %xmm0, %xmm0
\tincq\t%rax
\tcmpq\t%rsi, %rax
\tjne\t.LBB0_1
\tretq
"""
IR_VECTOR = """\
  %wide.load = load <4 x double>, ptr %p, align 8
  %sum = fadd <4 x double> %wide.load, %acc
  br i1 %done, label %exit, label %loop, !llvm.loop !2
!2 = distinct !{!2, !3, !4}
!3 = !{!"llvm.loop.isvectorized", i32 1}
!4 = !{!"llvm.loop.unroll.runtime.disable"}
"""
IR_SCALAR = """\
  %m = call ptr @NRT_MemInfo_alloc_aligned(i64 %n, i32 32)
  %x = load double, ptr %p, align 8
  %sum = fadd double %x, %acc
"""


def test_a_vectorised_loop_and_a_scalar_one_that_allocates() -> None:
    """Only the kernel's own instructions count (not its Python wrapper's); the packed
    instructions' widest register, the vectorised loop and its type, the allocation."""
    vector = summarize(_asm(VECTOR), IR_VECTOR)
    assert (vector.instructions, vector.branches, vector.calls) == (7, 1, 0)
    assert (vector.packed, vector.register) == (2, "ymm")
    assert (vector.vectorised_loops, vector.vector_type, vector.allocations) == (
        1,
        "4 x double",
        0,
    )
    scalar = summarize(_asm(SCALAR), IR_SCALAR)
    assert (scalar.packed, scalar.register, scalar.vectorised_loops) == (0, "", 0)
    assert (scalar.calls, scalar.allocations) == (1, 1)


def test_the_change_names_what_moved_and_the_same_code_is_unchanged() -> None:
    """A kernel no longer vectorised that now allocates says so; the same code compiled in
    another process (another compile counter, a cached module's weak linkage) is the same."""
    change = compare("motion_kernel", (_asm(VECTOR), IR_VECTOR), (_asm(SCALAR), IR_SCALAR))
    assert change.changed
    assert change.line() == (
        "`motion_kernel`: instructions 7 -> 8, calls 0 -> 1, packed 2 -> 0, vectorised loops "
        "1 -> 0, allocations 0 -> 1, register ymm -> none, vector type 4 x double -> none"
    )
    same = compare(
        "motion_kernel",
        (_asm(VECTOR), IR_VECTOR),
        (_asm(VECTOR, linkage=".weak", counter="B3v35"), IR_VECTOR),
    )
    assert not same.changed and same.line() == "`motion_kernel`: machine code unchanged"
    assert unified(_asm(VECTOR), _asm(VECTOR, ".weak", "B3v35"), "k.s") == ""
    assert "+\tvaddsd" in unified(_asm(VECTOR), _asm(SCALAR), "k.s")
    assert normalise("__numba_parfor_gufunc_0x7f72bc7efa10") == "__numba_parfor_gufunc"
    assert compare("k", None, (_asm(VECTOR), IR_VECTOR)).line() == "`k`: compiled at head only"


def test_a_parfor_gufunc_wrapper_named_by_its_address_is_the_same_code() -> None:
    """A ``prange`` kernel's gufunc wrapper is named ``.kernel.<address>___gufunc__...``;
    the address is the process's: the g1_walk kernel, unchanged by a head that changed only
    Python code, read as changed (gate trial of issue 39) until the address was dropped."""
    name = "._ZN13_3cdynamic_3e__numba_parfor_gufuncB2v1E5ArrayIdE"
    body = "\tvaddpd\t%ymm0, %ymm1, %ymm1\n\tretq\n"

    def wrapped(address: int) -> str:
        symbol = f".kernel.{address}___gufunc__{name}"
        return f"\t.globl\t{symbol}\n\t.type\t{symbol},@function\n{symbol}:\n{body}"

    assert not compare("k", (wrapped(94362605828768), ""), (wrapped(93964486487104), "")).changed
    assert normalise(".kernel.94362605828768___gufunc__.x") == ".kernel.___gufunc__.x"
