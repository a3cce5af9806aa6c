"""A sim case named as the gate's report prints it, ``sim_hot_slice.SimHotSlice.track_cycles(
task=motion_tracking, profile=sac_default, path=handwritten, num_envs=2048)``, or as asv does,
``sim_hot_slice.SimHotSlice.track_cycles('motion_tracking', 'sac_default', 'handwritten',
2048)``; the figure may be left out. A named case's values are display text, resolved to the
family's own parameter values once its suite is read (`resolve`)."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from perfgate.case_label import parse_asv_name, parse_label
from perfgate.errors import UserError
from perfgate.formats.benchmarks_json import param_text
from perfgate.sim.figures import FIGURES

EXPECTED = (
    'expected a sim case as the report names it, like "sim_hot_slice.SimHotSlice.track_cycles('
    'task=motion_tracking, profile=sac_default, path=handwritten, num_envs=2048)", or as asv '
    "does, like \"sim_hot_slice.SimHotSlice.track_cycles('motion_tracking', 'sac_default', "
    "'handwritten', 2048)\" (the .track_* part may be left out)"
)


@dataclass(frozen=True)
class CaseName:
    """One sim case: its module (dotted, within the benchmark folder), family class and
    parameters (asv's form), or its parameters by name as display text (the report's form),
    and the figure the name gave (None: none)."""

    module: str
    family: str
    params: tuple[Any, ...]
    figure: str | None = None
    named: tuple[tuple[str, str], ...] = ()

    def label(self) -> str:
        """The case as the report names it (without a figure)."""
        if self.named:
            return f"{self.module}.{self.family}({', '.join(f'{k}={v}' for k, v in self.named)})"
        return f"{self.module}.{self.family}{self.params}"


def parse_case(text: str) -> CaseName:
    """``module.Class[.track_x](params...)`` in either form; a UserError says what was
    expected."""
    named = parse_label(text)
    asv = None if named is not None else parse_asv_name(text)
    if named is None and asv is None:
        raise UserError(f"case {text!r}: {EXPECTED}")
    parts = (named.benchmark if named is not None else asv[0] if asv else "").split(".")
    figure = None
    if parts[-1] in FIGURES:
        figure = FIGURES[parts[-1]][0]
        parts = parts[:-1]
    if len(parts) < 2:
        raise UserError(f"case {text!r}: no module and class; {EXPECTED}")
    module, family = ".".join(parts[:-1]), parts[-1]
    if named is not None:
        return CaseName(module, family, (), figure, named.params)
    assert asv is not None
    return CaseName(module, family, asv[1], figure)


def resolve(
    case: CaseName, names: Sequence[str], params: Sequence[Sequence[str]]
) -> tuple[Any, ...]:
    """The parameter values of ``case`` in its family, whose parameters are ``names`` with
    asv's value reprs ``params``: a named case's display texts matched to them (a
    UserError names what does not match); asv's form as given."""
    if not case.named:
        return case.params
    given = dict(case.named)
    if sorted(given) != sorted(names) or len(given) != len(case.named):
        raise UserError(
            f"case {case.label()}: expected the parameters {', '.join(names)} of "
            f"{case.module}.{case.family}, got {', '.join(k for k, _ in case.named)}"
        )
    values = []
    for name, reprs in zip(names, params, strict=True):
        found = [r for r in reprs if param_text(r) == given[name]]
        if not found:
            raise UserError(
                f"case {case.label()}: {name}={given[name]} is not one of the family's "
                f"values ({', '.join(param_text(r) for r in reprs)})"
            )
        try:
            values.append(ast.literal_eval(found[0]))
        except (ValueError, SyntaxError):
            raise UserError(
                f"case {case.label()}: {name}'s value {found[0]} is not a Python literal; "
                "name the case as asv does"
            ) from None
    return tuple(values)
