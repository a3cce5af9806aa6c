"""The G1 walk task, declared once: what the registry, the builder and every path read."""

from __future__ import annotations

from termplan.tasks.base import TaskSpec
from termplan.tasks.g1_walk.batch import make_batch, validate
from termplan.tasks.g1_walk.config import NoiseConfig
from termplan.tasks.g1_walk.profiles import OWNER_VARIANTS, PROFILES, resolve_profile

TASK = TaskSpec(
    name="g1_walk",
    class_stem="G1Walk",
    profiles=PROFILES,
    owner_variants=tuple(OWNER_VARIANTS),
    resolve_profile=resolve_profile,
    profile_options=("scales",),
    noise=NoiseConfig,
    make_batch=make_batch,
    validate=validate,
)
