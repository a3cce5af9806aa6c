"""Turn a measured window into the flat benchmark record (pure).

``steps_per_s = N * steps / total_active_s`` (env-steps per second) with ``total_active``
the sum over measured steps of the five phases; ``collector_step_ms`` is its mean per step.
``physics_ms`` and ``update_state_ms`` are means too, so that
``other_ms = collector_step_ms - physics_ms - update_state_ms`` (upstream's definition) is
an exact decomposition of the mean step. ``hot_slice_ms`` (mean) is the hot-slice call
alone, the part of update_state that the paths differ in (the rest is the physics
readback). Medians and p95 (nearest rank) are reported per phase and per env-step part.
"""

from __future__ import annotations

import statistics
from typing import Any

from termplan.bench.timing import summarize_ms
from termplan.collector.loop import ENV_PARTS, PHASES, WindowResult


def window_record(result: WindowResult, num_envs: int) -> dict[str, Any]:
    """The timing fields of one run (see the module docstring)."""
    steps = len(result.phases["env_step"])
    if steps == 0:
        raise ValueError("window: expected at least one measured step, got none")
    active = [sum(v) for v in zip(*(result.phases[p] for p in PHASES), strict=True)]
    total_ms = sum(active)
    step_ms = total_ms / steps
    physics = statistics.fmean(result.env_parts["physics"])
    update = statistics.fmean(result.env_parts["update_state"])
    record: dict[str, Any] = {
        "steps_per_s": num_envs * steps / (total_ms * 1e-3),
        "collector_step_ms": step_ms,
        "physics_ms": physics,
        "update_state_ms": update,
        "hot_slice_ms": statistics.fmean(result.env_parts["hot_slice"]),
        "other_ms": step_ms - physics - update,
        "update_state_share_pct": 100.0 * update / step_ms,
        "physics_share_pct": 100.0 * physics / step_ms,
    }
    for name, samples in [*result.phases.items(), *result.env_parts.items()]:
        stats = summarize_ms(samples)
        record[f"{name}_median_ms"] = stats["median_ms"]
        record[f"{name}_p95_ms"] = stats["p95_ms"]
    return record


def counters_record(result: WindowResult) -> dict[str, Any]:
    """CPU use and episode counters of the window."""
    return {
        "cpu_util_pct": result.cpu_util_pct,
        "fault_resets": result.fault_resets,
        "mujoco_warnings": result.mujoco_warnings,
        "episodes_finished": result.episodes_finished,
        "mean_episode_length": result.mean_episode_length,
        "mean_episode_return": result.mean_episode_return,
    }


assert set(PHASES).isdisjoint(ENV_PARTS)
