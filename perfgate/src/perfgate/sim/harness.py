"""Run a sim suite's cases: once natively, then once under callgrind; counts per case.

The native pass builds and calls every case with the client requests as no-ops: it fills the
JIT's on-disk cache for the target the simulated pass uses (nothing then compiles under
valgrind, where a compile takes minutes) and reports broken cases in seconds. The simulated
pass is one valgrind process for all the cases, which pays valgrind's start-up (~8 s of
imports under the simulator here) once, not once per case.

A run does both passes (`Stage.BOTH`), or one of them: the gate prepares each side with the
native pass alone (`Stage.PREPARE`), then counts with the simulated pass alone
(`Stage.COUNT`), so a side's cases are not built and called natively twice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from perfgate.errors import UserError
from perfgate.sim import callgrind, child, target
from perfgate.sim.attribution import keep
from perfgate.sim.cost import Events

#: the measured process is single-threaded: valgrind serializes threads anyway, and a pool's
#: spinning workers would be counted. It is not bound to a CPU either: with the gate's
#: ``OMP_PROC_BIND=close``, OpenMP's start-up bound every measured process to the first core,
#: and the runs meant to count at once (base, head, base again) shared that one core.
SINGLE_THREAD_ENV = {
    "NUMBA_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OMP_PROC_BIND": "false",
    "KMP_AFFINITY": "disabled",
}


class Stage(Enum):
    """Which passes a run of the harness makes (see the module)."""

    #: the native pass, then the simulated pass: a run on its own (asv run, calibrate)
    BOTH = "both"
    #: the native pass alone, nothing reported: the gate's preparing runs
    PREPARE = "prepare"
    #: the simulated pass alone: a counting run after a preparing run of the same commit
    COUNT = "count"


#: The variable naming the `Stage` of a sim suite's run (absent: both passes; see
#: `perfgate.sim.suite`). Its name must pass `perfgate.secrets.child_environment`: a name with
#: PASS, KEY, TOKEN, ... in it is dropped from every child as a secret.
PREPARE_VARIABLE = "PERFGATE_SIM_PREPARE"
#: its values: this run only prepares; this run counts what a preparing run prepared
PREPARE_ONLY, PREPARE_DONE = "1", "done"

#: What a case of a preparing run says.
PREPARED = "prepared: built and called natively, not reported"


#: variables the harness reads and the measured process never does
_HARNESS_ONLY = frozenset({PREPARE_VARIABLE, keep.PROFILES_VARIABLE})


def stage_of(environ: Mapping[str, str]) -> Stage:
    """The stage `PREPARE_VARIABLE` asks for; a ValueError names the variable if it is bad."""
    text = environ.get(PREPARE_VARIABLE, "").strip()
    stages = {"": Stage.BOTH, PREPARE_ONLY: Stage.PREPARE, PREPARE_DONE: Stage.COUNT}
    if text not in stages:
        raise ValueError(
            f"{PREPARE_VARIABLE}: expected {PREPARE_ONLY!r} (prepare only), "
            f"{PREPARE_DONE!r} (count only) or nothing, got {text!r}"
        )
    return stages[text]


class SimRunError(UserError):
    """The simulated pass could not run or left no usable counts."""


@dataclass(frozen=True)
class SimCase:
    """One case: an id safe for callgrind's dump names and the suite's parameters."""

    id: str
    params: tuple[Any, ...]


@dataclass(frozen=True)
class SimSpec:
    """What the measured process builds: the suite's class and the cases, in order."""

    root_name: str
    root_path: str
    module: str
    class_name: str
    cases: tuple[SimCase, ...]
    #: one weight per measured call (the figures are their weighted mean per call)
    weights: tuple[int, ...] = (1, 1, 1, 1)
    warmup: int = 1


@dataclass(frozen=True)
class SimOutcome:
    """Per case id: its counts (ok), or why it has none (skipped / failed, with a message);
    and the fingerprint the counts were taken under."""

    events: Mapping[str, tuple[Events, ...]]
    skipped: Mapping[str, str]
    failed: Mapping[str, str]
    fingerprint: Mapping[str, str] = field(default_factory=dict)


