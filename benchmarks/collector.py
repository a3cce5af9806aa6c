"""The collector's active window: env-steps per second and the update_state share.

Uses ``termplan.collector.run`` (``RunConfig`` + ``run_window(cfg) -> (result, record)``);
the record's ``steps_per_s`` (env-steps/s over the measured steps) and
``update_state_share_pct`` (update_state's share of the mean collector step, in percent) are
tracked. Commits without the collector skip. Note that env-steps/s is *higher*-is-better,
while asv's regression page flags increases.
"""

from __future__ import annotations

from typing import Any

from ._common import (
    PATHS,
    TASKS,
    THREADS,
    grid_name,
    import_optional,
    require_case,
    usable_threads,
)

PROFILE = "sac_default"
#: (num_envs, measured steps, warmup steps) per grid; upstream's window is 100 + 10 at 8192,
#: which the history's pinned runners measure (``full``). The gate's runner grid takes a
#: quarter of the envs and 40 steps: upstream's window took 80 s a case and side on the 2-core
#: reference machine, 6 cases x 2 sides 16 minutes of a gate whose budget is 20; base and head
#: are still compared on one window (its own asv version, so it never joins the history).
WINDOWS: dict[str, tuple[int, int, int]] = {
    "default": (1024, 20, 3),
    "full": (8192, 100, 10),
    "runner": (2048, 40, 5),
}


def _record(task: str, path: str) -> dict[str, Any]:
    """One collector window of ``task`` x ``path`` on the largest usable core budget."""
    run = import_optional("termplan.collector.run")
    num_envs, steps, warmup = WINDOWS[grid_name()]
    cores = max(usable_threads(THREADS))
    config = run.RunConfig(
        task=task, path=path, num_envs=num_envs, steps=steps, warmup=warmup,
        profile=PROFILE, cores=cores,
    )  # fmt: skip
    _, record = run.run_window(config)
    return dict(record)


class Collector:
    """Throughput and update_state share of the off-policy collector's active window."""

    params = (TASKS, PATHS)
    param_names = ("task", "path")
    #: The window is part of what is measured: default-grid and full-grid results must not
    #: share one history (asv keys results by this version).
    version = f"window (num_envs, steps, warmup) = {WINDOWS[grid_name()]}"
    timeout = 900.0
    rounds = 1
    repeat = 1

    def setup(self, task: str, path: str) -> None:
        """Skip when the commit has no collector (or not this task/path)."""
        require_case(task, PROFILE, path)
        run = import_optional("termplan.collector.run")
        if not all(hasattr(run, name) for name in ("RunConfig", "run_window")):
            raise NotImplementedError("termplan.collector.run lacks RunConfig/run_window")

    def track_env_steps_per_s(self, task: str, path: str) -> float:
        """Env-steps per second over the measured window."""
        return float(_record(task, path)["steps_per_s"])

    track_env_steps_per_s.unit = "env-steps/s"  # type: ignore[attr-defined]

    def track_update_state_share(self, task: str, path: str) -> float:
        """update_state's share of the mean collector step, in percent."""
        return float(_record(task, path)["update_state_share_pct"])

    track_update_state_share.unit = "percent"  # type: ignore[attr-defined]
