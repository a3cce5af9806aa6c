"""Plan resolution (configs -> :class:`ResolvedPlan`) and the NumPy runtime of a plan.

Resolution is the cold path that makes the hot path simple: it validates every config,
drops zero-scale terms from the active set, assigns observation offsets per group, and
collects exactly the fragments and inputs the active terms reach (dead terms cost nothing,
not even an input read). :class:`PlanNumpyRuntime` runs the same plan with the terms' NumPy
implementations: the fallback path when Numba is unwanted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from termplan.arrays import check_array, check_contiguous, check_count, is_real
from termplan.errors import TermPlanError
from termplan.names import check_fragment, check_group
from termplan.registry import TermRegistry
from termplan.spec import (
    Axis,
    Fragment,
    InputSpec,
    NumpyContext,
    TermCode,
    TermConfig,
    TermDefinition,
    TermKind,
    VectorSource,
    check_identifier,
)


@dataclass(frozen=True)
class ResolvedTerm:
    """A validated plan entry with its literal layout (``offset``/``width`` for observations)."""

    name: str
    key: str
    kind: TermKind
    scale: float
    params: tuple[tuple[str, Any], ...]
    group: str | None
    offset: int
    width: int
    definition: TermDefinition = field(compare=False, repr=False)

    @property
    def active(self) -> bool:
        """Whether the term is computed at all (scale != 0)."""
        return self.scale != 0.0

    @property
    def param_map(self) -> dict[str, Any]:
        """Parameters as a dict."""
        return dict(self.params)

    def code(self) -> TermCode:
        """The term's emitted code (reward/termination); observations have none."""
        if self.definition.emit is None:
            return TermCode()
        return self.definition.emit(self.param_map)


@dataclass(frozen=True)
class ResolvedPlan:
    """An immutable, validated plan: everything the generator and runtimes need."""

    task: str
    terms: tuple[ResolvedTerm, ...]
    groups: tuple[tuple[str, int], ...]
    axes: tuple[Axis, ...]
    reward_multiplier: float
    fragments: tuple[Fragment, ...]
    sources: tuple[tuple[str, tuple[VectorSource, ...]], ...]
    inputs: tuple[InputSpec, ...]

    def active(self, kind: TermKind | None = None) -> tuple[ResolvedTerm, ...]:
        """Active terms (optionally of one kind), in config order."""
        return tuple(t for t in self.terms if t.active and (kind is None or t.kind is kind))

    def group_width(self, group: str) -> int:
        """Width of observation group ``group``."""
        return dict(self.groups)[group]

    def term(self, name: str) -> ResolvedTerm:
        """The term called ``name``."""
        for t in self.terms:
            if t.name == name:
                return t
        raise TermPlanError(f"term {name!r}: not in plan {self.task}")

    def term_sources(self, name: str) -> tuple[VectorSource, ...]:
        """Vector sources of observation term ``name``."""
        return dict(self.sources)[name]


def resolve_plan(
    registry: TermRegistry,
    configs: Sequence[TermConfig],
    groups: Sequence[str] = (),
    reward_multiplier: float = 1.0,
) -> ResolvedPlan:
    """Validate ``configs`` against ``registry`` and lay them out.

    ``groups`` fixes the order of observation groups (an empty group is allowed);
    ``reward_multiplier`` (ctrl_dt) is folded into each reward's literal weight.

    Raises
    ------
    TermPlanError
        Unknown key, duplicate name, non-finite scale, termination scale not 0/1, bad
        parameter, conflicting input specs, or a needed fragment nobody provides.
    """
    if not math.isfinite(reward_multiplier):
        raise TermPlanError(f"reward_multiplier: must be finite, got {reward_multiplier}")
    widths = {check_group(check_identifier("group", g)): 0 for g in groups}
    terms = []
    seen: dict[str, str] = {}  # generated variable stem (``.`` spelled ``__``) -> term name
    for config in configs:
        term = _resolve_term(registry, config, widths, reward_multiplier)
        stem = variable_stem(term.name)
        if stem in seen:
            other = seen[stem]
            why = "duplicate name" if other == term.name else f"same generated name as {other!r}"
            raise TermPlanError(f"term {term.name!r}: {why} in plan")
        seen[stem] = term.name
        terms.append(term)
    _merge_inputs(t.definition for t in terms)
    sources = tuple(
        (t.name, tuple(registry.source(s) for s in t.definition.sources))
        for t in terms
        if t.active and t.kind is TermKind.OBSERVATION
    )
    fragments = _collect_fragments(registry, terms, sources)
    _check_fragment_names(fragments, registry.axes, terms)
    inputs = _collect_inputs(registry, terms, sources, fragments)
    return ResolvedPlan(
        registry.name,
        tuple(terms),
        tuple(widths.items()),
        registry.axes,
        float(reward_multiplier),
        fragments,
        sources,
        inputs,
    )


