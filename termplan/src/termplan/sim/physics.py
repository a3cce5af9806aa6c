"""Batched MuJoCo physics for N envs on MuJoCo's own threaded rollout.

One :meth:`BatchedPhysics.step` advances every env by one control step (``SUBSTEPS`` physics
steps at a constant control) with :class:`mujoco.rollout.Rollout`, whose C++ thread pool
steps the envs without holding the GIL. The full physics state of every env lives in one
float64 array (``state``: time, qpos, qvel), sensors in another (``sensordata``); both are
preallocated and reused, so a step allocates nothing that grows with N.

Fault detection is per env: MuJoCo resets a diverging ``mjData`` (NaN, Inf or huge qpos,
qvel or qacc) and the rollout stops advancing it, so a row whose time did not advance by
exactly ``SUBSTEPS`` timesteps, or whose state or sensors are non-finite or exceed
:data:`MAX_ABS_QVEL`, is reported as faulted. The caller terminates and resets those rows.
MuJoCo's warnings are counted (not printed, not logged to ``MUJOCO_LOG.TXT``) while the
physics object is open.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import mujoco
import numpy as np
from mujoco import rollout

from termplan.arrays import check_count
from termplan.sim.g1_spec import SUBSTEPS
from termplan.sim.model import G1Model

#: A generalized velocity above this (rad/s or m/s) is an exploding simulation.
MAX_ABS_QVEL = 1.0e3
_STATE_SPEC = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)


class WarningCounter:
    """Counts MuJoCo warnings through ``mju_user_warning`` (thread-safe).

    The handler is process-wide, so there is one counter (:data:`WARNINGS`), installed while
    at least one :class:`BatchedPhysics` is open (reference-counted); warnings cannot be
    attributed to an env (rollout threads step many), so only the total is kept.
    """

    def __init__(self) -> None:
        self.count = 0
        self.last = ""
        self._lock = threading.Lock()
        self._users = 0
        self._previous: Callable[[str], None] | None = None

    def __call__(self, message: str) -> None:
        with self._lock:
            self.count += 1
            self.last = message

    def acquire(self) -> None:
        """Route MuJoCo's warnings here (the first user installs the handler)."""
        with self._lock:
            self._users += 1
            if self._users == 1:
                self._previous = mujoco.get_mju_user_warning()
                mujoco.set_mju_user_warning(self)

    def release(self) -> None:
        """The last user restores the handler that was active before."""
        with self._lock:
            self._users -= 1
            if self._users == 0:
                mujoco.set_mju_user_warning(self._previous)


#: The process-wide MuJoCo warning counter.
WARNINGS = WarningCounter()


