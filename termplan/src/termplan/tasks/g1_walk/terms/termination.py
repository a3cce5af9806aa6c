"""The G1 walk termination term ``g1.walk.termination.tilt_or_height.v1``: tilt beyond the
limit or base too low; a NaN gravity z or base height terminates the row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from termplan.spec import (
    NumpyContext,
    ParamKind,
    ParamSpec,
    TermCode,
    TermDefinition,
    TermKind,
)
from termplan.tasks.g1_walk.config import (
    min_upright_gz,
)
from termplan.tasks.g1_walk.terms.inputs import as_f64, inputs_of


def _np_termination(ctx: NumpyContext) -> np.ndarray:
    gz = np.clip(as_f64(ctx.inputs["gravity"][:, 2]), -1.0, 1.0)
    upright = gz >= min_upright_gz(ctx.params["max_tilt_rad"])
    high = as_f64(ctx.inputs["base_height"]) >= ctx.params["min_base_height"]
    return ~(upright & high)


def termination_definition() -> TermDefinition:
    """The tilt-or-height termination (its threshold baked as a literal)."""

    def emit(p: Mapping[str, Any]) -> TermCode:
        # the task's tilt rule, against a baked literal (NaN fails both comparisons, so a
        # NaN gravity still terminates)
        min_gz = min_upright_gz(p["max_tilt_rad"])
        return TermCode(
            needs=("gz_clip",),
            value=f"not (gz >= {min_gz!r} and "
            f"float(in_base_height[i]) >= {p['min_base_height']!r})",
            inputs=("base_height",),
        )

    return TermDefinition(
        "g1.walk.termination.tilt_or_height.v1",
        TermKind.TERMINATION,
        inputs_of("gravity", "base_height"),
        _np_termination,
        (
            ParamSpec("max_tilt_rad", ParamKind.FLOAT),
            ParamSpec("min_base_height", ParamKind.FLOAT),
        ),
        emit,
    )