def _check_fragment_names(
    fragments: Sequence[Fragment], axes: Sequence[Axis], terms: Sequence[ResolvedTerm]
) -> None:
    """No fragment may bind a name the generated kernels use themselves (:mod:`names`):
    their loop variables and imports, the plan's constants, its reward and termination
    values (``r_<term>``, ``d_<term>``, as :func:`termplan.codegen.local_name` spells them)."""
    prefix = {TermKind.REWARD: "r_", TermKind.TERMINATION: "d_"}
    taken = {c.name for f in fragments for c in f.constants}
    taken |= {prefix[t.kind] + variable_stem(t.name) for t in terms if t.kind in prefix}
    axis_vars = tuple(a.var for a in axes)
    for frag in fragments:
        lines = [line for _, stage_lines in frag.lines for line in stage_lines]
        check_fragment(frag.name, lines, axis_vars, taken)


def variable_stem(name: str) -> str:
    """A term name as the generated code spells it in variable names (``.`` as ``__``)."""
    return name.replace(".", "__")


def _resolve_term(
    registry: TermRegistry, config: TermConfig, widths: dict[str, int], multiplier: float
) -> ResolvedTerm:
    check_identifier("term name", config.name.replace(".", "_"))
    definition = registry.resolve(config.key)
    scale = _check_scale(config, definition.kind, multiplier)
    params = _resolve_params(config, definition)
    group, offset, width = None, 0, 1
    if definition.kind is TermKind.OBSERVATION:
        if config.group is None or config.group not in widths:
            raise TermPlanError(
                f"term {config.name!r}: observation group {config.group!r} not in {list(widths)}"
            )
        group = config.group
        width = sum(registry.source(s).width for s in definition.sources)
        if scale != 0.0:
            offset = widths[group]
            widths[group] += width
    return ResolvedTerm(
        config.name, config.key, definition.kind, scale, params, group, offset, width, definition
    )


def _check_scale(config: TermConfig, kind: TermKind, multiplier: float) -> float:
    """A number, finite, whose reward weight is 0 only for 0 (:func:`check_weight`); 0 or 1
    for the other kinds."""
    weighs = kind is TermKind.REWARD  # only rewards are multiplied (by ctrl_dt)
    scale = check_weight(config.name, config.scale, multiplier if weighs else 1.0)
    if not weighs and scale not in (0.0, 1.0):
        raise TermPlanError(
            f"term {config.name!r}: {kind.value} scale must be 0 or 1, got {config.scale}"
        )
    return scale


def _resolve_params(config: TermConfig, definition: TermDefinition) -> tuple[tuple[str, Any], ...]:
    specs = {p.name: p for p in definition.parameters}
    unknown = sorted(set(config.parameters) - set(specs))
    if unknown:
        raise TermPlanError(
            f"term {config.name!r}: unknown parameters {unknown}; {definition.key} takes "
            f"{sorted(specs)}"
        )
    resolved = []
    for name, spec in specs.items():
        value = config.parameters.get(name, spec.default)
        if value is None:
            raise TermPlanError(f"term {config.name!r}: parameter {name!r} is required")
        resolved.append((name, spec.coerce(config.name, value)))
    return tuple(resolved)


def _merge_inputs(definitions: Iterable[TermDefinition]) -> dict[str, InputSpec]:
    merged: dict[str, InputSpec] = {}
    for definition in definitions:
        for spec in definition.inputs:
            known = merged.setdefault(spec.name, spec)
            if known != spec:
                raise TermPlanError(
                    f"input {spec.name!r}: conflicting specs {known} and {spec} "
                    f"(term key {definition.key})"
                )
    return merged


