"""The G1-like humanoid as data: joints (upstream order), limits, default pose, gains, sensors.

Pure constants, no MuJoCo import: the MJCF writer (:mod:`termplan.sim.g1_mjcf`) and the
physics readback (:mod:`termplan.sim.physics`) both read them, so a joint or sensor is named
exactly once. Dimensions approximate the Unitree G1 (29 DoF, about 35 kg, pelvis at about
0.75 m when standing with bent knees); limits are the G1's published joint ranges (radians).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from termplan.tasks.motion_tracking.config import BODY_NAMES


@dataclass(frozen=True)
class JointSpec:
    """One actuated hinge: name, axis letter, limits, default angle and PD gains."""

    name: str
    axis: str  # "x" (roll), "y" (pitch) or "z" (yaw)
    lower: float
    upper: float
    default: float
    kp: float
    kv: float


def _leg(side: str, sign: float) -> list[JointSpec]:
    roll_lo, roll_hi = (-0.5236, 2.9671) if sign > 0 else (-2.9671, 0.5236)
    return [
        JointSpec(f"{side}_hip_pitch", "y", -2.5307, 2.8798, -0.312, 300.0, 8.0),
        JointSpec(f"{side}_hip_roll", "x", roll_lo, roll_hi, 0.0, 300.0, 8.0),
        JointSpec(f"{side}_hip_yaw", "z", -2.7576, 2.7576, 0.0, 100.0, 4.0),
        JointSpec(f"{side}_knee", "y", -0.0873, 2.8798, 0.669, 400.0, 10.0),
        JointSpec(f"{side}_ankle_pitch", "y", -0.8727, 0.5236, -0.357, 400.0, 10.0),
        JointSpec(f"{side}_ankle_roll", "x", -0.2618, 0.2618, 0.0, 200.0, 6.0),
    ]


def _waist() -> list[JointSpec]:
    return [
        JointSpec("waist_yaw", "z", -2.618, 2.618, 0.0, 150.0, 6.0),
        JointSpec("waist_roll", "x", -0.52, 0.52, 0.0, 150.0, 6.0),
        JointSpec("waist_pitch", "y", -0.52, 0.52, 0.0, 150.0, 6.0),
    ]


def _arm(side: str, sign: float) -> list[JointSpec]:
    roll_lo, roll_hi = (-1.5882, 2.2515) if sign > 0 else (-2.2515, 1.5882)
    return [
        JointSpec(f"{side}_shoulder_pitch", "y", -3.0892, 2.6704, 0.2, 40.0, 2.0),
        JointSpec(f"{side}_shoulder_roll", "x", roll_lo, roll_hi, 0.2 * sign, 40.0, 2.0),
        JointSpec(f"{side}_shoulder_yaw", "z", -2.618, 2.618, 0.0, 40.0, 2.0),
        JointSpec(f"{side}_elbow", "y", -1.0472, 2.0944, 0.6, 40.0, 2.0),
        JointSpec(f"{side}_wrist_roll", "x", -1.9722, 1.9722, 0.0, 20.0, 1.0),
        JointSpec(f"{side}_wrist_pitch", "y", -1.6144, 1.6144, 0.0, 20.0, 1.0),
        JointSpec(f"{side}_wrist_yaw", "z", -1.6144, 1.6144, 0.0, 20.0, 1.0),
    ]


#: The 29 actuated joints in the upstream G1 order (legs, waist, arms).
JOINTS: Final[tuple[JointSpec, ...]] = tuple(
    _leg("left", 1.0) + _leg("right", -1.0) + _waist() + _arm("left", 1.0) + _arm("right", -1.0)
)
NUM_DOF: Final = len(JOINTS)
JOINT_NAMES: Final[tuple[str, ...]] = tuple(j.name for j in JOINTS)

#: Default joint angles (the standing pose the PD targets hold under zero action), float64.
DEFAULT_ANGLES: Final = np.array([j.default for j in JOINTS], dtype=np.float64)
JOINT_LOWER: Final = np.array([j.lower for j in JOINTS], dtype=np.float64)
JOINT_UPPER: Final = np.array([j.upper for j in JOINTS], dtype=np.float64)
for _arr in (DEFAULT_ANGLES, JOINT_LOWER, JOINT_UPPER):
    _arr.setflags(write=False)

#: Control period and physics substeps: ``timestep = CTRL_DT / SUBSTEPS``.
CTRL_DT: Final = 0.02
SUBSTEPS: Final = 3

#: The 14 bodies the Motion task tracks (same order as its (N, 14, .) arrays).
TRACKED_BODIES: Final[tuple[str, ...]] = BODY_NAMES

#: Sole corners (foot frame) carrying the touch sites, four per foot.
SOLE_CORNERS: Final[tuple[tuple[float, float], ...]] = (
    (0.13, 0.035),
    (0.13, -0.035),
    (-0.07, 0.035),
    (-0.07, -0.035),
)


@dataclass(frozen=True)
class SensorSpec:
    """One sensor of the MJCF: name, MJCF element, attributes and output width."""

    name: str
    element: str
    attrs: tuple[tuple[str, str], ...]
    width: int


def _base_sensors() -> list[SensorSpec]:
    imu = (("site", "imu"),)
    return [
        SensorSpec("local_linvel", "velocimeter", imu, 3),
        SensorSpec("gyro", "gyro", imu, 3),
        # the world's z axis in the imu frame (R^T e_z), what the tasks call gravity (negated
        # in the observation); the imu's own z axis in world coordinates (R e_z, framezaxis of
        # the site alone) would change with heading at the same tilt
        SensorSpec(
            "upvector",
            "framezaxis",
            (("objtype", "xbody"), ("objname", "world"), ("reftype", "site"), ("refname", "imu")),
            3,
        ),
    ]


def _foot_sensors() -> list[SensorSpec]:
    out: list[SensorSpec] = []
    for side in ("left", "right"):
        site = (("objtype", "site"), ("objname", f"{side}_foot"))
        out.append(SensorSpec(f"{side}_foot_pos", "framepos", site, 3))
        out.append(SensorSpec(f"{side}_foot_quat", "framequat", site, 4))
    for side in ("left", "right"):
        for k in range(len(SOLE_CORNERS)):
            name = f"{side}_foot_contact_{k}"
            out.append(SensorSpec(name, "touch", (("site", f"{name}_site"),), 1))
    return out


def _body_sensors() -> list[SensorSpec]:
    kinds = [("pos", "framepos", 3), ("quat", "framequat", 4)]
    kinds += [("linvel", "framelinvel", 3), ("angvel", "frameangvel", 3)]
    out: list[SensorSpec] = []
    for suffix, element, width in kinds:
        for body in TRACKED_BODIES:
            attrs = (("objtype", "xbody"), ("objname", body))
            out.append(SensorSpec(f"{body}_{suffix}", element, attrs, width))
    return out


#: Every sensor, in sensordata order. World-frame body sensors are grouped by kind so each
#: kind is one contiguous (14 x width) block of sensordata.
SENSORS: Final[tuple[SensorSpec, ...]] = tuple(_base_sensors() + _foot_sensors() + _body_sensors())


def sensor_slices() -> dict[str, slice]:
    """Column range of each sensor in ``sensordata`` (follows :data:`SENSORS` order)."""
    out, pos = {}, 0
    for sensor in SENSORS:
        out[sensor.name] = slice(pos, pos + sensor.width)
        pos += sensor.width
    return out


NUM_SENSORDATA: Final = sum(s.width for s in SENSORS)
