"""Write the MJCF XML of the G1-like humanoid from :mod:`termplan.sim.g1_spec`.

The robot is a free-floating pelvis with two 6-DoF legs, a 3-DoF waist carrying the torso
and two 7-DoF arms; capsules, spheres and box feet. Only robot-vs-floor contacts exist
(robot geoms have ``contype=1, conaffinity=0``, the floor the reverse), which keeps physics
cheap and the standing pose free of self-collision chatter. Each foot has four touch sites at
the sole corners, where box-plane contacts land.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from termplan.sim.g1_spec import CTRL_DT, JOINTS, SENSORS, SOLE_CORNERS, SUBSTEPS, JointSpec

_JOINT_BY_NAME = {j.name: j for j in JOINTS}
_AXES = {"x": "1 0 0", "y": "0 1 0", "z": "0 0 1"}


@dataclass
class Body:
    """One body of the tree: position in the parent, optional hinge, geoms, sites, children."""

    name: str
    pos: tuple[float, float, float]
    joint: str | None = None
    geoms: list[dict[str, str]] = field(default_factory=list)
    sites: list[dict[str, str]] = field(default_factory=list)
    children: list[Body] = field(default_factory=list)


def _vec(*values: float) -> str:
    return " ".join(f"{v:.6g}" for v in values)


def _capsule(a: tuple[float, ...], b: tuple[float, ...], r: float, mass: float) -> dict[str, str]:
    return {"type": "capsule", "fromto": _vec(*a, *b), "size": _vec(r), "mass": _vec(mass)}


def _sphere(r: float, mass: float, pos: tuple[float, ...] = (0, 0, 0)) -> dict[str, str]:
    return {"type": "sphere", "size": _vec(r), "mass": _vec(mass), "pos": _vec(*pos)}


def _foot(side: str) -> Body:
    """Ankle roll link: the box foot, the sole-centre frame site and four touch sites."""
    box = {"type": "box", "pos": "0.03 0 -0.025", "size": "0.1 0.035 0.015", "mass": "0.7"}
    box.update({"name": f"{side}_foot_geom", "friction": "1.0 0.02 0.001"})
    sites = [{"name": f"{side}_foot", "pos": "0.03 0 -0.04", "size": "0.01"}]
    for k, (x, y) in enumerate(SOLE_CORNERS):
        sites.append({"name": f"{side}_foot_contact_{k}_site", "pos": _vec(x, y, -0.04)})
        sites[-1]["size"] = "0.025"
    return Body(f"{side}_ankle_roll_link", (0, 0, -0.02), f"{side}_ankle_roll", [box], sites)


def _leg(side: str, sign: float) -> Body:
    ankle_pitch = Body(f"{side}_ankle_pitch_link", (0, 0, -0.3), f"{side}_ankle_pitch")
    ankle_pitch.geoms.append(_sphere(0.02, 0.1))
    ankle_pitch.children.append(_foot(side))
    knee = Body(f"{side}_knee_link", (0, 0, -0.25), f"{side}_knee")
    knee.geoms.append(_capsule((0, 0, -0.03), (0, 0, -0.27), 0.04, 1.9))
    knee.children.append(ankle_pitch)
    yaw = Body(f"{side}_hip_yaw_link", (0, 0, -0.05), f"{side}_hip_yaw")
    yaw.geoms.append(_capsule((0, 0, 0), (0, 0, -0.22), 0.05, 2.8))
    yaw.children.append(knee)
    roll = Body(f"{side}_hip_roll_link", (0, 0.02 * sign, -0.03), f"{side}_hip_roll")
    roll.geoms.append(_sphere(0.04, 1.4))
    roll.children.append(yaw)
    pitch = Body(f"{side}_hip_pitch_link", (0, 0.0875 * sign, -0.07), f"{side}_hip_pitch")
    pitch.geoms.append(_sphere(0.035, 1.3))
    pitch.children.append(roll)
    return pitch


def _arm(side: str, sign: float) -> Body:
    hand = Body(f"{side}_wrist_yaw_link", (0, 0, -0.02), f"{side}_wrist_yaw")
    hand.geoms.append({"type": "box", "pos": "0 0 -0.05", "size": "0.02 0.035 0.05"})
    hand.geoms[-1]["mass"] = "0.4"
    w_pitch = Body(f"{side}_wrist_pitch_link", (0, 0, -0.02), f"{side}_wrist_pitch")
    w_pitch.geoms.append(_sphere(0.02, 0.3))
    w_pitch.children.append(hand)
    w_roll = Body(f"{side}_wrist_roll_link", (0, 0, -0.14), f"{side}_wrist_roll")
    w_roll.geoms.append(_sphere(0.025, 0.3))
    w_roll.children.append(w_pitch)
    elbow = Body(f"{side}_elbow_link", (0, 0, -0.18), f"{side}_elbow")
    elbow.geoms.append(_capsule((0, 0, 0), (0, 0, -0.12), 0.03, 0.6))
    elbow.children.append(w_roll)
    s_yaw = Body(f"{side}_shoulder_yaw_link", (0, 0, -0.02), f"{side}_shoulder_yaw")
    s_yaw.geoms.append(_capsule((0, 0, 0), (0, 0, -0.16), 0.035, 0.6))
    s_yaw.children.append(elbow)
    s_roll = Body(f"{side}_shoulder_roll_link", (0, 0.03 * sign, 0), f"{side}_shoulder_roll")
    s_roll.geoms.append(_sphere(0.035, 0.6))
    s_roll.children.append(s_yaw)
    s_pitch = Body(f"{side}_shoulder_pitch_link", (0, 0.16 * sign, 0.3), f"{side}_shoulder_pitch")
    s_pitch.geoms.append(_sphere(0.04, 0.7))
    s_pitch.children.append(s_roll)
    return s_pitch


def _upper_body() -> Body:
    torso = Body("torso_link", (0, 0, 0), "waist_pitch")
    torso.geoms.append(_capsule((0, 0, 0.06), (0, 0, 0.3), 0.1, 7.0))
    torso.geoms.append(_sphere(0.07, 1.0, (0, 0, 0.45)))
    torso.children += [_arm("left", 1.0), _arm("right", -1.0)]
    roll = Body("waist_roll_link", (0, 0, 0), "waist_roll", [_sphere(0.03, 0.3)])
    roll.children.append(torso)
    yaw = Body("waist_yaw_link", (0, 0, 0.05), "waist_yaw", [_sphere(0.03, 0.3)])
    yaw.children.append(roll)
    return yaw


def robot_tree(base_height: float) -> Body:
    """The whole kinematic tree, rooted at the free-floating pelvis at ``base_height``."""
    pelvis = Body("pelvis", (0, 0, base_height))
    pelvis.geoms.append(_capsule((0, -0.07, 0), (0, 0.07, 0), 0.06, 4.0))
    pelvis.sites.append({"name": "imu", "pos": "0 0 0", "size": "0.01"})
    pelvis.children += [_leg("left", 1.0), _leg("right", -1.0), _upper_body()]
    return pelvis


def _emit_body(parent: ET.Element, body: Body) -> None:
    elem = ET.SubElement(parent, "body", name=body.name, pos=_vec(*body.pos))
    if body.joint is None:
        ET.SubElement(elem, "freejoint", name="floating_base")
    else:
        spec: JointSpec = _JOINT_BY_NAME[body.joint]
        ET.SubElement(
            elem,
            "joint",
            name=f"{spec.name}_joint",
            axis=_AXES[spec.axis],
            range=_vec(spec.lower, spec.upper),
        )
    for geom in body.geoms:
        ET.SubElement(elem, "geom", geom)
    for site in body.sites:
        ET.SubElement(elem, "site", site)
    for child in body.children:
        _emit_body(elem, child)


def _emit_header(root: ET.Element) -> None:
    ET.SubElement(root, "compiler", angle="radian", autolimits="true")
    ET.SubElement(root, "option", timestep=repr(CTRL_DT / SUBSTEPS), integrator="implicitfast")
    default = ET.SubElement(root, "default")
    ET.SubElement(default, "joint", damping="0.5", armature="0.02", limited="true")
    ET.SubElement(default, "geom", contype="1", conaffinity="0", condim="3", friction="0.8")
    ET.SubElement(default, "site", type="sphere", group="3")
    ET.SubElement(default, "position", inheritrange="1")


def _emit_actuators_and_sensors(root: ET.Element) -> None:
    actuators = ET.SubElement(root, "actuator")
    for spec in JOINTS:
        ET.SubElement(
            actuators,
            "position",
            name=spec.name,
            joint=f"{spec.name}_joint",
            kp=_vec(spec.kp),
            kv=_vec(spec.kv),
        )
    sensors = ET.SubElement(root, "sensor")
    for sensor in SENSORS:
        ET.SubElement(sensors, sensor.element, dict(sensor.attrs), name=sensor.name)


def _emit_keyframe(root: ET.Element, base_height: float) -> None:
    """Keyframe ``stand``: pelvis at ``base_height``, joints and PD targets at the defaults."""
    angles = [spec.default for spec in JOINTS]
    qpos = _vec(0, 0, base_height, 1, 0, 0, 0, *angles)
    keyframes = ET.SubElement(root, "keyframe")
    ET.SubElement(keyframes, "key", name="stand", qpos=qpos, ctrl=_vec(*angles))


def g1_mjcf(base_height: float = 0.8) -> str:
    """The MJCF text of the humanoid with its pelvis initially at ``base_height`` metres."""
    root = ET.Element("mujoco", model="termplan_g1")
    _emit_header(root)
    world = ET.SubElement(root, "worldbody")
    ET.SubElement(
        world, "geom", name="floor", type="plane", size="0 0 0.05", contype="0", conaffinity="1"
    )
    _emit_body(world, robot_tree(base_height))
    _emit_actuators_and_sensors(root)
    _emit_keyframe(root, base_height)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"
