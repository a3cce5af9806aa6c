"""The motion-tracking termination ``motion.tracking.termination.failures.v1``: fails closed
and compares the float32 differences exactly as the NumPy path does.
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
from termplan.tasks.motion_tracking import geometry as geo
from termplan.tasks.motion_tracking.config import (
    EE_INDICES,
    UNDESIRED_INDICES,
)
from termplan.tasks.motion_tracking.terms.inputs import F64, A, inputs_of


def _np_termination(ctx: NumpyContext) -> np.ndarray:
    p = ctx.params
    m_pos, r_pos = ctx.inputs["body_pos_w"], ctx.inputs["robot_body_pos_w"]
    alive = np.abs(m_pos[:, A, 2] - r_pos[:, A, 2]) <= p["anchor_pos_z"]
    if p["check_anchor_ori"] and p["anchor_ori"] < 2.0:
        gz_m = geo.gravity_z(ctx.inputs["body_quat_w"][:, A].astype(F64))
        gz_r = geo.gravity_z(ctx.inputs["robot_body_quat_w"][:, A].astype(F64))
        alive &= np.abs(gz_m - gz_r) <= p["anchor_ori"]
    ee = list(EE_INDICES)
    alive &= np.all(np.abs(m_pos[:, ee, 2] - r_pos[:, ee, 2]) <= p["ee_body_pos_z"], axis=1)
    if p["terminate_on_undesired_contacts"]:
        z = r_pos[:, list(UNDESIRED_INDICES), 2]
        alive &= np.all(z >= p["undesired_contact_z"], axis=1)
    return ~alive


def _emit_termination(p: Mapping[str, Any]) -> TermCode:
    checks = [
        f"abs(in_body_pos_w[i, {A}, 2] - in_robot_body_pos_w[i, {A}, 2])"
        f" <= {float(p['anchor_pos_z'])!r}"
    ]
    needs = ["ee_dz"]
    if p["check_anchor_ori"] and p["anchor_ori"] < 2.0:
        checks.append(f"gz_gap <= {float(p['anchor_ori'])!r}")
        needs.append("gz_gap")
    checks += [f"abs(eez{b}) <= {float(p['ee_body_pos_z'])!r}" for b in EE_INDICES]
    if p["terminate_on_undesired_contacts"]:
        thr = repr(float(p["undesired_contact_z"]))
        checks += [f"in_robot_body_pos_w[i, {b}, 2] >= {thr}" for b in UNDESIRED_INDICES]
    return TermCode(
        needs=tuple(needs),
        value="not (" + " and ".join(checks) + ")",
        inputs=("body_pos_w", "robot_body_pos_w"),
    )


def termination_definition() -> TermDefinition:
    """The failure termination, its thresholds as parameters."""
    return TermDefinition(
        "motion.tracking.termination.failures.v1",
        TermKind.TERMINATION,
        inputs_of("body_pos_w", "robot_body_pos_w", "body_quat_w", "robot_body_quat_w"),
        _np_termination,
        (
            ParamSpec("anchor_pos_z", ParamKind.FLOAT),
            ParamSpec("anchor_ori", ParamKind.FLOAT),
            ParamSpec("check_anchor_ori", ParamKind.BOOL, True),
            ParamSpec("ee_body_pos_z", ParamKind.FLOAT),
            ParamSpec("terminate_on_undesired_contacts", ParamKind.BOOL, False),
            ParamSpec("undesired_contact_z", ParamKind.FLOAT, 0.05),
        ),
        _emit_termination,
    )
