"""A sim case named as asv names its figures: ``sim_hot_slice.SimHotSlice.track_cycles(
'motion_tracking', 'sac_default', 'handwritten', 2048)``; the figure may be left out."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from perfgate.errors import UserError
from perfgate.sim.figures import FIGURES

_NAME = re.compile(r"^(?P<path>[A-Za-z_][\w.]*)\((?P<args>.*)\)$", re.DOTALL)


@dataclass(frozen=True)
class CaseName:
    """One sim case: its module (dotted, within the benchmark folder), family class and
    parameters, and the figure the name gave (None: none)."""

    module: str
    family: str
    params: tuple[Any, ...]
    figure: str | None = None


def parse_case(text: str) -> CaseName:
    """``module.Class[.track_x](params...)``; a UserError says what was expected."""
    expected = (
        "expected an asv sim case like "
        "\"sim_hot_slice.SimHotSlice.track_cycles('motion_tracking', 'sac_default', "
        "'handwritten', 2048)\" (the .track_* part may be left out)"
    )
    match = _NAME.match(text.strip())
    if match is None:
        raise UserError(f"case {text!r}: {expected}")
    parts = match.group("path").split(".")
    figure = None
    if parts[-1] in FIGURES:
        figure = FIGURES[parts[-1]][0]
        parts = parts[:-1]
    if len(parts) < 2:
        raise UserError(f"case {text!r}: no module and class; {expected}")
    try:
        params = ast.literal_eval(f"({match.group('args')},)") if match.group("args") else ()
    except (ValueError, SyntaxError):
        raise UserError(f"case {text!r}: parameters are not Python literals; {expected}") from None
    return CaseName(".".join(parts[:-1]), parts[-1], tuple(params), figure)
