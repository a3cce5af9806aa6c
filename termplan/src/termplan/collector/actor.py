"""A NumPy MLP actor (obs -> 256 -> 256 -> actions, tanh) for action selection.

It stands in for the upstream Torch SAC actor's deterministic path: the cost that matters
to the collector is two (N x 256) GEMMs in BLAS and the element-wise activations. Weights
are drawn once (seeded, fan-in scaled) and every buffer is preallocated for N rows, so
:meth:`MlpActor.act` allocates nothing.
"""

from __future__ import annotations

import numpy as np

from termplan.arrays import check_count

HIDDEN = 256


def _layer(rng: np.random.Generator, fan_in: int, fan_out: int) -> tuple[np.ndarray, np.ndarray]:
    bound = 1.0 / np.sqrt(fan_in)
    weight = rng.uniform(-bound, bound, size=(fan_in, fan_out)).astype(np.float32)
    bias = rng.uniform(-bound, bound, size=fan_out).astype(np.float32)
    return weight, bias


class MlpActor:
    """Deterministic tanh MLP actor for ``num_envs`` rows of ``obs_dim`` -> ``action_dim``."""

    def __init__(self, num_envs: int, obs_dim: int, action_dim: int, seed: int = 0) -> None:
        for name, value in (
            ("num_envs", num_envs),
            ("obs_dim", obs_dim),
            ("action_dim", action_dim),
        ):
            check_count(name, value)
        rng = np.random.default_rng(seed)
        self.obs_dim, self.action_dim = obs_dim, action_dim
        self.layers = [
            _layer(rng, obs_dim, HIDDEN),
            _layer(rng, HIDDEN, HIDDEN),
            _layer(rng, HIDDEN, action_dim),
        ]
        self._h1 = np.empty((num_envs, HIDDEN), dtype=np.float32)
        self._h2 = np.empty((num_envs, HIDDEN), dtype=np.float32)
        self._out = np.empty((num_envs, action_dim), dtype=np.float32)

    def sync_weights(self) -> None:
        """Weight sync from a learner: none exists in the collector benchmark (zero work)."""

    def act(self, obs: np.ndarray) -> np.ndarray:
        """Actions in [-1, 1] for ``obs`` (N, obs_dim) float32; the returned array is reused."""
        if obs.shape != (self._out.shape[0], self.obs_dim):
            raise ValueError(
                f"obs: expected shape {(self._out.shape[0], self.obs_dim)}, got {obs.shape}"
            )
        (w1, b1), (w2, b2), (w3, b3) = self.layers
        self._dense_relu(obs, w1, b1, self._h1)
        self._dense_relu(self._h1, w2, b2, self._h2)
        np.matmul(self._h2, w3, out=self._out)
        self._out += b3
        np.tanh(self._out, out=self._out)
        return self._out

    @staticmethod
    def _dense_relu(x: np.ndarray, w: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        np.matmul(x, w, out=out)
        out += b
        np.maximum(out, 0.0, out=out)
