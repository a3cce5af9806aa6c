"""A task's vocabulary: term definitions by key, shared fragments, vector sources, loop axes.

Registration happens at import of a task's ``terms`` module (cold path). Lookups of unknown
names raise :class:`~termplan.errors.TermPlanError` naming what was asked and what exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from termplan.errors import TermPlanError
from termplan.spec import Axis, Fragment, InputSpec, TermDefinition, VectorSource, check_identifier


@dataclass
class TermRegistry:
    """Explicit dictionaries (no import-time magic) of everything a plan may reference."""

    name: str
    axes: tuple[Axis, ...] = ()
    definitions: dict[str, TermDefinition] = field(default_factory=dict)
    fragments: dict[str, Fragment] = field(default_factory=dict)
    sources: dict[str, VectorSource] = field(default_factory=dict)
    inputs: dict[str, InputSpec] = field(default_factory=dict)

    def register(self, definition: TermDefinition) -> TermDefinition:
        """Add a term definition; a duplicate key is an error (keys are versioned instead)."""
        if definition.key in self.definitions:
            raise TermPlanError(f"term key {definition.key!r}: already registered in {self.name}")
        for spec in definition.inputs:
            self.add_input(spec)
        self.definitions[definition.key] = definition
        return definition

    def add_input(self, spec: InputSpec) -> InputSpec:
        """Declare an input; the same name with a different spec is a conflict."""
        known = self.inputs.get(spec.name)
        if known is not None and known != spec:
            raise TermPlanError(f"input {spec.name!r}: conflicting specs {known} and {spec}")
        if spec.axis is not None:
            self.axis(spec.axis)
        self.inputs[spec.name] = spec
        return spec

    def add_fragment(self, frag: Fragment) -> Fragment:
        """Register a shared fragment (a named sub-expression several terms may need)."""
        check_identifier("fragment", frag.name)
        known = self.fragments.get(frag.name)
        if known is not None and known != frag:
            raise TermPlanError(f"fragment {frag.name!r}: registered twice with different code")
        self.fragments[frag.name] = frag
        return frag

    def add_source(self, source: VectorSource) -> VectorSource:
        """Register a vector source observation terms may copy."""
        check_identifier("source", source.name)
        if source.name in self.sources and self.sources[source.name] != source:
            raise TermPlanError(f"source {source.name!r}: registered twice differently")
        if source.axis is not None:
            axis = self.axis(source.axis)
            if axis.extent * source.per_iter != source.width:
                raise TermPlanError(
                    f"source {source.name!r}: width {source.width} != "
                    f"{axis.extent} x {source.per_iter} along axis {axis.name!r}"
                )
        self.sources[source.name] = source
        return source

    def resolve(self, key: str) -> TermDefinition:
        """The definition registered under ``key``."""
        try:
            return self.definitions[key]
        except KeyError:
            known = ", ".join(sorted(self.definitions)) or "(none)"
            raise TermPlanError(
                f"term key {key!r}: unknown in {self.name}; known: {known}"
            ) from None

    def axis(self, name: str) -> Axis:
        """The loop axis called ``name``."""
        for axis in self.axes:
            if axis.name == name:
                return axis
        raise TermPlanError(f"axis {name!r}: unknown in {self.name}")

    def source(self, name: str) -> VectorSource:
        """A vector source by name; inputs are sources too (read at env level or per axis)."""
        if name in self.sources:
            return self.sources[name]
        if name in self.inputs:
            return input_source(self.inputs[name], self)
        raise TermPlanError(f"source {name!r}: neither a registered source nor an input")


def input_source(spec: InputSpec, registry: TermRegistry) -> VectorSource:
    """The vector source that copies input ``spec`` (inside its axis loop when it has one)."""
    if spec.axis is None:
        return VectorSource(
            spec.name, spec.width, f"in_{spec.name}[i, {{c}}]", inputs=(spec.name,)
        )
    axis = registry.axis(spec.axis)
    rest = spec.width // spec.shape[0]
    if spec.shape[0] != axis.extent:
        raise TermPlanError(f"input {spec.name!r}: first dim {spec.shape[0]} != axis {axis.name}")
    index = axis.var if len(spec.shape) == 1 else f"{axis.var}, {{c}}"
    return VectorSource(
        spec.name, spec.width, f"in_{spec.name}[i, {index}]", spec.axis, rest, inputs=(spec.name,)
    )