def child_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The measured process's environment: the caller's without asv's own variables (they
    name the round's folders, whose lengths differ between sides and would shift the stack)
    and without the harness's own (`_HARNESS_ONLY`: read here, never by the measured process;
    the stage's value differs between a run of both passes and a counting run, and moved the
    stack between them), plus the settings that make a count repeatable."""
    kept = {k: v for k, v in env.items() if not k.startswith("ASV") and k not in _HARNESS_ONLY}
    return {**kept, **callgrind.DETERMINISTIC_ENV}


def measured_environment(
    env: Mapping[str, str], jit: Mapping[str, str], valgrind: str
) -> dict[str, str]:
    """The measured process's whole environment: ``env`` as `child_environment` keeps it,
    one unbound thread (`SINGLE_THREAD_ENV`), the JIT's target (``jit``) and valgrind's
    version (``valgrind``, `callgrind.VERSION_VARIABLE`: the process runs no ``valgrind
    --version`` of its own, whose timing would set its memory layout)."""
    version = {callgrind.VERSION_VARIABLE: valgrind}
    return {**child_environment(env), **SINGLE_THREAD_ENV, **jit, **version}


def _spec_document(spec: SimSpec, status: Path) -> dict[str, Any]:
    return {
        "root_name": spec.root_name,
        "root_path": spec.root_path,
        "module": spec.module,
        "class": spec.class_name,
        "cases": [{"id": c.id, "params": list(c.params)} for c in spec.cases],
        "calls": len(spec.weights),
        "warmup": spec.warmup,
        "status": str(status),
    }


def _run(argv: Sequence[str], env: Mapping[str, str], timeout_s: float, what: str) -> str:
    """Run one pass; its output tail (an error names the pass and shows the tail)."""
    try:
        done = subprocess.run(
            list(argv), env=dict(env), capture_output=True, text=True, timeout=timeout_s
        )
    except subprocess.TimeoutExpired:
        raise SimRunError(f"sim: the {what} pass timed out after {timeout_s:.0f}s") from None
    except OSError as exc:
        raise SimRunError(f"sim: the {what} pass could not start: {exc}") from None
    tail = (done.stdout + done.stderr)[-3000:]
    if done.returncode != 0:
        raise SimRunError(f"sim: the {what} pass exited {done.returncode}:\n{tail}")
    return tail


def _status(path: Path, what: str, tail: str) -> dict[str, Any]:
    try:
        status: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SimRunError(f"sim: the {what} pass left no status ({exc}):\n{tail}") from None
    return status


def measure(
    spec: SimSpec,
    env: Mapping[str, str] | None = None,
    target_mode: str = "auto",
    timeout_s: float = 3600.0,
    python: str = sys.executable,
    stage: Stage = Stage.BOTH,
) -> SimOutcome:
    """The counts of every case of ``spec`` (see the module); `ValgrindMissing` when
    valgrind is not installed, `SimRunError` when a pass fails as a whole. With
    `Stage.PREPARE` only the native pass runs and nothing is reported (every case that ran
    is "skipped", `PREPARED`); with `Stage.COUNT` only the simulated pass runs."""
    version = callgrind.valgrind_version()
    base_env = dict(os.environ if env is None else env)
    jit = target.resolve(target_mode, python, base_env)
    child_env = measured_environment(base_env, jit, version)
    with tempfile.TemporaryDirectory(prefix="perfgate-sim-") as tmp:
        work = Path(tmp)
        argv = [python, "-m", "perfgate.sim.child", str(work / "spec.json")]
        document = _spec_document(spec, work / "status.json")
        kept = keep.folder(base_env)
        if kept is not None:  # the per-function data, kept beside the counts
            kept = kept / keep.family_name(spec.module, spec.class_name)
            document.update(keep.spec_fields(work, kept))
        (work / "spec.json").write_text(json.dumps(document))
        if stage is not Stage.COUNT:
            native = _native_pass(work, argv, child_env, timeout_s)
            if stage is Stage.PREPARE:
                prepared = {"state": "skipped", "message": PREPARED}
                states = {c: s if s["state"] != "ok" else prepared for c, s in native.items()}
                return _outcome(spec, states, {}, {})
        tail = _run(callgrind.command(work, argv), child_env, timeout_s, "simulated")
        simulated = _status(work / "status.json", "simulated", tail)
        if not simulated.get("on_valgrind"):
            raise SimRunError(f"sim: the simulated pass did not run under valgrind:\n{tail}")
        names = [child.dump_name(c.id, i) for c in spec.cases for i in range(len(spec.weights))]
        dumps = callgrind.read_dumps(work, names)
        if kept is not None:
            _keep(kept, work, spec, simulated)
    return _outcome(spec, simulated["cases"], dumps, callgrind.fingerprint(version, jit))


def _keep(kept: Path, work: Path, spec: SimSpec, status: Mapping[str, Any]) -> None:
    """Keep the per-function data of every case counted ok (`perfgate.sim.attribution.keep`),
    and why the measured process could not record its kernels, if it could not."""
    states = status["cases"]
    ok = [(c.id, c.params) for c in spec.cases if states.get(c.id, {}).get("state") == "ok"]
    calls = range(len(spec.weights))
    names = {c: [child.dump_name(c, i) for i in calls] for c, _ in ok}
    keep.save(kept, work, ok, names, spec.weights, status.get("record_error"))


def _native_pass(
    work: Path, argv: Sequence[str], env: Mapping[str, str], timeout_s: float
) -> dict[str, Any]:
    """The native pass's case states (its status file removed for the simulated pass)."""
    tail = _run(argv, env, timeout_s, "native")
    native = _status(work / "status.json", "native", tail)
    (work / "status.json").unlink()
    if native.get("on_valgrind"):
        raise SimRunError("sim: the native pass says it runs under valgrind")
    cases: dict[str, Any] = native["cases"]
    return cases


def _outcome(
    spec: SimSpec,
    states: Mapping[str, Mapping[str, str]],
    dumps: Mapping[str, Events],
    fingerprint: Mapping[str, str],
) -> SimOutcome:
    events: dict[str, tuple[Events, ...]] = {}
    skipped: dict[str, str] = {}
    failed: dict[str, str] = {}
    for case in spec.cases:
        state = states.get(case.id, {"state": "failed", "message": "no status"})
        if state["state"] == "skipped":
            skipped[case.id] = state["message"]
        elif state["state"] != "ok":
            failed[case.id] = state["message"]
        else:
            names = [child.dump_name(case.id, i) for i in range(len(spec.weights))]
            if all(n in dumps for n in names):
                events[case.id] = tuple(dumps[n] for n in names)
            else:
                failed[case.id] = "callgrind wrote no counts for this case"
    return SimOutcome(events, skipped, failed, fingerprint)
