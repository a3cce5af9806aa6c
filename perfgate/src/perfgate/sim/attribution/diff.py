"""Base vs head per function: where a case's change went, largest first.

Each function's own (exclusive) cost of one figure is compared; the own costs sum to the
case's total, so the listed changes add up to the case's change (less what moved by no more
than the tolerance). A function is listed when its change exceeds ``tolerance`` of the
base's total (the sim instrument's tolerance: what two counts of the same code may differ
by), so an A/A comparison lists nothing. Each listed function names the caller whose calls
into it moved most in the same direction ("called from"), and the kernels that did not move
are named as unchanged: "+1.23% instructions: +124k in `PyArray_Sum` called from
`array_sum`; `motion_kernel` unchanged".

What a kernel's compiled code calls (libm's `__sin_fma` through `numba_sin`, NRT's
allocator, `memset`) is charged to that kernel: the moved functions are grouped by who is
responsible (`Charge`), so a sine added inside a kernel's loop names the kernel first, with
the sine as its part, and work Python adds around the kernel still names the function.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfgate.sim.attribution.table import FunctionsTable, is_interpreter, metric

#: the default figure and tolerance (the gate's sim tolerance)
FIGURE = "instructions"
TOLERANCE = 0.001


@dataclass(frozen=True)
class Moved:
    """One function whose own cost moved beyond the tolerance."""

    label: str
    base: float
    head: float
    #: True for Numba kernel code (named from the measured process's code ranges)
    kernel: bool
    #: the caller whose calls into this function moved most, the same way (None: none)
    caller: str | None = None
    #: following such callers up: the last function before the Python interpreter, the
    #: operation Python code called (``PyArray_Sum``: ``ndarray.sum``); None where the
    #: chain does not reach the interpreter or is the caller itself
    entry: str | None = None
    #: the kernel responsible for this function's change: its own for kernel code, else the
    #: kernel whose code called it (following the moved callers, before the interpreter)
    charged_to: str | None = None

    @property
    def delta(self) -> float:
        """head - base."""
        return self.head - self.base


@dataclass(frozen=True)
class Charge:
    """The moved functions one party is responsible for: a kernel (its code and what its code
    called) or a single function outside every kernel."""

    label: str
    kernel: bool
    parts: tuple[Moved, ...]

    @property
    def delta(self) -> float:
        """The parts' changes together."""
        return sum(m.delta for m in self.parts)

    def text(self) -> str:
        """ "+2.4M in `k` (Numba kernel: +2.3M in `__sin_fma`, +149k in `k (parfor loop)`)"."""
        if not self.kernel:
            return _where(self.parts[0])
        parts = ", ".join(f"{compact(m.delta)} in `{m.label}`" for m in self.parts)
        return f"{compact(self.delta)} in `{self.label}` (Numba kernel: {parts})"


@dataclass(frozen=True)
class Attribution:
    """Where one case's figure moved between base and head."""

    figure: str
    base_total: float
    head_total: float
    tolerance: float
    #: functions that moved beyond the tolerance, largest change (by size) first
    moved: tuple[Moved, ...]
    #: kernels (on either side) none of whose functions (the kernel, its wrappers, its
    #: parfor loops) moved beyond the tolerance
    unchanged_kernels: tuple[str, ...]

    @property
    def change(self) -> float | None:
        """The case's relative change of the figure (None without a base)."""
        return self.head_total / self.base_total - 1.0 if self.base_total > 0 else None

    @property
    def charges(self) -> tuple[Charge, ...]:
        """The moved functions grouped by who is responsible, largest change first."""
        groups: dict[tuple[bool, str], list[Moved]] = {}
        for m in self.moved:
            key = (True, m.charged_to) if m.charged_to else (False, m.label)
            groups.setdefault(key, []).append(m)
        found = [Charge(label, kernel, tuple(ms)) for (kernel, label), ms in groups.items()]
        return tuple(sorted(found, key=lambda c: (-abs(c.delta), c.label)))

    def sentence(self, limit: int = 3) -> str:
        """One line: the change, the first ``limit`` charges, the kernels unchanged."""
        change = self.change
        head = f"{change * 100:+.2f}% {self.figure}" if change is not None else self.figure
        if not self.moved:
            return f"{head}: no function moved beyond {self.tolerance:.2%} of the total"
        charges = self.charges
        parts = [c.text() for c in charges[:limit]]
        if len(charges) > limit:
            parts.append(f"{len(charges) - limit} more")
        text = f"{head}: {', '.join(parts)}"
        if self.unchanged_kernels:
            names = ", ".join(f"`{k}`" for k in self.unchanged_kernels)
            text += f"; {names} unchanged"
        return text


