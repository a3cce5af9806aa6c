"""The trial heads of ``ci/sim-scaling.py trials``: honest code changes written into a copy
of termplan's sources (one line of a file, found exactly once, replaced by itself plus the
change), so each side is counted from a tree of its own.

    serial     `serial_edit`: the assembled path's NumPy pass over its largest input
    imbalance  `kernel_edit` (first_only): one worker's chunk of a hand-written kernel larger
    alike      `kernel_edit` (every tile or row): every worker's work grows alike
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PLAN_PATH = Path("termplan/tasks/plan_path.py")
PLAN_LINE = "        views = tuple(getattr(batch, name) for name in self._names)\n"
KERNEL = Path("termplan/tasks/g1_walk/handwritten_kernel.py")
TILE_LINE = "        count = min(tile, n - lo)\n"
MOTION_KERNEL = Path("termplan/tasks/motion_tracking/handwritten_kernel.py")
MOTION_LINE = "        terminated[i] = done or (check_ori and not (anchor_dgz <= thr[2]))\n"
MOTION_JOINTS = (
    "_joint_loop_i(m_jpos, m_jvel, dof_pos, dof_vel, cur, last, bias, noise_jp, noise_dv, "
    "default, lower, upper, add_noise, actor, critic, i)"
)


def patched(work: Path, name: str, edits: Mapping[Path, tuple[str, str]]) -> Path:
    """A copy of termplan's sources with ``edits`` (file -> (line, replacement))."""
    src = work / name
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(REPO / "termplan" / "src", src, ignore=shutil.ignore_patterns("__pycache__"))
    for rel, (line, new) in edits.items():
        text = (src / rel).read_text()
        if text.count(line) != 1:
            raise SystemExit(f"{rel}: the line to change is not there once: {line!r}")
        (src / rel).write_text(text.replace(line, new))
    return src


def serial_edit(passes: Mapping[tuple[str, int], int]) -> tuple[str, str]:
    """The assembled path's NumPy pass over its largest input, ``passes[(task, N)]`` times."""
    table_text = repr({f"{t}:{n}": k for (t, n), k in passes.items()})
    return PLAN_LINE, (
        PLAN_LINE
        + "        import numpy as _np\n"
        + "        _src = max((v for v in views if v.dtype.kind == 'f'), key=lambda v: v.size)\n"
        + "        _buf = getattr(self, '_trial_buf', None)\n"
        + "        if _buf is None or _buf.shape != _src.shape:\n"
        + "            _buf = self._trial_buf = _np.empty_like(_src)\n"
        + f"        _passes = {table_text}.get(f'{{self.spec.name}}:{{self.num_envs}}', 1)\n"
        + "        for _ in range(_passes):\n"
        + "            _np.multiply(_src, 1.0001, out=_buf)\n"
    )


def tile_edit(first_only: bool, passes: int) -> tuple[str, str]:
    """The hand-written g1_walk kernel: extra passes over a tile (the first tile only: its
    worker's chunk is larger; every tile: all workers alike)."""
    reps = f"({passes} if t == 0 else 0)" if first_only else str(passes)
    body = (
        "_joints_i(dp, dv, cur, last, default_angles, pose_weights, upper_body_weights, "
        "actor_dof_vel_mult, critic_dof_vel_mult, ob, cr, lo + _lane)"
        if first_only
        else "_terminated_i(gr, base_height, min_upright_gz, min_base_height, lo + _lane)"
    )
    target = "" if first_only else "terminated[lo + _lane] = "
    return TILE_LINE, (
        TILE_LINE
        + f"        for _extra in range({reps}):\n"
        + "            for _lane in range(count):\n"
        + f"                {target}{body}\n"
    )


def motion_edit(first_only: bool, passes: int) -> tuple[str, str]:
    """The hand-written motion_tracking kernel: its joint loop again (rows i < n/64 only, in
    the first worker's chunk at every T up to 64: that chunk is larger; every row: all
    workers alike). The loop writes what it wrote before: the outputs do not change."""
    reps = f"({passes} if i < reward.shape[0] // 64 else 0)" if first_only else str(passes)
    return MOTION_LINE, (
        MOTION_LINE + f"        for _extra in range({reps}):\n" + f"            {MOTION_JOINTS}\n"
    )


def kernel_edit(task: str, first_only: bool, passes: int) -> dict[Path, tuple[str, str]]:
    """The task's hand-written kernel edited as `tile_edit` / `motion_edit` do."""
    if task == "g1_walk":
        return {KERNEL: tile_edit(first_only, passes)}
    return {MOTION_KERNEL: motion_edit(first_only, passes)}
