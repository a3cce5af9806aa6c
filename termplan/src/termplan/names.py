"""Names the generated kernels bind themselves, which plan code must not assign.

A fragment's name is its variable in the generated kernel, and its lines may assign more
variables; they all share one scope with the kernel's own loop variables, arguments and
imports (:mod:`termplan.codegen`). A fragment that assigned one of those overwrote it
without any error: ``count`` shortened every lane loop, ``lo`` shifted the row index,
``tid`` picked another thread's scratch. :func:`check_fragment` refuses such plans when
they are resolved; ``tests/termplan/test_tp_names.py`` checks, on generated sources, that
every name the kernels bind is listed here.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable

from termplan.errors import TermPlanError

#: Locals of the kernel templates (``_kernel``, ``_tiled_kernel``, ``_first_touch``,
#: ``_reward_lines``) and their fixed arguments.
KERNEL_LOCALS = frozenset(
    {"n", "i", "t", "tid", "lo", "count", "lane", "cells", "rew", "k", "scales", "scratch"}
)
#: The :mod:`termplan.intrinsics` helpers a generated module imports when its text calls them.
INLINE_HELPERS: tuple[str, ...] = ("fast_exp", "lane_exp", "lane_index", "weigh")
#: Module-level names of a generated module: imports and the inline helpers.
MODULE_NAMES = frozenset({"math", "np", "get_thread_id", "njit", "prange", *INLINE_HELPERS})
#: Prefixes of generated names: inputs/outputs and their flat views, log accumulators. (The
#: ``r_<term>``/``d_<term>`` values of rewards and terminations are passed per plan.)
RESERVED_PREFIXES = ("in_", "out_", "f_", "o_", "log_")
#: Observation group names that would repeat a fixed output argument (``out_reward``...).
RESERVED_GROUPS = frozenset({"reward", "terminated", "logs"})

_TARGETS = re.compile(
    r"^\s*(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*"
    r"(?:\+|-|\*\*|\*|//|/|%|&|\||\^|<<|>>|@)?=(?!=)"
)
_FOR = re.compile(r"^\s*for\s+(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+in\b")


def assigned_names(line: str) -> tuple[str, ...]:
    """Variables a line of plan code binds (``x = ...``, ``a, b = ...``, ``x += ...``,
    ``for j in ...:``)."""
    match = _TARGETS.match(line) or _FOR.match(line)
    if match is None:
        return ()
    return tuple(name.strip() for name in match["names"].split(","))


def why_reserved(name: str, axis_vars: Iterable[str] = ()) -> str | None:
    """Why ``name`` cannot be bound by plan code, or None when it can."""
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return "a Python keyword"
    if name in KERNEL_LOCALS or name in set(axis_vars):
        return "a variable of the kernel's own loops"
    if name in MODULE_NAMES:
        return "an import of the generated module"
    if name.startswith(RESERVED_PREFIXES):
        return f"a generated name (prefixes {', '.join(RESERVED_PREFIXES)})"
    if hasattr(builtins, name):
        return "a Python builtin the kernels call"
    return None


def check_fragment(
    name: str,
    lines: Iterable[str],
    axis_vars: Iterable[str] = (),
    taken: Iterable[str] = (),
) -> None:
    """Refuse a fragment whose name, or any variable its lines bind, is reserved, or is one
    of ``taken`` (the plan's constants and its ``r_``/``d_`` term values)."""
    axes, fixed = tuple(axis_vars), set(taken)
    for target in (name, *(n for line in lines for n in assigned_names(line))):
        why = "a name of the plan's own" if target in fixed else why_reserved(target, axes)
        if why is not None:
            raise TermPlanError(f"fragment {name!r}: binds {target!r}, which is {why}; rename it")


def check_group(name: str) -> str:
    """``name`` if it can name an observation group, else a TermPlanError."""
    if name in RESERVED_GROUPS:
        raise TermPlanError(
            f"group {name!r}: the kernels already have an output named out_{name}; rename it"
        )
    return name