def _available_fragments(registry: TermRegistry, terms: list[ResolvedTerm]) -> dict[str, Fragment]:
    available = dict(registry.fragments)
    for term in terms:
        if not term.active:
            continue
        provided: tuple[Fragment, ...] = ()
        if term.kind is TermKind.PREAMBLE:
            provided = term.definition.fragments
        elif term.kind in (TermKind.REWARD, TermKind.TERMINATION):
            provided = term.code().fragments
        for frag in provided:
            if available.setdefault(frag.name, frag) != frag:
                raise TermPlanError(
                    f"fragment {frag.name!r}: provided twice with different code (term "
                    f"{term.name!r}); terms sharing it must use equal parameters"
                )
    return available


def _collect_fragments(
    registry: TermRegistry,
    terms: list[ResolvedTerm],
    sources: tuple[tuple[str, tuple[VectorSource, ...]], ...],
) -> tuple[Fragment, ...]:
    """Fragments reachable from active terms, dependencies first (depth-first, stable)."""
    available = _available_fragments(registry, terms)
    roots: list[tuple[str, str]] = []
    for term in terms:
        if term.active and term.kind in (TermKind.REWARD, TermKind.TERMINATION):
            roots += [(term.name, n) for n in term.code().needs]
    for name, srcs in sources:
        roots += [(name, n) for s in srcs for n in s.needs]
    ordered: dict[str, Fragment] = {}
    visiting: set[str] = set()

    def visit(owner: str, name: str) -> None:
        if name in ordered:
            return
        if name in visiting:
            raise TermPlanError(f"fragment {name!r}: dependency cycle")
        if name not in available:
            raise TermPlanError(f"term {owner!r}: needs fragment {name!r} which nothing provides")
        visiting.add(name)
        for dep in available[name].needs:
            visit(name, dep)
        visiting.discard(name)
        ordered[name] = available[name]

    for owner, name in roots:
        visit(owner, name)
    return tuple(ordered.values())


def _collect_inputs(
    registry: TermRegistry,
    terms: list[ResolvedTerm],
    sources: tuple[tuple[str, tuple[VectorSource, ...]], ...],
    fragments: tuple[Fragment, ...],
) -> tuple[InputSpec, ...]:
    """Inputs read by active code, in first-use order (the kernel's argument order)."""
    names: list[str] = []
    for frag in fragments:
        names += frag.inputs
    for term in terms:
        if term.active and term.kind in (TermKind.REWARD, TermKind.TERMINATION):
            names += term.code().inputs
    for _, srcs in sources:
        for src in srcs:
            names += src.inputs
    ordered = dict.fromkeys(names)
    missing = [n for n in ordered if n not in registry.inputs]
    if missing:
        raise TermPlanError(f"inputs {missing}: read by generated code but not declared")
    return tuple(registry.inputs[n] for n in ordered)


# --------------------------------------------------------------------------- NumPy runtime


@dataclass
class PlanOutputs:
    """Output buffers of one plan runtime, allocated once and reused call after call."""

    reward: np.ndarray
    terminated: np.ndarray
    groups: dict[str, np.ndarray]
    logs: np.ndarray

    @classmethod
    def allocate(cls, plan: ResolvedPlan, num_envs: int) -> PlanOutputs:
        """``np.empty`` buffers (the Numba runtime first-touches them in parallel)."""
        return cls(
            np.empty(num_envs, np.float32),
            np.empty(num_envs, np.bool_),
            {g: np.empty((num_envs, w), np.float32) for g, w in plan.groups},
            np.zeros(len(plan.active(TermKind.REWARD)), np.float64),
        )


