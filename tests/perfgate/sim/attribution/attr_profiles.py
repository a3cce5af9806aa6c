"""Small callgrind dumps of a hot slice: Python calls a Numba kernel (JIT code at
0x16c44000) and, in the head, also NumPy's ``add.reduce`` on some of its output."""

from __future__ import annotations

from perfgate.sim.attribution.kernels import KernelMap, ranges_of
from perfgate.sim.attribution.profile import Profile, parse

PY = "/usr/lib/libpython3.11.so.1.0"
NP = "/venv/numpy/_core/_multiarray_umath.so"
MAIN = "_ZN1k13motion_kernelB2v1E5ArrayIdLi1E1C7mutable7alignedE"
KERNELS = KernelMap(ranges_of([(MAIN, 0x16C44000, 4096)], MAIN, "motion_kernel", "(float64[:],)"))


def dump(kernel_ir: int, reduce_ir: int = 0, python_ir: int = 5000, sin_ir: int = 0) -> Profile:
    """One measured call: the interpreter, the kernel (two entry blocks) and maybe the
    reduction (``ufunc_reduce`` -> ``reduce_loop`` -> ``FLOAT_pairwise_sum``); ``sin_ir``:
    the kernel's second block calls libm's sine through Numba's helper (``numba_sin`` ->
    ``__sin_fma``), as ``math.sin`` in a kernel does."""
    first, second = kernel_ir // 4, kernel_ir - kernel_ir // 4
    extra = sin_ir + 50 if sin_ir else 0
    text = f"""\
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
positions: line
ob={PY}
fn=_PyEval_EvalFrameDefault
0 {python_ir} 100
cob=/venv/numba/_dispatcher.so
cfn=Dispatcher_call
calls=1 0
0 {kernel_ir + extra + 300} 10
"""
    if reduce_ir:
        text += f"""cob={NP}
cfn=ufunc_reduce
calls=1 0
0 {reduce_ir + 200} 20
ob={NP}
fn=ufunc_reduce
0 120 4
cfn=reduce_loop
calls=1 0
0 {reduce_ir + 80} 16
fn=reduce_loop
0 80 6
cfn=FLOAT_pairwise_sum
calls=3 0
0 {reduce_ir} 10
fn=FLOAT_pairwise_sum
0 {reduce_ir} 10 0 0 40
"""
    text += f"""ob=/venv/numba/_dispatcher.so
fn=Dispatcher_call
0 300 10
cob=???
cfn=0x0000000016c44000
calls=1 0
0 {first + second + extra} 0
ob=???
fn=0x0000000016c44000
0 {first}
cfn=0x0000000016c44800
calls=1 0
0 {second + extra}
fn=0x0000000016c44800
0 {second}
"""
    if sin_ir:
        text += f"""cob=/venv/numba/_helperlib.so
cfn=numba_sin
calls=12 0
0 {extra}
ob=/venv/numba/_helperlib.so
fn=numba_sin
0 50
cob=/lib/x86_64-linux-gnu/libm.so.6
cfn=__sin_fma
calls=12 0
0 {sin_ir}
ob=/lib/x86_64-linux-gnu/libm.so.6
fn=__sin_fma
0 {sin_ir}
"""
    return parse(text)