def compact(value: float) -> str:
    """A signed count in few characters: +124k, -1.5M, +950."""
    size = abs(value)
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if size >= scale:
            digits = 0 if size >= 100 * scale else 1
            return f"{value / scale:+.{digits}f}{suffix}"
    return f"{value:+.0f}"


def _where(moved: Moved) -> str:
    text = f"{compact(moved.delta)} in `{moved.label}`"
    if moved.caller:
        text += f" called from `{moved.caller}`"
    if moved.entry:
        text += f" (from Python via `{moved.entry}`)"
    return text


def _callers_up(
    base: FunctionsTable, head: FunctionsTable, label: str, figure: str, sign: float
) -> tuple[list[str], bool]:
    """``label``, then the caller whose calls into it moved most in direction ``sign``, then
    that one's, and so on: up to the first function of the interpreter (True) or until there
    is no such caller or the chain loops (False). `Moved`'s caller, entry and charged kernel
    are all read from this one walk."""
    objects = {**base.objects, **head.objects}
    path = [label]
    while True:
        above = _caller(base, head, path[-1], figure, sign)
        if above is None or above in path:
            return path, False
        path.append(above)
        if is_interpreter(objects.get(above, "")):
            return path, True


def _entry(path: list[str], reached: bool) -> str | None:
    """The last function before the interpreter on ``path`` (`_callers_up`), where that is
    neither the function itself nor its caller; see `Moved.entry`."""
    if not reached or len(path) < 3:
        return None
    entry = path[-2]
    return entry if entry not in path[:2] else None


def _caller(
    base: FunctionsTable, head: FunctionsTable, label: str, figure: str, sign: float
) -> str | None:
    """The caller of ``label`` whose calls into it moved most in direction ``sign``."""
    best, best_delta = None, 0.0
    callers = {a for a, b in (*base.calls, *head.calls) if b == label}
    for caller in sorted(callers):
        before = base.calls.get((caller, label))
        after = head.calls.get((caller, label))
        b = metric(before[1], base.events, figure) if before else 0.0
        h = metric(after[1], head.events, figure) if after else 0.0
        if (h - b) * sign > best_delta:
            best, best_delta = caller, (h - b) * sign
    return best


def attribute(
    base: FunctionsTable,
    head: FunctionsTable,
    figure: str = FIGURE,
    tolerance: float = TOLERANCE,
) -> Attribution:
    """Where ``figure`` moved from ``base`` to ``head`` (see the module)."""
    if base.events != head.events:
        raise ValueError(f"base and head count different events: {base.events} vs {head.events}")
    zero = tuple(0.0 for _ in base.events)
    base_total = metric(base.total(), base.events, figure)
    head_total = metric(head.total(), head.events, figure)
    limit = tolerance * base_total
    kernels = base.kernels | head.kernels
    moved, unchanged = [], []
    for label in sorted(set(base.own) | set(head.own)):
        b = metric(base.own.get(label, zero), base.events, figure)
        h = metric(head.own.get(label, zero), head.events, figure)
        if abs(h - b) > limit:
            sign = 1.0 if h > b else -1.0
            path, reached = _callers_up(base, head, label, figure, sign)
            caller = path[1] if len(path) > 1 else None
            charged = _charged(path, kernels, {**base.objects, **head.objects})
            moved.append(
                Moved(label, b, h, label in kernels, caller, _entry(path, reached), charged)
            )
        elif _is_kernel_code(label, kernels) and (b > 0 or h > 0):
            unchanged.append(kernel_of(label))
    moved.sort(key=lambda m: (-abs(m.delta), m.label))
    still = sorted(set(unchanged) - {m.charged_to for m in moved if m.charged_to})
    return Attribution(figure, base_total, head_total, tolerance, tuple(moved), tuple(still))


_RUNTIME = "(Numba runtime)"


def _is_kernel_code(label: str, kernels: frozenset[str]) -> bool:
    """A kernel's own function (its body, wrappers, parfor loops), not Numba's runtime."""
    return label in kernels and not label.endswith(_RUNTIME)


def _charged(path: list[str], kernels: frozenset[str], objects: dict[str, str]) -> str | None:
    """The kernel responsible for the change of ``path[0]`` (`_callers_up`): the first
    kernel's code on the way up, before the interpreter (see `Moved.charged_to`)."""
    for label in path:
        if _is_kernel_code(label, kernels):
            return kernel_of(label)
        if is_interpreter(objects.get(label, "")):
            return None
    return None


def kernel_of(label: str) -> str:
    """The kernel a kernel function's label belongs to: ``motion_kernel (parfor loop)`` ->
    ``motion_kernel``."""
    return label.split(" (", 1)[0]
