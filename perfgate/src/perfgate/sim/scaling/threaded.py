"""Run a scaling family's cases per thread: once natively, then once under callgrind with
``--separate-threads=yes``; per case and measured call, the calling thread's counts and each
worker's (`perfgate.sim.scaling.model.ThreadCounts`).

As `perfgate.sim.harness` (same stages, same deterministic environment, same JIT target), with
three differences in the measured process (`perfgate.sim.scaling.thread_child`):

* Numba's pool has ``pool`` threads (``NUMBA_NUM_THREADS``, whatever the machine's cores: a
  thread count the runner does not have is counted all the same, valgrind running one thread
  at a time) and each case masks it to its own T;
* the threading layer is pinned to ``workqueue``: the calling thread runs no chunk of a
  parallel loop, so its counts are exactly the call's serial work and each worker's are its
  share (with ``omp`` the calling thread also runs a chunk and its serial work would have to
  be estimated; measured at N=8192, 8 threads: main 988,441 = a chunk of ~699,300 plus
  ~289,000, against 298,274 with ``workqueue``), and no spinning wait is counted;
* the dumps are read per thread (`read_thread_dumps`): a call must have one dump of the
  calling thread and exactly T of distinct workers, else the case fails; each thread's
  counts leave out the pool's hand-off (locks, condition variables, futex waits:
  `perfgate.sim.scaling.hand_off`), whose counts follow the order valgrind runs the
  threads in.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.sim import callgrind, child, harness, target
from perfgate.sim.attribution import profile
from perfgate.sim.cost import Events
from perfgate.sim.scaling import hand_off, thread_child, worker_dump
from perfgate.sim.scaling.model import ThreadCounts

_THREAD = re.compile(r"^thread: (\d+)$", re.MULTILINE)
#: glibc's run-time settings, and the one that caps malloc's arenas
TUNABLES = "GLIBC_TUNABLES"
ARENA_MAX = "glibc.malloc.arena_max"


def command(out_dir: Path, argv: Sequence[str]) -> list[str]:
    """`callgrind.command` with one dump file per thread, and valgrind's fair scheduling
    (threads take turns in the order they asked for the lock, not in the order the host's
    scheduler wakes them): the counts of the measured calls depend on how the threads were
    interleaved at start-up (see docs/sim.md), and a fixed turn order makes that
    interleaving repeat more often."""
    cmd = callgrind.command(out_dir, argv)
    at = cmd.index("--tool=callgrind") + 1
    return [*cmd[:at], "--separate-threads=yes", "--fair-sched=yes", *cmd[at:]]


def read_thread_dumps(out_dir: Path, names: Iterable[str]) -> dict[str, dict[int, Events]]:
    """Per expected dump name, the counts of each thread that dumped it (callgrind's thread
    number -> counts): a client request dumps the counts of the thread that issues it, since
    that thread's last dump or zero, less the pool's hand-off (`hand_off`: the locks and waits
    whose counts follow the order valgrind runs the threads in). A name dumped twice by one
    thread, or a dump file without its thread (not a per-thread run), is a ValueError."""
    found: dict[str, dict[int, Events]] = {}
    for path, dump, text in callgrind.wanted_dumps(out_dir, names, whole=True):
        thread = _THREAD.search(text)
        if thread is None:
            raise ValueError(f"callgrind dump {path.name} names no thread (not per thread?)")
        threads = found.setdefault(dump.name, {})
        number = int(thread.group(1))
        if number in threads:
            raise ValueError(f"thread {number} dumped {dump.name!r} twice in {out_dir}")
        threads[number] = hand_off.without_hand_off(profile.parse(text))
    return found


def thread_counts(
    dumps: Mapping[str, Mapping[int, Events]], case: str, call: int, threads: int
) -> ThreadCounts:
    """One measured call's counts: its calling thread's dump and its ``threads`` workers'
    (in thread order); a ValueError says what is missing."""
    own = dumps.get(child.dump_name(case, call), {})
    theirs = dumps.get(thread_child.worker_dump_name(case, call), {})
    if len(own) != 1:
        raise ValueError(f"call {call}: expected one dump of the calling thread, got {len(own)}")
    ((main, serial),) = own.items()
    if len(theirs) != threads or main in theirs:
        raise ValueError(
            f"call {call}: expected {threads} workers' dumps from threads other than the "
            f"calling thread ({main}), got threads {sorted(theirs)}"
        )
    return ThreadCounts(serial, tuple(theirs[t] for t in sorted(theirs)))


@dataclass(frozen=True)
class ThreadOutcome:
    """Per case id: its per-thread counts per measured call (ok), or why it has none."""

    counts: Mapping[str, tuple[ThreadCounts, ...]]
    skipped: Mapping[str, str]
    failed: Mapping[str, str]
    fingerprint: Mapping[str, str]


def measured_environment(
    env: Mapping[str, str], jit: Mapping[str, str], valgrind: str, pool: int
) -> dict[str, str]:
    """`harness.measured_environment` with a pool of ``pool`` threads on the workqueue
    layer (the BLAS and OpenMP pools stay at one thread), and glibc's malloc allowed the
    arenas a machine of ``pool`` cores has (`malloc_arenas`)."""
    measured = harness.measured_environment(env, jit, valgrind)
    return {
        **measured,
        "NUMBA_NUM_THREADS": str(pool),
        "NUMBA_THREADING_LAYER": worker_dump.LAYER,
        TUNABLES: malloc_arenas(measured.get(TUNABLES, ""), pool),
    }


def malloc_arenas(tunables: str, pool: int) -> str:
    """``GLIBC_TUNABLES`` with ``glibc.malloc.arena_max`` set to glibc's default for a
    machine of ``pool`` cores (8 per core on 64 bits), the caller's other tunables kept.

    glibc sizes its arena limit from the cores it runs on: on a 2-core runner 16 arenas, so
    the workers of a pool of 32 or 64 would share them, and which thread gets which arena
    follows a ``trylock`` at its first allocation, i.e. the order valgrind happens to run
    the threads in. On the machine the projection stands for, each thread has an arena of
    its own; so it has here.
    """
    kept = [t for t in tunables.split(":") if t and not t.startswith(ARENA_MAX + "=")]
    return ":".join([*kept, f"{ARENA_MAX}={8 * max(1, pool)}"])


def measure(
    spec: harness.SimSpec,
    pool: int,
    env: Mapping[str, str] | None = None,
    target_mode: str = "auto",
    timeout_s: float = 3600.0,
    python: str = sys.executable,
    stage: harness.Stage = harness.Stage.BOTH,
) -> ThreadOutcome:
    """The per-thread counts of every case of ``spec`` with a pool of ``pool`` threads (see
    the module and `harness.measure`, whose stages and errors this follows)."""
    version = callgrind.valgrind_version()
    base_env = dict(os.environ if env is None else env)
    jit = target.resolve(target_mode, python, base_env)
    child_env = measured_environment(base_env, jit, version, pool)
    with tempfile.TemporaryDirectory(prefix="perfgate-simt-") as tmp:
        work = Path(tmp)
        argv = [python, "-m", "perfgate.sim.scaling.thread_child", str(work / "spec.json")]
        document = harness._spec_document(spec, work / "status.json")
        (work / "spec.json").write_text(json.dumps(document))
        if stage is not harness.Stage.COUNT:
            native = harness._native_pass(work, argv, child_env, timeout_s)
            if stage is harness.Stage.PREPARE:
                prepared = {"state": "skipped", "message": harness.PREPARED}
                states = {c: s if s["state"] != "ok" else prepared for c, s in native.items()}
                return _outcome(spec, states, {}, {})
        tail = harness._run(command(work, argv), child_env, timeout_s, "simulated")
        simulated = harness._status(work / "status.json", "simulated", tail)
        if not simulated.get("on_valgrind"):
            raise harness.SimRunError(
                f"sim: the simulated pass did not run under valgrind:\n{tail}"
            )
        names = [
            name(c.id, i)
            for c in spec.cases
            for i in range(len(spec.weights))
            for name in (child.dump_name, thread_child.worker_dump_name)
        ]
        dumps = read_thread_dumps(work, names)
    fingerprint = {**callgrind.fingerprint(version, jit), "layer": worker_dump.LAYER}
    return _outcome(spec, simulated["cases"], dumps, fingerprint)


def _outcome(
    spec: harness.SimSpec,
    states: Mapping[str, Mapping[str, Any]],
    dumps: Mapping[str, Mapping[int, Events]],
    fingerprint: Mapping[str, str],
) -> ThreadOutcome:
    counts: dict[str, tuple[ThreadCounts, ...]] = {}
    skipped: dict[str, str] = {}
    failed: dict[str, str] = {}
    for case in spec.cases:
        state = states.get(case.id, {"state": "failed", "message": "no status"})
        if state["state"] == "skipped":
            skipped[case.id] = state["message"]
        elif state["state"] != "ok":
            failed[case.id] = state["message"]
        else:
            try:
                calls = range(len(spec.weights))
                threads = int(state["threads"])
                counts[case.id] = tuple(thread_counts(dumps, case.id, i, threads) for i in calls)
            except ValueError as exc:
                failed[case.id] = f"callgrind's per-thread counts of this case: {exc}"
    return ThreadOutcome(counts, skipped, failed, fingerprint)
