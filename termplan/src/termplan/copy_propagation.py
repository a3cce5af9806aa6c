"""Numba's copy propagation of parallel kernels, without its deep copies: the same result in
less than half the compile time of the hand-written G1 kernel.

Why: the parfor pass of every ``parallel=True`` kernel runs Numba's
``ir_utils.copy_propagate``, a fixed-point data-flow pass over the function's blocks. Numba
0.68 snapshots its state for the end-of-pass comparison with ``copy.deepcopy`` of a dict
that holds, per block, a set of ``(name, name)`` string pairs: every pass walks every pair
of every block in Python. The hand-written G1 kernel (one ``prange`` body with every helper
inlined) compiled in 83 s on an Intel Xeon VM, about two thirds of it in those deep copies
(profiled: 171 of 262 s under cProfile), and a gate compiles it for parity and again for the
simulator's target.

What: :func:`copy_propagate` computes the same two dicts (the copies live into and out of
each block) by the same equations, ``in(B) = the intersection of out(P) over B's
predecessors P`` and ``out(B) = gen(B) | (in(B) - kill(B))``, using Numba's own helpers for
the control-flow graph and the initial sets, and ends when a pass changes no ``out`` set,
which is when Numba's snapshot comparison ends it. The pairs are immutable strings, so no
copy of them is needed; the code Numba generates is unchanged (tested against Numba's own
function on real kernels' IR: the same sets, and the same results of a kernel).

How it is hooked in: :func:`install` replaces the function in the two modules that call
it (``numba.core.ir_utils`` and ``numba.parfors.parfor``, which imports it by name), and
only when Numba's function is the one this was checked against (:data:`CHECKED_SOURCE`,
the SHA-256 of its source): another Numba keeps its own function (a slower compile, the same
code). :mod:`termplan.kernel_options`, which every kernel module imports before it
defines a kernel, calls it.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from numba.core import ir_utils
from numba.core.analysis import compute_cfg_from_blocks

#: Copies as Numba keeps them: per block label, a set of ``(lhs, rhs)`` variable names.
Copies = dict[int, set[tuple[str, str]]]

#: SHA-256 of the source of Numba's ``ir_utils.copy_propagate`` that this replaces (as in
#: Numba 0.68.1). A Numba whose function differs keeps its own.
CHECKED_SOURCE = "b607f90ff29db1cef4a6ca4f00481dd308f300e829154053daea3d3066305b62"
#: Numba's own function, as found at import (the tests compare against it).
NUMBA_OWN: Callable[..., Any] = ir_utils.copy_propagate

#: The modules that call the function by a name of their own, and that name.
_CALLERS = ("numba.core.ir_utils", "numba.parfors.parfor")
_NAME = "copy_propagate"


def copy_propagate(blocks: Mapping[int, Any], typemap: Mapping[str, Any]) -> tuple[Copies, Copies]:
    """The copies live into and out of each block of ``blocks``: Numba's result, computed
    without copying its sets at each pass (see the module docstring)."""
    cfg = compute_cfg_from_blocks(blocks)
    entry = cfg.entry_point()
    gen, _all, kill, live_in, live_out = ir_utils.init_copy_propagate_data(blocks, entry, typemap)
    predecessors = {
        label: [p for p, _data in cfg.predecessors(label)] for label in blocks if label != entry
    }
    changed = True
    while changed:
        changed = False
        for label, preds in predecessors.items():
            incoming = live_out[preds[0]].intersection(*(live_out[p] for p in preds[1:]))
            live_in[label] = incoming
            outgoing = gen[label] | (incoming - kill[label])
            changed = changed or outgoing != live_out[label]
            live_out[label] = outgoing
    return live_in, live_out


def source_digest(function: Callable[..., Any]) -> str:
    """SHA-256 of a function's source text."""
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()


def install() -> bool:
    """Put :func:`copy_propagate` in place of Numba's (once); False when Numba's function is
    not the one it was checked against (then Numba's stays)."""
    modules = [importlib.import_module(name) for name in _CALLERS]
    current = [getattr(module, _NAME) for module in modules]
    if all(function is copy_propagate for function in current):
        return True
    try:
        checked = source_digest(NUMBA_OWN) == CHECKED_SOURCE
    except (OSError, TypeError):  # no source to read (a Numba installed without it)
        checked = False
    if not checked:
        return False
    if any(function is not NUMBA_OWN for function in current):
        return False  # another replacement is in place in one of them: leave it alone
    for module in modules:
        setattr(module, _NAME, copy_propagate)
    return True
