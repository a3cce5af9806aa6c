"""The benchmark CLI: bad options exit 2 with a message; a tiny run prints records."""

import json

import pytest

from termplan.bench.__main__ import main


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["hot", "--task", "nope"], "task 'nope'"),
        (["hot", "--task", "g1_walk", "--paths", "numpy,warp"], "'warp'"),
        (["hot", "--task", "g1_walk", "--profile", "x"], "--profile"),
        (["hot", "--task", "g1_walk", "--num-envs", "0"], "--num-envs"),
    ],
)
def test_bad_options_exit_2(argv: list[str], fragment: str, capsys: pytest.CaptureFixture) -> None:
    """Unknown task, path or profile, or a bad N: exit code 2 and a named error."""
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


def test_tiny_run_json(capsys: pytest.CaptureFixture) -> None:
    """A short interleaved run yields one record per (path, N, threads) with the fields."""
    argv = ["hot", "--task", "g1_walk", "--num-envs", "8", "--threads", "1"]
    argv += ["--paths", "numpy,handwritten", "--iters", "3", "--warmup", "1", "--json"]
    assert main(argv) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["path"], r["num_envs"], r["threads"]) for r in records] == [
        ("numpy", 8, 1),
        ("handwritten", 8, 1),
    ]
    for field in ("median_ms", "p95_ms", "min_ms", "env_per_s", "compile_ms", "task", "profile"):
        assert all(field in r for r in records)
    assert all(r["min_ms"] <= r["median_ms"] <= r["p95_ms"] for r in records)
