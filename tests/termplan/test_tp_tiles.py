"""termplan.tiles: the tile length follows N and T (synthetic N and T, 1..160 threads)."""

from __future__ import annotations

import pytest

from termplan.tiles import (
    MIN_TILE,
    TILE_CAPACITY,
    TILE_STEP,
    busiest_worker_envs,
    tile_length,
)

GRID = (1, 37, 500, 2048, 4096, 8192, 10_000, 65536, 100_003)


@pytest.mark.parametrize("num_envs", GRID)
@pytest.mark.parametrize("threads", range(1, 161))
def test_tile_is_legal_and_balances_as_well_as_any(num_envs: int, threads: int) -> None:
    tile = tile_length(num_envs, threads)
    assert MIN_TILE <= tile <= TILE_CAPACITY and tile % TILE_STEP == 0
    best = min(busiest_worker_envs(num_envs, threads, c) for c in range(1, TILE_CAPACITY + 1))
    ideal = -(-num_envs // threads)
    got = busiest_worker_envs(num_envs, threads, tile)
    # never worse than the shortest legal tile, and within one tile of the ideal share
    assert got <= busiest_worker_envs(num_envs, threads, MIN_TILE)
    assert got <= max(ideal + tile, best)


@pytest.mark.parametrize(
    ("num_envs", "threads", "tile"),
    [
        (2048, 1, 512),
        (2048, 2, 512),
        (65536, 2, 512),
        (2048, 8, 256),
        (2048, 32, 64),
        (2048, 64, 32),
        (8192, 32, 256),
        (8192, 64, 128),
        (65536, 160, 416),
    ],
)
def test_the_grid_of_the_scaling_table(num_envs: int, threads: int, tile: int) -> None:
    """Where a whole number of tiles per worker exists it is chosen (a perfect split); at
    1-2 threads the tile stays the old 512 for N >= 2048."""
    assert tile_length(num_envs, threads) == tile


def test_the_old_fixed_tile_starves_workers() -> None:
    """512-env tiles give 2048 envs 4 tiles: the busiest of 32 workers has 8x its share."""
    assert busiest_worker_envs(2048, 32, 512) == 512
    assert busiest_worker_envs(2048, 32, tile_length(2048, 32)) == 64


@pytest.mark.parametrize(("num_envs", "threads"), [(0, 1), (1, 0), (True, 2), (8.0, 2)])
def test_bad_arguments_are_named(num_envs: object, threads: object) -> None:
    with pytest.raises(ValueError, match="num_envs|threads"):
        tile_length(num_envs, threads)  # type: ignore[arg-type]