class BatchedPhysics:
    """N copies of the humanoid stepped together (see the module docstring).

    Parameters
    ----------
    g1:
        The compiled model (:func:`termplan.sim.model.load_g1`).
    num_envs:
        N >= 1.
    num_threads:
        Physics threads; 1 runs the rollout on the calling thread (no pool hand-off).
    """

    def __init__(self, g1: G1Model, num_envs: int, num_threads: int = 1) -> None:
        num_envs = check_count("num_envs", num_envs)
        num_threads = check_count("num_threads", num_threads)
        self.g1, self.model, self.num_envs = g1, g1.model, num_envs
        self.num_threads = num_threads
        nq, nv, nu = g1.model.nq, g1.model.nv, g1.model.nu
        nstate = mujoco.mj_stateSize(self.model, _STATE_SPEC)
        if nstate != 1 + nq + nv:
            raise RuntimeError(
                f"physics state: expected time+qpos+qvel ({1 + nq + nv}), got {nstate}"
            )
        self.state = np.zeros((num_envs, nstate), dtype=np.float64)
        self.sensordata = np.zeros((num_envs, self.model.nsensordata), dtype=np.float64)
        self.qpos = self.state[:, 1 : 1 + nq]
        self.qvel = self.state[:, 1 + nq :]
        self._control = np.zeros((num_envs, SUBSTEPS, nu), dtype=np.float64)
        self._out_state = np.zeros((num_envs, SUBSTEPS, nstate), dtype=np.float64)
        self._out_sensor = np.zeros((num_envs, SUBSTEPS, self.model.nsensordata), np.float64)
        self._fault = np.zeros(num_envs, dtype=np.bool_)
        self._scratch = mujoco.MjData(self.model)
        self._datas = [mujoco.MjData(self.model) for _ in range(num_threads)]
        self._rollout = rollout.Rollout(nthread=0 if num_threads == 1 else num_threads)
        self.warnings = WARNINGS
        self.warnings.acquire()
        self._closed = False
        self._dt = float(self.model.opt.timestep)

    def close(self) -> None:
        """Stop the rollout pool and release MuJoCo's warning handler (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._rollout.close()
        self.warnings.release()

    def set_rows(self, rows: np.ndarray, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """Set the state of ``rows`` (time 0) and recompute their sensors with ``mj_forward``.

        ``rows`` are distinct env indices; ``qpos`` (k, nq) and ``qvel`` (k, nv) finite.
        """
        rows = self._check_rows(rows)
        _check_finite("qpos", qpos, (rows.size, self.model.nq))
        _check_finite("qvel", qvel, (rows.size, self.model.nv))
        data = self._scratch
        for k, row in enumerate(rows):
            self.state[row, 0] = 0.0
            self.qpos[row] = qpos[k]
            self.qvel[row] = qvel[k]
            mujoco.mj_setState(self.model, data, self.state[row], _STATE_SPEC)
            mujoco.mj_forward(self.model, data)
            self.sensordata[row] = data.sensordata

    def step(self, ctrl: np.ndarray) -> np.ndarray:
        """Advance every env one control step holding ``ctrl`` (N, nu); return the fault mask.

        The returned (N,) bool array is reused call after call; a faulted row's state is
        whatever MuJoCo left and must be reset by the caller.
        """
        want = (self.state.shape[0], self.model.nu)
        if not isinstance(ctrl, np.ndarray) or ctrl.shape != want:
            got = ctrl.shape if isinstance(ctrl, np.ndarray) else type(ctrl).__name__
            raise ValueError(
                f"ctrl: expected an array of shape {want} (envs, actuators), got {got}"
            )
        np.copyto(self._control, ctrl[:, None, :])
        self._rollout.rollout(
            self.model,
            self._datas,
            self.state,
            self._control,
            state=self._out_state,
            sensordata=self._out_sensor,
        )
        expected = self.state[:, 0] + SUBSTEPS * self._dt
        np.copyto(self.state, self._out_state[:, -1])
        np.copyto(self.sensordata, self._out_sensor[:, -1])
        return self._detect_faults(expected)

    def _check_rows(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` as distinct int indices of existing envs, else a ValueError naming it."""
        rows = np.asarray(rows)
        n = self.state.shape[0]
        ok = rows.ndim == 1 and (rows.size == 0 or rows.dtype.kind in "iu")
        ok = ok and (rows.size == 0 or (rows.min() >= 0 and rows.max() < n))
        if not ok or np.unique(rows).size != rows.size:
            raise ValueError(f"rows: expected distinct env indices in 0..{n - 1}, got {rows!r}")
        return rows

    def _detect_faults(self, expected_time: np.ndarray) -> np.ndarray:
        fault = self._fault
        np.greater(np.abs(self.state[:, 0] - expected_time), 0.5 * self._dt, out=fault)
        fault |= ~np.isfinite(self.state).all(axis=1)
        fault |= ~np.isfinite(self.sensordata).all(axis=1)
        with np.errstate(invalid="ignore"):
            fault |= np.abs(self.qvel).max(axis=1) > MAX_ABS_QVEL
        return fault


def _check_finite(name: str, value: object, shape: tuple[int, ...]) -> None:
    """``value`` a finite float array of ``shape``, else a ValueError naming ``name``."""
    got = np.shape(value) if isinstance(value, np.ndarray) else type(value).__name__
    if got != shape:
        raise ValueError(f"{name}: expected an array of shape {shape}, got {got}")
    if not np.isfinite(np.asarray(value, dtype=np.float64)).all():
        raise ValueError(f"{name}: expected finite values (a NaN state cannot be simulated)")
