"""One case's functions table: where its measured calls' costs went, per function.

From the callgrind dumps of a case's measured calls (`perfgate.sim.attribution.profile`)
and the measured process's kernel map: each function's own (exclusive) and inclusive cost
of every event, as the weighted mean per call (the weights of the case's figures,
`perfgate.sim.cost.per_call`), and the calls between functions (caller, callee, their
inclusive cost). A function is labelled by its name (callgrind's recursion levels ``f'2``
merged into ``f``); code without a symbol by the kernel whose range holds it
(`KernelMap.name_of`), else by its object and address. Functions that get one label
(several entry blocks of one kernel, one function's copies) are merged, and calls between
them dropped.

Inclusive cost is the function's own cost plus that of its calls to other functions, as
``callgrind_annotate --inclusive=yes`` counts it: a function that recurses through others
(CPython's evaluation loop) counts the inner calls again, so inclusive costs of such
functions can exceed the total. The own costs always sum to the total.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from perfgate.sim.attribution.kernels import KernelMap
from perfgate.sim.attribution.profile import FunctionId, Profile
from perfgate.sim.cost import EVENT_NAMES, L1_WEIGHT, LL_WEIGHT

Costs = tuple[float, ...]
_INTERPRETER = re.compile(r"^(libpython[\d.]*\.so[\d.]*|python[\d.]*)$")
#: the figures `metric` computes besides callgrind's own events
FIGURES = ("instructions", "cycles", "l1_misses", "ll_misses")
#: callgrind's suffix of a function's recursion levels (``f'2``): one function, one label
_RECURSION = re.compile(r"'\d+$")


def is_interpreter(obj: str) -> bool:
    """True for the Python interpreter's code (libpython, or a python executable)."""
    return _INTERPRETER.match(os.path.basename(obj)) is not None


def label_of(fn: FunctionId, kernels: KernelMap) -> str:
    """What a table calls callgrind's function ``fn`` (see the module)."""
    obj, name = fn
    kernel = kernels.name_of(obj, name)
    if kernel is not None:
        return kernel
    if name.startswith("0x"):
        return f"{os.path.basename(obj) or '???'}:{name}"
    return _RECURSION.sub("", name)


def metric(costs: Costs, events: Sequence[str], name: str) -> float:
    """One figure of ``costs``: a figure of the sim suites (``instructions``, ``cycles``
    by the cost model of `perfgate.sim.cost`, ``l1_misses``, ``ll_misses``) or an event by
    callgrind's name."""
    value = dict(zip(events, costs, strict=True))
    l1 = sum(value.get(e, 0.0) for e in ("I1mr", "D1mr", "D1mw"))
    ll = sum(value.get(e, 0.0) for e in ("ILmr", "DLmr", "DLmw"))
    figures = {
        "instructions": value.get("Ir", 0.0),
        "cycles": value.get("Ir", 0.0) + L1_WEIGHT * l1 + LL_WEIGHT * ll,
        "l1_misses": l1,
        "ll_misses": ll,
    }
    if name in figures:
        return figures[name]
    if name not in value:
        raise ValueError(f"unknown figure {name!r}: expected one of {[*FIGURES, *events]}")
    return value[name]


