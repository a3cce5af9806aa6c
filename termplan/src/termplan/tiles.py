"""The tile length of a tiled kernel for N envs on T workers (pure: no Numba, no clock).

A tiled kernel's ``prange`` runs over tiles of envs, and Numba splits that range statically:
each of T workers gets ``ceil(tiles / T)`` tiles at most. A fixed tile of 512 envs gives
2048 envs four tiles, so at most four of 32 workers work. :func:`tile_length` instead picks,
per (N, T), the tile that minimises the busiest worker's envs. The per-thread scratch keeps
its stride of :data:`TILE_CAPACITY` envs whatever the length, so its strides stay literal;
the length only bounds the lane loop's trip count, which is a runtime value already.
"""

from __future__ import annotations

from termplan.arrays import check_count

#: Envs a tile can hold: the row stride of the per-thread tile scratch (literal in kernels).
TILE_CAPACITY = 512
#: Tile lengths are multiples of this (one AVX-512 vector of float32, two of float64).
TILE_STEP = 16
#: The shortest tile: below it the per-tile work (log sums, overlap checks) dominates.
MIN_TILE = 32


def busiest_worker_envs(num_envs: int, threads: int, tile: int) -> int:
    """Envs of the busiest worker when ``num_envs`` envs in tiles of ``tile`` are split
    statically over ``threads`` workers (``ceil(tiles / threads)`` tiles, the last tile
    possibly short)."""
    tiles = -(-num_envs // tile)
    per_worker = -(-tiles // threads)
    return min(per_worker * tile, num_envs)


def tile_length(num_envs: int, threads: int) -> int:
    """The tile for ``num_envs`` envs on ``threads`` workers: of the multiples of
    :data:`TILE_STEP` from :data:`MIN_TILE` to :data:`TILE_CAPACITY`, the one whose busiest
    worker has the fewest envs; of those that tie, the longest (fewest tiles).

    Raises
    ------
    ValueError
        If either argument is not a positive int.
    """
    n = check_count("num_envs", num_envs)
    t = check_count("threads", threads)
    candidates = range(TILE_CAPACITY, MIN_TILE - 1, -TILE_STEP)
    return min(candidates, key=lambda c: busiest_worker_envs(n, t, c))
