"""The motion-tracking task, declared once: what the registry, the builder and every path read."""

from __future__ import annotations

from termplan.tasks.base import TaskSpec
from termplan.tasks.motion_tracking.batch import make_batch, validate
from termplan.tasks.motion_tracking.config import NoiseConfig
from termplan.tasks.motion_tracking.profiles import OWNER_VARIANTS, PROFILES, resolve_profile

TASK = TaskSpec(
    name="motion_tracking",
    class_stem="MotionTracking",
    profiles=PROFILES,
    owner_variants=tuple(OWNER_VARIANTS),
    resolve_profile=resolve_profile,
    profile_options=(),
    noise=NoiseConfig,
    make_batch=make_batch,
    validate=validate,
)
