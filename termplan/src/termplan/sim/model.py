"""Build the compiled MuJoCo model of the G1-like humanoid, standing on the floor.

The pelvis height of the standing pose is not hand-tuned: the loader places the default
pose at a probe height, measures the lowest sole point with forward kinematics and writes
the final XML with the pelvis lowered so the soles touch the floor.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import mujoco
import numpy as np

from termplan.sim.g1_mjcf import g1_mjcf
from termplan.sim.g1_spec import DEFAULT_ANGLES, NUM_DOF, SOLE_CORNERS

_PROBE_HEIGHT = 1.0


@dataclass(frozen=True)
class G1Model:
    """The compiled model, its XML and the standing state (float64 qpos of the keyframe)."""

    model: mujoco.MjModel
    xml: str
    stand_qpos: np.ndarray  # (nq,)
    base_height: float

    @property
    def nq(self) -> int:
        """Number of generalized coordinates (7 free-base + 29 hinges)."""
        return int(self.model.nq)

    @property
    def nv(self) -> int:
        """Number of degrees of freedom (6 free-base + 29 hinges)."""
        return int(self.model.nv)


def _lowest_sole_z(xml: str) -> float:
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qpos[2] = _PROBE_HEIGHT
    data.qpos[3] = 1.0
    data.qpos[7:] = DEFAULT_ANGLES
    mujoco.mj_kinematics(model, data)
    names = [f"{s}_foot_contact_{k}_site" for s in ("left", "right") for k in range(4)]
    assert len(names) == 2 * len(SOLE_CORNERS)
    return float(min(data.site(name).xpos[2] for name in names))


@functools.lru_cache(maxsize=1)
def load_g1() -> G1Model:
    """Compile the humanoid (cached per process: the model is immutable once built)."""
    sole = _lowest_sole_z(g1_mjcf(_PROBE_HEIGHT))
    base_height = round(_PROBE_HEIGHT - sole, 4)
    xml = g1_mjcf(base_height)
    model = mujoco.MjModel.from_xml_string(xml)
    if model.nu != NUM_DOF:
        raise RuntimeError(f"G1 model: expected {NUM_DOF} actuators, got {model.nu}")
    stand = np.array(model.key("stand").qpos, dtype=np.float64)
    stand.setflags(write=False)
    return G1Model(model=model, xml=xml, stand_qpos=stand, base_height=base_height)