def check_inputs(
    plan: ResolvedPlan, num_envs: int, inputs: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Select and validate the plan's inputs from ``inputs`` (shape, dtype, contiguity)."""
    bound = {}
    for spec in plan.inputs:
        if spec.name not in inputs:
            raise ValueError(f"input {spec.name!r}: missing (plan {plan.task} reads it)")
        value = check_array(spec.name, inputs[spec.name], (num_envs, *spec.shape), spec.dtype)
        bound[spec.name] = check_contiguous(spec.name, value)
    return bound


class PlanNumpyRuntime:
    """Executes a plan with each term's NumPy implementation (the NumPy fallback)."""

    def __init__(self, plan: ResolvedPlan, num_envs: int) -> None:
        num_envs = check_count("num_envs", num_envs)
        self.plan = plan
        self.num_envs = num_envs
        self.outputs = PlanOutputs.allocate(plan, num_envs)
        self.rewards = plan.active(TermKind.REWARD)
        self.scales = np.array([t.scale for t in self.rewards], np.float64)

    @property
    def input_names(self) -> tuple[str, ...]:
        """Inputs the plan reads, in the same order as the fused kernel's arguments."""
        return tuple(s.name for s in self.plan.inputs)

    def set_scale(self, name: str, scale: float) -> None:
        """Change the weight of active reward ``name`` (see :func:`check_weight`)."""
        index = reward_index(self.rewards, name, scale, self.plan.reward_multiplier)
        self.scales[index] = float(scale)

    def run(self, views: Sequence[np.ndarray], log: bool) -> dict[str, float]:
        """:meth:`execute` with inputs given in :attr:`input_names` order."""
        if len(views) != len(self.plan.inputs):
            raise ValueError(f"inputs: expected {len(self.plan.inputs)} arrays, got {len(views)}")
        return self.execute(dict(zip(self.input_names, views, strict=True)), log)

    def execute(self, inputs: Mapping[str, np.ndarray], log: bool) -> dict[str, float]:
        """Compute every output for ``inputs``; return ``reward/<name>`` logs when ``log``."""
        bound = check_inputs(self.plan, self.num_envs, inputs)
        memo: dict[str, Any] = {}
        for term in self.plan.active(TermKind.PREAMBLE):
            term.definition.numpy_fn(self._ctx(term, bound, memo))
        total = np.zeros(self.num_envs, np.float64)
        logs = {}
        for k, term in enumerate(self.rewards):
            if self.scales[k] == 0.0:  # set to 0 at runtime: contributes exactly 0, not NaN * 0
                continue
            value = np.asarray(term.definition.numpy_fn(self._ctx(term, bound, memo)), np.float64)
            weighted = value * self.scales[k]
            total += weighted * self.plan.reward_multiplier
            if log:
                logs[f"reward/{term.name}"] = float(np.mean(weighted))
        self.outputs.reward[:] = total
        self._terminations(bound, memo)
        for term in self.plan.active(TermKind.OBSERVATION):
            value = term.definition.numpy_fn(self._ctx(term, bound, memo))
            out = self.outputs.groups[str(term.group)]
            out[:, term.offset : term.offset + term.width] = value
        return logs

    def _terminations(self, bound: Mapping[str, np.ndarray], memo: dict[str, Any]) -> None:
        done = self.outputs.terminated
        done[:] = False
        for term in self.plan.active(TermKind.TERMINATION):
            done |= np.asarray(term.definition.numpy_fn(self._ctx(term, bound, memo)), np.bool_)

    def _ctx(
        self, term: ResolvedTerm, bound: Mapping[str, np.ndarray], memo: dict[str, Any]
    ) -> NumpyContext:
        return NumpyContext(bound, term.param_map, self.num_envs, memo)


def check_weight(name: str, scale: object, multiplier: float) -> float:
    """A reward scale as a float: a finite number whose weight ``scale * multiplier`` is 0
    only when the scale is 0.

    A scale so small that its weight underflows to 0 (5e-324 x ctrl_dt) would switch the term
    off in the runtime-scales kernel (exactly 0, even from NaN) but not in the baked kernel or
    NumPy (0 x NaN = NaN): refused, so that 0 is the one way to switch a term off.
    """
    if not is_real(scale):  # not True or "1": a mistyped weight is not silently 1.0
        raise TermPlanError(f"term {name!r}: scale must be a number, got {scale!r}")
    value = float(scale)
    if not math.isfinite(value):
        raise TermPlanError(f"term {name!r}: scale must be finite, got {scale}")
    if value != 0.0 and value * multiplier == 0.0:
        raise TermPlanError(
            f"term {name!r}: scale {value!r} x reward multiplier {multiplier!r} underflows "
            "to 0; use 0 to switch the term off"
        )
    return value


def reward_index(
    rewards: tuple[ResolvedTerm, ...], name: str, scale: object, multiplier: float
) -> int:
    """Index of active reward ``name`` for a new ``scale`` (checked by :func:`check_weight`)."""
    check_weight(name, scale, multiplier)
    for k, term in enumerate(rewards):
        if term.name == name:
            return k
    active = [t.name for t in rewards]
    raise TermPlanError(
        f"term {name!r}: not an active reward of this plan (active: {active}); the active set "
        "is baked, rebuild the plan to add a term"
    )