@dataclass
class FunctionsTable:
    """Per function label its own and inclusive costs per call; per (caller, callee) the
    calls per call of the case and their inclusive cost."""

    events: tuple[str, ...] = EVENT_NAMES
    own: dict[str, Costs] = field(default_factory=dict)
    inclusive: dict[str, Costs] = field(default_factory=dict)
    calls: dict[tuple[str, str], tuple[float, Costs]] = field(default_factory=dict)
    #: labels that name Numba kernel code
    kernels: frozenset[str] = frozenset()
    #: per label the object (shared library, executable) its code is in, "???" for JIT code
    objects: dict[str, str] = field(default_factory=dict)

    def total(self) -> Costs:
        """The case's cost per call: the sum of every function's own cost."""
        return tuple(sum(c[i] for c in self.own.values()) for i in range(len(self.events)))

    def to_json(self) -> dict[str, Any]:
        """Plain data (`from_json` reads it back)."""
        return {
            "events": list(self.events),
            "functions": {
                k: {"own": list(self.own[k]), "inclusive": list(self.inclusive[k])}
                for k in sorted(self.own)
            },
            "calls": [[a, b, n, list(c)] for (a, b), (n, c) in sorted(self.calls.items())],
            "kernels": sorted(self.kernels),
            "objects": dict(sorted(self.objects.items())),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FunctionsTable:
        """From `to_json`'s data; a ValueError names what is malformed."""
        try:
            events = tuple(data["events"])
            own = {k: tuple(map(float, v["own"])) for k, v in data["functions"].items()}
            inc = {k: tuple(map(float, v["inclusive"])) for k, v in data["functions"].items()}
            calls = {(a, b): (float(n), tuple(map(float, c))) for a, b, n, c in data["calls"]}
            kernels = frozenset(data.get("kernels", ()))
            objects = {str(k): str(v) for k, v in data.get("objects", {}).items()}
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"functions table: malformed ({exc!r})") from None
        return cls(events, own, inc, calls, kernels, objects)


def _scaled(into: dict[Any, list[float]], key: Any, cost: Sequence[int], w: float) -> None:
    row = into.setdefault(key, [0.0] * len(cost))
    for i, value in enumerate(cost):
        row[i] += w * value


def build(
    profiles: Sequence[Profile], weights: Sequence[float], kernels: KernelMap
) -> FunctionsTable:
    """The table of a case from its measured calls' dumps (one each, in call order) and
    their weights; a ValueError when they do not pair up or their events differ."""
    if not profiles or len(profiles) != len(weights) or sum(weights) <= 0:
        raise ValueError(
            f"expected one positive weight per dump: {len(profiles)} dumps, {weights}"
        )
    events = profiles[0].events
    if any(p.events != events for p in profiles):
        raise ValueError("the dumps of one case count different events")
    total = float(sum(weights))
    own: dict[str, list[float]] = {}
    calls: dict[tuple[str, str], list[float]] = {}
    named: set[str] = set()
    objects: dict[str, str] = {}
    for prof, weight in zip(profiles, weights, strict=True):
        w = weight / total
        labels = {fn: label_of(fn, kernels) for fn in prof.own}
        for a, b in prof.calls:
            labels.setdefault(a, label_of(a, kernels))
            labels.setdefault(b, label_of(b, kernels))
        named |= {labels[fn] for fn in labels if kernels.name_of(*fn) is not None}
        for fn, label in labels.items():
            objects.setdefault(label, fn[0])
        for fn, cost in prof.own.items():
            _scaled(own, labels[fn], cost, w)
        for (a, b), call in prof.calls.items():
            if labels[a] != labels[b]:
                _scaled(calls, (labels[a], labels[b]), [call.count, *call.cost], w)
    return _finish(events, own, calls, frozenset(named), objects)


def _finish(
    events: tuple[str, ...],
    own: dict[str, list[float]],
    calls: dict[tuple[str, str], list[float]],
    kernels: frozenset[str],
    objects: dict[str, str],
) -> FunctionsTable:
    for a, b in calls:
        own.setdefault(a, [0.0] * len(events))
        own.setdefault(b, [0.0] * len(events))
    inclusive = {k: list(v) for k, v in own.items()}
    for (a, _), row in calls.items():
        for i, value in enumerate(row[1:]):
            inclusive[a][i] += value
    return FunctionsTable(
        events,
        {k: tuple(v) for k, v in own.items()},
        {k: tuple(v) for k, v in inclusive.items()},
        {k: (v[0], tuple(v[1:])) for k, v in calls.items()},
        kernels,
        objects,
    )
