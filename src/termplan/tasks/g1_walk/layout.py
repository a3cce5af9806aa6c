"""Observation layout of the G1 walk task: where each source lands and how it is scaled.

Every slot is a scaled copy ``out[i, offset + j] = source[i, j] * multiplier``. Actor slots
with a ``noise`` field read ``source + noise`` when noise is enabled (``noisy_x * mult``, as
upstream); the critic always sees clean values. The multiplier depends on the profile's
walk-observation flag (:func:`termplan.tasks.g1_walk.profiles.uses_walk_observation`).
"""

from __future__ import annotations

from dataclasses import dataclass

from termplan.tasks.g1_walk.config import ACTOR_DIM, CRITIC_DIM, NUM_DOF


@dataclass(frozen=True)
class ObsSlot:
    """One observation term.

    Attributes
    ----------
    name:
        Term label (upstream ``actor_gyro`` ...).
    source:
        Batch field copied (``dof_pos_diff`` means ``dof_pos - default_angles``).
    offset, width:
        Columns ``offset .. offset + width`` of the output row.
    walk_multiplier, plain_multiplier:
        Scale for walk profiles and for the others.
    noise:
        Batch noise field added first when noise is on (actor only), else ``None``.
    noise_scale:
        The :class:`~termplan.tasks.g1_walk.config.NoiseConfig` attribute scaling that noise.
    """

    name: str
    source: str
    offset: int
    width: int
    walk_multiplier: float = 1.0
    plain_multiplier: float = 1.0
    noise: str | None = None
    noise_scale: str | None = None

    def multiplier(self, walk: bool) -> float:
        """The multiplier for a walk (True) or plain (False) profile."""
        return self.walk_multiplier if walk else self.plain_multiplier


#: Per slot: (key, source, offset, width, walk multiplier, plain multiplier, noise, scale).
_SLOTS: tuple[tuple[str, str, int, int, float, float, str | None, str | None], ...] = (
    ("gyro", "gyro", 0, 3, 0.25, 1.0, "noise_gyro", "gyro"),
    ("gravity", "gravity", 3, 3, -1.0, -1.0, "noise_gravity", "gravity"),
    ("dof_pos", "dof_pos_diff", 6, NUM_DOF, 1.0, 1.0, "noise_dof_pos", "joint_angle"),
    ("dof_vel", "dof_vel", 35, NUM_DOF, 0.05, 1.0, "noise_dof_vel", "joint_vel"),
    ("actions", "current_actions", 64, NUM_DOF, 1.0, 1.0, None, None),
    ("commands", "commands", 93, 3, 1.0, 1.0, None, None),
    ("gait_phase", "gait_phase", 96, 2, 1.0, 1.0, None, None),
)


def _group(prefix: str, noisy: bool) -> tuple[ObsSlot, ...]:
    """The shared 98 columns; only the actor group carries noise fields."""
    return tuple(
        ObsSlot(
            f"{prefix}_{key}",
            source,
            offset,
            width,
            walk,
            plain,
            noise if noisy else None,
            scale if noisy else None,
        )
        for key, source, offset, width, walk, plain, noise, scale in _SLOTS
    )


#: Actor observation ``obs`` (N, 98): noisy when noise is enabled.
ACTOR_LAYOUT: tuple[ObsSlot, ...] = _group("actor", noisy=True)
#: Critic observation ``critic`` (N, 101): the clean actor layout plus ``linvel``.
CRITIC_LAYOUT: tuple[ObsSlot, ...] = (
    *_group("critic", noisy=False),
    ObsSlot("critic_linvel", "linvel", 98, 3, 2.0, 1.0),
)


def _check_tiles(layout: tuple[ObsSlot, ...], width: int) -> None:
    """Slots must tile ``0..width`` exactly, in order (no gap, no overlap)."""
    end = 0
    for slot in layout:
        if slot.offset != end:
            raise AssertionError(
                f"observation slot {slot.name} starts at {slot.offset}, not {end}"
            )
        end += slot.width
    if end != width:
        raise AssertionError(f"observation layout covers {end} columns, expected {width}")


_check_tiles(ACTOR_LAYOUT, ACTOR_DIM)
_check_tiles(CRITIC_LAYOUT, CRITIC_DIM)
