"""The benchmark CLI: bad options exit 2 with a message; a tiny run prints records."""

import json

import pytest

from termplan.bench.__main__ import main

pytestmark = pytest.mark.numba("g1_walk")


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


@pytest.mark.parametrize("command", ["hot", "collector"])
def test_negative_seed_is_a_usage_error_naming_the_option(
    command: str, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--task", "g1_walk", "--seed", "-1"])
    assert info.value.code == 2
    assert "argument --seed: expected an integer >= 0, got '-1'" in capsys.readouterr().err


def test_sizes_beyond_memory_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """An N too large to allocate is a bad option (2, one line), not a MemoryError traceback."""
    from termplan.bench import hot

    def too_big(*args: object, **kwargs: object) -> None:
        raise MemoryError("Unable to allocate 10.6 TiB")

    monkeypatch.setattr(hot, "run_hot", too_big)
    assert main(["hot", "--task", "g1_walk", "--num-envs", "99999999999"]) == 2
    assert "not enough memory for the requested sizes" in capsys.readouterr().err
