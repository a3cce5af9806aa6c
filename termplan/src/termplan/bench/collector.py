"""``bench collector``: the 100-step active window of the off-policy collector, per path.

Every path of ``--paths`` runs the same window (same seed, same N, same thread budget), the
paths' steps interleaved round by round so machine drift hits them alike; one record per
path. Paths are checked before anything runs: a path the task does not
(yet) offer is a ValueError naming it (exit 2).
"""

from __future__ import annotations

import argparse
from typing import Any

from termplan import tasks
from termplan.bench.timing import seed_arg
from termplan.collector.budget import available_cores
from termplan.collector.run import RunConfig, run_windows


def add_parser(subparsers: Any) -> None:
    """Register ``collector`` on the ``bench`` command line."""
    p = subparsers.add_parser(
        "collector", help="collector active window (MuJoCo physics + hot slice) per path"
    )
    p.add_argument("--task", required=True, help=f"one of {', '.join(tasks.TASKS)}")
    p.add_argument("--profile", default="sac_default")
    p.add_argument("--num-envs", type=int, default=512)
    p.add_argument("--steps", type=int, default=100, help="measured steps")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--paths", default=None, help="comma-separated (default: every path)")
    p.add_argument(
        "--cores", type=int, default=None, help="thread budget (default: the usable cores)"
    )
    p.add_argument("--replay-steps", type=int, default=64, help="replay ring slots")
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--json", action="store_true", help="print a JSON list of records")
    p.set_defaults(func=run_from_args)


def _configs(args: argparse.Namespace) -> list[RunConfig]:
    if args.task not in tasks.TASKS:
        raise ValueError(f"--task: {args.task!r} is not one of {', '.join(tasks.TASKS)}")
    text = ",".join(tasks.task_module(args.task).PATHS) if args.paths is None else args.paths
    paths = [p.strip() for p in text.split(",") if p.strip()]
    if not paths:
        raise ValueError("--paths: expected at least one path")
    cores = available_cores() if args.cores is None else args.cores
    configs = [
        RunConfig(
            task=args.task,
            path=path,
            num_envs=args.num_envs,
            steps=args.steps,
            warmup=args.warmup,
            profile=args.profile,
            cores=cores,
            seed=args.seed,
            replay_steps=args.replay_steps,
        )  # fmt: skip
        for path in paths
    ]
    for cfg in configs:
        cfg.validate()
    return configs


def run_from_args(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Validate every option first, then run each path's window; one record per path."""
    configs = _configs(args)
    profiles = tasks.task_module(args.task).PROFILES
    if args.profile not in profiles:
        raise ValueError(f"--profile: {args.profile!r} is not one of {', '.join(profiles)}")
    return [record for _, record in run_windows(configs)]
