"""``python -m termplan.bench collector``: records per path, ValueError (exit 2) on bad options."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest

from termplan import tasks
from termplan.bench import collector

pytestmark = [pytest.mark.numba("g1_walk"), pytest.mark.mujoco, pytest.mark.subprocess]


def _args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    collector.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["collector", *argv])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--task", "walk"], "--task"),
        (["--task", "g1_walk", "--num-envs", "0"], "num_envs"),
        (["--task", "g1_walk", "--steps", "0"], "steps"),
        (["--task", "g1_walk", "--warmup", "-1"], "warmup"),
        (["--task", "g1_walk", "--paths", "numpy,fused"], "'fused' is not available"),
        (["--task", "g1_walk", "--paths", ","], "--paths"),
        (["--task", "g1_walk", "--profile", "nope"], "--profile"),
        (["--task", "g1_walk", "--cores", "0"], "cores"),
    ],
)
def test_bad_options_raise_a_value_error_naming_them(argv: list[str], message: str) -> None:
    args = _args(argv)
    with pytest.raises(ValueError, match=message):
        args.func(args)


def test_records_one_per_path() -> None:
    paths = tasks.task_module("g1_walk").PATHS
    args = _args(["--task", "g1_walk", "--num-envs", "4", "--steps", "2", "--warmup", "1",
                  "--paths", ",".join(paths), "--replay-steps", "2"])  # fmt: skip
    records = args.func(args)
    assert [r["path"] for r in records] == list(paths)
    for r in records:
        assert r["task"] == "g1_walk" and r["num_envs"] == 4
        assert r["other_ms"] == pytest.approx(
            r["collector_step_ms"] - r["physics_ms"] - r["update_state_ms"]
        )
        json.dumps(r)  # every field is JSON-serialisable


def test_cli_exits_2_for_an_unavailable_path() -> None:
    cmd = [sys.executable, "-m", "termplan.bench", "collector", "--task", "g1_walk",
           "--paths", "numpy,nonexistent", "--json"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert proc.returncode == 2
    assert "'nonexistent' is not available for task 'g1_walk'" in proc.stderr
    assert proc.stdout == ""
